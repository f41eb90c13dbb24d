import type { Request } from 'express';
import { HttpError } from '../http/http-error';
import type { Registry } from '../definitions/registry-types';
import type { Config } from '../config';
import type { Clock } from './clock';
import { authTables } from './auth-tables';
import { clientAddress, inNetworks } from './client-address';
import { sessionPrincipal } from './sessions';
import type { CredentialCache } from './credential-cache';
import { AUTH_VERSION_TABLE } from '../migrations/routines';
import { ident, sql } from '../sql/fragment';
import { runRows } from '../database/run';
import type { Db } from '../database/db';
import { currentRequestScope } from '../database/request-scope';
import { primaryOf } from '../database/routed-db';

/** Who is asking: a user known through a token or a browser session, or nobody. */
export interface Principal {
  userId: number;
  username: string;
  isSuperuser: boolean;
  /** The token used, or null for a browser session. */
  tokenId: number | null;
  writeEnabled: boolean;
  /** A session's CSRF token: unsafe requests authenticated by cookie must echo it. */
  csrfToken?: string;
  /**
   * Set when the credentials may come from the process's cache: the auth version they were read under,
   * which the request's read statement checks is still current (engine/auth/credential-cache.ts).
   */
  authVersion?: number;
}

interface TokenRow {
  id: number;
  expired: boolean;
  expires_ms: number | null;
  auth_version: number | null;
  write_enabled: boolean;
  allowed_ips: string[] | null;
  stale: boolean;
  fresh: boolean;
  user_id: number;
  username: string;
  is_active: boolean;
  is_superuser: boolean;
}

const TOKEN_HEADER = /^Token\s+(\S+)\s*$/i;
/** NetBox records a token's use at most once a minute. */
const LAST_USED_INTERVAL_SECONDS = 60;

/**
 * Uses this process has just recorded, per database and token id: a burst of requests on a stale token
 * sends one UPDATE, not one each (the UPDATE's own condition keeps other instances to one a minute).
 */
const recordedUses = new WeakMap<object, Map<number, number>>();

function claimUse(db: object, tokenId: number, nowMs: number): boolean {
  const interval = LAST_USED_INTERVAL_SECONDS * 1000;
  let seen = recordedUses.get(db);
  if (!seen) recordedUses.set(db, (seen = new Map()));
  const last = seen.get(tokenId);
  if (last !== undefined && nowMs - last < interval) return false;
  if (seen.size >= 10_000) for (const [id, at] of seen) if (nowMs - at >= interval) seen.delete(id);
  seen.set(tokenId, nowMs);
  return true;
}

export interface AuthDeps {
  knex: Db;
  registry: Registry;
  config: Config;
  clock: Clock;
}

/**
 * Reads `Authorization: Token <key>` (or, without one, the session cookie). No credentials means
 * anonymous; bad credentials are refused with NetBox's words. With a cache (reads only), a token seen
 * before costs no query: its expiry and allowed networks are checked here, and the rest by the read's
 * own statement, which checks the auth version the principal carries.
 */
export async function authenticate(deps: AuthDeps, req: Request, cache?: CredentialCache): Promise<Principal | null> {
  const header = req.headers.authorization;
  if (!header) return sessionPrincipal(deps, req);
  const m = TOKEN_HEADER.exec(header);
  if (!m) throw new HttpError(403, { detail: 'Invalid token header. No credentials provided.' });
  const key = m[1]!;
  if (!/^[0-9a-fA-F]{40}$/.test(key)) throw new HttpError(403, { detail: 'Invalid token' });
  const cached = cache?.get(key);
  if (cached) {
    if (cached.expiresAtMs !== null && cached.expiresAtMs <= deps.clock.now().getTime()) throw new HttpError(403, { detail: 'Token expired' });
    checkSource(deps, req, cached.allowedIps);
    await recordUse(deps, cached.tokenId, true);
    return { ...cached.principal, authVersion: cached.version };
  }
  // On a standby a token may be missing (created a moment ago) or still valid there (changed since): anything
  // but a fresh, plainly valid answer is asked again on the primary before it is believed or refused.
  const onStandby = currentRequestScope()?.readFrom !== undefined;
  let row = await lookUpToken(deps, deps.knex, key);
  if (onStandby && !(row && row.fresh && row.is_active && !row.expired && !row.allowed_ips?.length)) row = await lookUpToken(deps, primaryOf(deps.knex), key);
  if (!row) throw new HttpError(403, { detail: 'Invalid token' });
  if (!row.is_active) throw new HttpError(403, { detail: 'User inactive or deleted.' });
  if (row.expired) throw new HttpError(403, { detail: 'Token expired' });
  checkSource(deps, req, row.allowed_ips);
  await recordUse(deps, row.id, row.stale);
  const principal: Principal = {
    userId: row.user_id,
    username: row.username,
    isSuperuser: row.is_superuser,
    tokenId: row.id,
    writeEnabled: row.write_enabled,
  };
  if (!cache || row.auth_version === null) return principal;
  const version = Number(row.auth_version);
  cache.set(key, { tokenId: row.id, principal, version, expiresAtMs: row.expires_ms === null ? null : Number(row.expires_ms), allowedIps: row.allowed_ips });
  return { ...principal, authVersion: version };
}

/** The token and its user as `db` sees them; `fresh`: false on a standby too far behind to be believed. */
async function lookUpToken(deps: AuthDeps, db: Db, key: string): Promise<TokenRow | undefined> {
  const { users, tokens } = authTables(deps.registry);
  const now = deps.clock.now().toISOString();
  const standby = db === deps.knex ? currentRequestScope()?.readFrom : undefined;
  const [row] = await runRows<TokenRow>(db, sql`SELECT "t"."id", ("t"."expires" IS NOT NULL AND "t"."expires" <= ${now}::timestamptz) AS "expired", extract(epoch FROM "t"."expires") * 1000 AS "expires_ms",
            "t"."write_enabled", "t"."allowed_ips"::text[] AS "allowed_ips",
            ("t"."last_used" IS NULL OR "t"."last_used" < ${now}::timestamptz - make_interval(secs => ${LAST_USED_INTERVAL_SECONDS})) AS "stale",
            "u"."id" AS "user_id", "u"."username", "u"."is_active", "u"."is_superuser",
            (SELECT "version" FROM ${ident(AUTH_VERSION_TABLE)}) AS "auth_version", ${standby ? standby.freshness(null) : sql`TRUE`} AS "fresh"
       FROM ${tokens} AS "t" JOIN ${users} AS "u" ON "u"."id" = "t"."user_id"
      WHERE "t"."key" = ${key}`);
  return row;
}

/** A token limited to some networks is refused from any other (NetBox's allowed_ips). */
function checkSource(deps: AuthDeps, req: Request, allowedIps: string[] | null): void {
  if (!allowedIps || !allowedIps.length) return;
  const addr = clientAddress(req, deps.config.trustedProxies);
  if (!addr || !inNetworks(addr, allowedIps)) {
    throw new HttpError(403, { detail: `Source IP ${addr?.toString() ?? 'unknown'} is not permitted to authenticate using this token.` });
  }
}

/**
 * Records the token's use, at most once a minute (NetBox's last_used). `mayBeDue`: false when the lookup saw
 * a record younger than a minute; a cached token cannot tell, and the process's memory of what it recorded
 * decides.
 */
async function recordUse(deps: AuthDeps, tokenId: number, mayBeDue: boolean): Promise<void> {
  if (deps.config.maintenanceMode || !mayBeDue) return;
  const nowMs = deps.clock.now().getTime();
  if (!claimUse(deps.knex, tokenId, nowMs)) return;
  const { tokens } = authTables(deps.registry);
  const now = new Date(nowMs).toISOString();
  // The condition is repeated in the UPDATE so concurrent requests (and instances) record one use, not one each.
  // A write, so on the primary even when the request reads from a standby.
  await runRows(primaryOf(deps.knex), sql`UPDATE ${tokens} SET "last_used" = ${now}::timestamptz, "last_updated" = ${now}::timestamptz
      WHERE "id" = ${tokenId}::bigint AND ("last_used" IS NULL OR "last_used" < ${now}::timestamptz - make_interval(secs => ${LAST_USED_INTERVAL_SECONDS}))`);
}
