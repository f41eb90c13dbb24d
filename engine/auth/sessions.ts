import crypto from 'node:crypto';
import type { Request, Response } from 'express';
import { ident, sql, type Sql } from '../sql/fragment';
import { runRows } from '../database/run';
import type { AuthDeps, Principal } from './authenticate';
import { inNetworks, parseAddress } from './client-address';
import type { Db } from '../database/db';
import { currentRequestScope } from '../database/request-scope';
import { primaryOf } from '../database/routed-db';

export const SESSION_COOKIE = 'sessionid';
export const CSRF_HEADER = 'x-csrftoken';
/** Django's cookie holding the CSRF token for scripts to echo in X-CSRFToken (readable, unlike the session's). */
export const CSRF_COOKIE = 'csrftoken';
const SESSION_DAYS = 14;
/** Session keys and CSRF tokens: 32 random bytes in hex. */
const TOKEN_FORMAT = /^[0-9a-f]{64}$/;

/** Sessions are kept by the hash of their key, so a leaked table does not hand out logins. */
function keyHash(key: string): string {
  return crypto.createHash('sha256').update(key).digest('hex');
}

function sessionTable(deps: Pick<AuthDeps, 'registry'>): Sql {
  const m = deps.registry.roles.get('session');
  if (!m) throw new Error('browser sessions need a model with "role": "session"');
  return ident(m.table);
}

/** A cookie's value; a value that does not decode (a stray %) counts as absent, as a browser's garbage should. */
export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/**
 * The CSRF token of the login form: the csrftoken cookie's when it holds one, else a new one set now
 * (Django sets it with the login page), so only a page served here can submit a login.
 */
export function loginCsrf(deps: Pick<AuthDeps, 'config'>, req: Request, res: Response): string {
  const current = readCookie(req, CSRF_COOKIE);
  if (current && TOKEN_FORMAT.test(current)) return current;
  const token = crypto.randomBytes(32).toString('hex');
  res.cookie(CSRF_COOKIE, token, { sameSite: 'lax', secure: overHttps(req, deps.config.trustedProxies), path: '/' });
  return token;
}

/**
 * Whether a login form comes from this site, as Django's CSRF middleware tells: an Origin header (every
 * browser sends one on a cross-site POST) must be this server's own; without one, a Referer must be.
 */
export function loginCsrfMatches(deps: Pick<AuthDeps, 'config'>, req: Request): boolean {
  const own = `${overHttps(req, deps.config.trustedProxies) ? 'https' : 'http'}://${req.headers.host ?? ''}`.toLowerCase();
  const origin = req.headers.origin;
  if (origin !== undefined) return origin.toLowerCase() === own;
  const referer = req.headers.referer;
  if (referer === undefined) return true;
  try {
    return new URL(referer).origin.toLowerCase() === own;
  } catch {
    return false;
  }
}

/**
 * What a session remembers of the user's password: a digest of its hash. A session is valid only while
 * it matches, so a password change (by any path: the API, the command line) ends every session of
 * that user, as Django's session auth hash does.
 */
function authHash(passwordHash: string): string {
  return crypto.createHash('sha256').update(`patchbay-session:${passwordHash}`).digest('hex');
}

/** The user of a valid session cookie, or null. */
export async function sessionPrincipal(deps: AuthDeps, req: Request): Promise<Principal | null> {
  const key = readCookie(req, SESSION_COOKIE);
  if (!key || !TOKEN_FORMAT.test(key)) return null;
  const found = await lookUpSession(deps, deps.knex, key);
  // A session started a moment ago on another instance may not be on the standby yet; one found there on a
  // standby too far behind is not believed: both are asked again on the primary.
  const row = found?.fresh === false || (!found && currentRequestScope()?.readFrom) ? await lookUpSession(deps, primaryOf(deps.knex), key) : found;
  if (!row || !csrfMatches(authHash(row.password), row.auth_hash)) return null;
  return { userId: row.id, username: row.username, isSuperuser: row.is_superuser, tokenId: null, writeEnabled: true, csrfToken: row.csrf_token };
}

async function lookUpSession(deps: AuthDeps, db: Db, key: string) {
  const users = ident(deps.registry.roles.get('user')!.table);
  const standby = db === deps.knex ? currentRequestScope()?.readFrom : undefined;
  const [row] = await runRows<{ csrf_token: string; auth_hash: string; password: string; id: number; username: string; is_superuser: boolean; fresh: boolean }>(db, sql`SELECT "s"."csrf_token", "s"."auth_hash", "u"."password", "u"."id", "u"."username", "u"."is_superuser", ${standby ? standby.freshness(null) : sql`TRUE`} AS "fresh"
       FROM ${sessionTable(deps)} AS "s" JOIN ${users} AS "u" ON "u"."id" = "s"."user_id"
      WHERE "s"."key" = ${keyHash(key)} AND "s"."expires" > ${deps.clock.now().toISOString()}::timestamptz AND "u"."is_active"`);
  return row;
}

/** Starts a session for the user: stores it and sets the cookie (HttpOnly, SameSite=Lax, Secure behind HTTPS). */
export async function startSession(deps: AuthDeps, req: Request, res: Response, userId: number): Promise<void> {
  const key = crypto.randomBytes(32).toString('hex');
  const csrf = crypto.randomBytes(32).toString('hex');
  const expires = new Date(deps.clock.now().getTime() + SESSION_DAYS * 86400_000);
  const users = ident(deps.registry.roles.get('user')!.table);
  const [user] = await runRows<{ password: string }>(deps.knex, sql`SELECT "password" FROM ${users} WHERE "id" = ${userId}::bigint`);
  const password = String(user?.password ?? '');
  await runRows(deps.knex, sql`INSERT INTO ${sessionTable(deps)} ("key", "user_id", "csrf_token", "auth_hash", "expires") VALUES (${keyHash(key)}, ${userId}, ${csrf}, ${authHash(password)}, ${expires.toISOString()}::timestamptz)`);
  const secure = overHttps(req, deps.config.trustedProxies);
  res.cookie(SESSION_COOKIE, key, { httpOnly: true, sameSite: 'lax', secure, path: '/', expires });
  res.cookie(CSRF_COOKIE, csrf, { sameSite: 'lax', secure, path: '/', expires });
}

/** HTTPS directly, or as a trusted proxy reports it (X-Forwarded-Proto): another client's say-so does not count. */
export function overHttps(req: Request, trustedProxies: readonly string[]): boolean {
  if (req.secure) return true;
  const peer = parseAddress(req.socket.remoteAddress);
  if (!peer || !trustedProxies.length || !inNetworks(peer, trustedProxies)) return false;
  const header = req.headers['x-forwarded-proto'];
  const proto = (Array.isArray(header) ? header[0] : header) ?? '';
  return proto.split(',')[0]!.trim().toLowerCase() === 'https';
}

export async function endSession(deps: Pick<AuthDeps, 'registry'> & { knex: Db }, req: Request, res: Response): Promise<void> {
  const key = readCookie(req, SESSION_COOKIE);
  if (key && TOKEN_FORMAT.test(key)) await runRows(deps.knex, sql`DELETE FROM ${sessionTable(deps)} WHERE "key" = ${keyHash(key)}`);
  res.clearCookie(SESSION_COOKIE, { path: '/' });
  res.clearCookie(CSRF_COOKIE, { path: '/' });
}

/**
 * Constant-time comparison of a presented CSRF token with the session's. Lengths are compared in bytes:
 * a header or form value of as many characters but non-ASCII ones is longer in UTF-8, and
 * timingSafeEqual throws on buffers of unequal length.
 */
export function csrfMatches(expected: string | undefined, presented: unknown): boolean {
  if (!expected || typeof presented !== 'string') return false;
  const want = Buffer.from(expected);
  const got = Buffer.from(presented);
  return want.length === got.length && crypto.timingSafeEqual(want, got);
}
