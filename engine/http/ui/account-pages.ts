import express, { type Request, type Response, type Router } from 'express';
import type { ApiContext } from '../api-context';
import { ident, sql } from '../../sql/fragment';
import { runRows } from '../../database/run';
import { checkCredentials } from '../../auth/credentials';
import { clientAddress } from '../../auth/client-address';
import { CSRF_COOKIE, csrfMatches, endSession, loginCsrf, loginCsrfMatches, readCookie, sessionPrincipal, startSession } from '../../auth/sessions';
import { readBody } from '../request-body';
import { ANONYMOUS_BODY_BYTES } from '../list-actions';
import { badStringMessage } from '../../validation/string-hygiene';
import type { Principal } from '../../auth/authenticate';
import { HttpError } from '../http-error';
import { defaultWith } from '../../definitions/named-functions';
import { esc, page } from './html';

/** A submitted form: small (these pages take a few short fields), and every value text PostgreSQL can hold. */
async function readForm(req: Request, res: Response): Promise<URLSearchParams> {
  const raw = await readBody(req, res, { maxBytes: ANONYMOUS_BODY_BYTES, json: false });
  const fields = new URLSearchParams(raw.toString('utf8'));
  for (const [name, value] of fields) {
    const bad = badStringMessage(name) ?? badStringMessage(value);
    if (bad) throw new HttpError(400, { [name]: [bad] });
  }
  return fields;
}

/** Only local paths are followed after login, so the page cannot be used to redirect elsewhere. */
function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') && !next.includes('\\') ? next : '/user/profile/';
}

function loginForm(next: string, csrf: string, error?: string): string {
  return page(
    'Log in',
    `<h2>Log in</h2>${error ? `<p class="error" role="alert">${esc(error)}</p>` : ''}
<form method="post" action="/login/">
<input type="hidden" name="csrfmiddlewaretoken" value="${esc(csrf)}">
<input type="hidden" name="next" value="${esc(next)}">
<label for="username">Username</label><input type="text" id="username" name="username" autocomplete="username" required>
<label for="password">Password</label><input type="password" id="password" name="password" autocomplete="current-password" required>
<div><button type="submit">Log in</button></div></form>`,
  );
}

interface TokenRow {
  id: number;
  key: string;
  description: string;
  write_enabled: boolean;
  expires: string | null;
  last_used: string | null;
  created: string;
}

async function profile(ctx: ApiContext, principal: Principal, created?: { key: string }): Promise<string> {
  const tokens = ctx.registry.roles.get('token')!;
  const tokenRows = await runRows<TokenRow>(ctx.knex, sql`SELECT "id", "key", "description", "write_enabled", to_char("expires" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI') AS "expires",
            to_char("last_used" AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') AS "last_used", to_char("created" AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') AS "created"
       FROM ${ident(tokens.table)} WHERE "user_id" = ${principal.userId}::bigint ORDER BY "id"`);
  const csrf = `<input type="hidden" name="csrfmiddlewaretoken" value="${esc(principal.csrfToken)}">`;
  const rows = tokenRows
    .map((t) => {
      const shown = ctx.config.allowTokenRetrieval ? t.key : `${'*'.repeat(36)}${t.key.slice(-4)}`;
      return `<tr><td><span class="key">${esc(shown)}</span></td>
<td><form method="post" action="/user/tokens/${t.id}/edit/">${csrf}
<label for="d${t.id}">Description</label><input type="text" id="d${t.id}" name="description" value="${esc(t.description)}" maxlength="200">
<label><input type="checkbox" name="write_enabled" ${t.write_enabled ? 'checked' : ''}> Write enabled</label>
<label for="e${t.id}">Expires (UTC)</label><input type="datetime-local" id="e${t.id}" name="expires" value="${esc(t.expires ?? '')}">
<button type="submit">Save</button></form></td>
<td>${esc(t.created)}</td><td>${esc(t.last_used ?? 'never')}</td>
<td><form method="post" action="/user/tokens/${t.id}/delete/">${csrf}<button type="submit" aria-label="Delete token ending ${esc(t.key.slice(-4))}">Delete</button></form></td></tr>`;
    })
    .join('\n');
  const fresh = created
    ? `<section aria-live="polite"><h3>New token</h3><p>Copy this key now${ctx.config.allowTokenRetrieval ? '' : ': it will not be shown again'}:</p><p><span class="key" id="new-token-key">${esc(created.key)}</span></p></section>`
    : '';
  return page(
    'Profile',
    `<h2>${esc(principal.username)}</h2>${fresh}
<h3>API tokens</h3>
<table><thead><tr><th scope="col">Key</th><th scope="col">Settings</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${rows || '<tr><td colspan="5">No tokens yet.</td></tr>'}</tbody></table>
<h3>Create a token</h3>
<form method="post" action="/user/tokens/">${csrf}
<label for="new-description">Description</label><input type="text" id="new-description" name="description" maxlength="200">
<label><input type="checkbox" name="write_enabled" checked> Write enabled</label>
<label for="new-expires">Expires (UTC, optional)</label><input type="datetime-local" id="new-expires" name="expires">
<div><button type="submit">Create token</button></div></form>`,
    principal.username,
  );
}

/** A form's date and time (UTC unless it says otherwise), within the years a database timestamp and a browser both handle. */
function expiresOf(value: string | null): string | null {
  if (!value) return null;
  const m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?(Z|[+-]\d\d:?\d\d)?$/.exec(value);
  const [, y, mo, d, h, mi, s] = (m ?? []).map(Number);
  // Every part in range (no 30 February rolling into March), and a year a database timestamp holds.
  const parts = m ? new Date(Date.UTC(y!, mo! - 1, d!, h!, mi!, s || 0)) : null;
  const real = parts && y! >= 1 && parts.getUTCFullYear() === y && parts.getUTCMonth() === mo! - 1 && parts.getUTCDate() === d && h! < 24 && mi! < 60 && (s || 0) < 60;
  const at = real ? new Date(m![7] ? value : `${value}Z`) : null;
  if (!at || Number.isNaN(at.getTime())) throw new HttpError(400, { expires: ['Enter a valid date/time.'] });
  return at.toISOString();
}

/**
 * The token a form's path names (/user/tokens/<id>/...): a positive integer a bigint holds, else 0,
 * which names no token, so the form changes nothing (Number() would hand 1e20 or Infinity to SQL).
 */
function tokenIdOf(param: unknown): number {
  return typeof param === 'string' && /^\d{1,15}$/.test(param) ? Number(param) : 0;
}

/** Login, logout and the profile page where users manage their own tokens (cookie sessions, CSRF-checked forms). */
export function accountPages(ctx: ApiContext): Router {
  const router = express.Router();
  const html = (res: Response, status: number, body: string): void => {
    res.status(status).type('text/html; charset=utf-8').send(body);
  };
  const loggedIn = async (req: Request, res: Response): Promise<Principal | null> => {
    const p = await sessionPrincipal(ctx, req);
    if (!p) res.redirect(302, `/login/?next=${encodeURIComponent(req.originalUrl)}`);
    return p;
  };
  const checked = async (req: Request, res: Response): Promise<{ principal: Principal; fields: URLSearchParams } | null> => {
    const principal = await loggedIn(req, res);
    if (!principal) return null;
    const fields = await readForm(req, res);
    if (!csrfMatches(principal.csrfToken, fields.get('csrfmiddlewaretoken'))) {
      html(res, 403, page('Forbidden', '<h2>Forbidden</h2><p class="error">CSRF verification failed. Reload the page and try again.</p>'));
      return null;
    }
    return { principal, fields };
  };
  const wrap = (fn: (req: Request, res: Response) => Promise<void>) => (req: Request, res: Response, next: (e?: unknown) => void) => {
    fn(req, res).catch(next);
  };

  router.get('/login/', (req, res) => html(res, 200, loginForm(safeNext(String(req.query.next ?? '')), loginCsrf(ctx, req, res))));
  router.post('/login/', wrap(async (req, res) => {
    // Login CSRF: the form must carry the token of the cookie the login page set, and come from here.
    if (!loginCsrfMatches(ctx, req)) {
      html(res, 403, page('Forbidden', '<h2>Forbidden</h2><p class="error">CSRF verification failed. Reload the login page and try again.</p>'));
      return;
    }
    const fields = await readForm(req, res);
    if (!csrfMatches(readCookie(req, CSRF_COOKIE), fields.get('csrfmiddlewaretoken'))) {
      html(res, 403, page('Forbidden', '<h2>Forbidden</h2><p class="error">CSRF verification failed. Reload the login page and try again.</p>'));
      return;
    }
    const next = safeNext(fields.get('next'));
    const csrf = loginCsrf(ctx, req, res);
    const address = clientAddress(req, ctx.config.trustedProxies)?.toString() ?? '';
    let userId: number | null;
    try {
      userId = await checkCredentials(ctx, fields.get('username') ?? '', fields.get('password') ?? '', address);
    } catch (e) {
      if (!(e instanceof HttpError && e.status === 429)) throw e;
      html(res, 429, loginForm(next, csrf, 'Too many failed attempts. Try again later.'));
      return;
    }
    if (userId === null) {
      html(res, 200, loginForm(next, csrf, 'Please enter a correct username and password.'));
      return;
    }
    await startSession(ctx, req, res, userId);
    res.redirect(302, next);
  }));
  const logout = wrap(async (req, res) => {
    await endSession(ctx, req, res);
    res.redirect(302, '/login/');
  });
  router.post('/logout/', logout);
  router.get('/logout/', logout);

  router.get('/user/profile/', wrap(async (req, res) => {
    const principal = await loggedIn(req, res);
    if (principal) html(res, 200, await profile(ctx, principal));
  }));
  router.post('/user/tokens/', wrap(async (req, res) => {
    const c = await checked(req, res);
    if (!c) return;
    const key = String(defaultWith('token_key'));
    const tokens = ctx.registry.roles.get('token')!;
    const description = (c.fields.get('description') ?? '').slice(0, 200);
    await runRows(ctx.knex, sql`INSERT INTO ${ident(tokens.table)} ("user_id", "key", "description", "write_enabled", "expires")
      VALUES (${c.principal.userId}, ${key}, ${description}, ${c.fields.has('write_enabled')}, ${expiresOf(c.fields.get('expires'))}::timestamptz)`);
    html(res, 201, await profile(ctx, c.principal, { key }));
  }));
  router.post('/user/tokens/:id/edit/', wrap(async (req, res) => {
    const c = await checked(req, res);
    if (!c) return;
    const tokens = ctx.registry.roles.get('token')!;
    const description = (c.fields.get('description') ?? '').slice(0, 200);
    await runRows(ctx.knex, sql`UPDATE ${ident(tokens.table)} SET "description" = ${description}, "write_enabled" = ${c.fields.has('write_enabled')}, "expires" = ${expiresOf(c.fields.get('expires'))}::timestamptz, "last_updated" = now()
      WHERE "id" = ${tokenIdOf(req.params.id)}::bigint AND "user_id" = ${c.principal.userId}::bigint`);
    res.redirect(303, '/user/profile/');
  }));
  router.post('/user/tokens/:id/delete/', wrap(async (req, res) => {
    const c = await checked(req, res);
    if (!c) return;
    const tokens = ctx.registry.roles.get('token')!;
    await runRows(ctx.knex, sql`DELETE FROM ${ident(tokens.table)} WHERE "id" = ${tokenIdOf(req.params.id)}::bigint AND "user_id" = ${c.principal.userId}::bigint`);
    res.redirect(303, '/user/profile/');
  }));
  return router;
}
