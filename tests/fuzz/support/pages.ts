import type { Prng } from './prng';
import type { Fixtures } from './fixtures';
import { percentEncode } from './hostile-values';
import type { World } from './world';

/**
 * The surfaces no definition describes: the API root, status, application roots, the OpenAPI schema
 * and its documentation pages, and the account pages (login, logout, profile, token forms).
 */

export interface PagePlan {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  htmlOk: boolean;
}

const ODD_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE', 'PROPFIND', 'TRACE', 'PURGE', 'LOCK', 'SEARCH', 'MKCOL', 'QUERY'];

/** /api/, /api/status/, /api/<app>/ (the registry's apps, NetBox's, and junk). */
export function fixedApiPath(rng: Prng, world: World): { path: string; htmlOk: boolean } {
  return rng.weighted<() => { path: string; htmlOk: boolean }>([
    [2, () => ({ path: '/api/', htmlOk: false })],
    [2, () => ({ path: '/api/status/', htmlOk: false })],
    [3, () => ({ path: `/api/${rng.pick(world.apps)}/`, htmlOk: false })],
    [1, () => ({ path: `/api/${rng.pick(['nothing', '__proto__', 'constructor', '%00', '%ED%A0%80', 'DCIM', '..', '%2e%2e'])}/`, htmlOk: false })],
    [2, () => ({ path: `/api/schema/${rng.pick(['', '?format=json', '?format=yaml', '?format=xml', '?format=', '?format=%00', '?format=json&format=yaml', '?format=%ED%A0%80'])}`, htmlOk: false })],
    [2, () => ({ path: rng.pick(['/api/docs/', '/api/schema/swagger-ui/', '/api/docs/patchbay-init.js', '/api/docs/swagger-ui.css', '/api/docs/favicon-32x32.png', '/api/docs/nothing.js', '/api/docs/..%2F..%2Fpackage.json', '/api/docs/%2e%2e/%2e%2e/package.json', '/api/docs/swagger-ui.css.map', '/api/docs/__proto__']), htmlOk: true })],
    [1, () => ({ path: rng.pick(['/', '/api', '/api//', '/favicon.ico', '/static/x.css', '/api/status', '//api/status/', '/api/./status/', '/api/status/?format=api', '/%00', '/%ZZ', `/${'a/'.repeat(200)}`]), htmlOk: true })],
  ])();
}

export function fixedApiMethod(rng: Prng): string {
  return rng.weighted<string>([[8, 'GET'], [2, 'HEAD'], [2, 'OPTIONS'], [2, rng.pick(ODD_METHODS)]]);
}

/** A form body: fields in order, each value percent-encoded (or given already encoded with `raw`). */
function form(fields: Array<[string, string, boolean?]>): Buffer {
  return Buffer.from(fields.map(([k, v, raw]) => `${percentEncode(k)}=${raw ? v : percentEncode(v)}`).join('&'), 'utf8');
}

const JUNK_TEXT = ['', 'a\u0000b', '\ud800', 'x'.repeat(300), '%', '<script>', '\u202e', "' OR 1=1 --"];
const JUNK_ENCODED = ['%00', '%ED%A0%80', '%FF', '%', '%zz', 'a%C0%80'];
const NEXTS = ['/api/', '//evil.example/', 'https://evil.example/', '/\\evil', 'javascript:alert(1)', '/user/profile/?x=%00', `/${'a'.repeat(5000)}`, '/%ED%A0%80'];

function loginFields(rng: Prng, fx: Fixtures, csrf: string | undefined): Buffer {
  const fields: Array<[string, string, boolean?]> = [];
  if (csrf !== undefined) fields.push(['csrfmiddlewaretoken', csrf]);
  // A right password is rare: most attempts fail, and the login rate limit turns them into cheap 429s.
  fields.push(['username', rng.weighted<string>([[3, rng.pick(fx.usernames)], [2, rng.pick(JUNK_TEXT)], [1, 'nobody']])]);
  if (rng.chance(0.9)) fields.push(['password', rng.weighted<string>([[1, fx.password], [6, rng.pick(['wrong', ...JUNK_TEXT])]])]);
  if (rng.chance(0.4)) fields.push(['next', rng.pick(NEXTS)]);
  if (rng.chance(0.15)) fields.push([rng.pick(['username', 'x', '__proto__']), rng.pick(JUNK_ENCODED), true]);
  return form(fields);
}

function tokenFields(rng: Prng, csrf: string | undefined): Buffer {
  const fields: Array<[string, string, boolean?]> = [];
  if (csrf !== undefined) fields.push(['csrfmiddlewaretoken', csrf]);
  if (rng.chance(0.8)) fields.push(['description', rng.weighted<string>([[3, 'fuzz token'], [2, rng.pick(JUNK_TEXT)], [1, 'x'.repeat(201)]])]);
  if (rng.chance(0.5)) fields.push(['write_enabled', rng.pick(['on', '', 'off', '0'])]);
  if (rng.chance(0.6)) {
    fields.push(['expires', rng.pick(['2030-01-01T00:00', '2024-02-30T00:00', '0000-01-01T00:00', '10000-01-01T00:00', '+275760-09-13T00:00', '2030-01-01T00:00Z', '2030-01-01T00:00+99:99', '2030-01-01 00:00:00.1234567', 'tomorrow', '', '2030-01-01T24:00', '2030-13-01T00:00'])]);
  }
  if (rng.chance(0.15)) fields.push([rng.pick(['description', 'expires', 'x']), rng.pick(JUNK_ENCODED), true]);
  return form(fields);
}

/** The account pages, as a browser (with a session, its cookie and form token) or not. */
export function accountPage(rng: Prng, world: World): PagePlan & { surface: string } {
  const fx = world.fixtures;
  const sessionName = rng.pick(['session-super', 'session-user'] as const);
  const s = fx.sessions[sessionName];
  const withSession = rng.chance(0.75);
  const cookie = withSession ? `sessionid=${s.sessionid}; csrftoken=${s.csrftoken}` : rng.pick(['', `csrftoken=${s.csrftoken}`, 'sessionid=%', `sessionid=${'f'.repeat(64)}`]);
  const headers: Record<string, string> = cookie ? { Cookie: cookie } : {};
  const dropEmptyCookie = (h: Record<string, string>) => {
    if (h.Cookie === '') delete h.Cookie;
    return h;
  };
  const formType = () => rng.weighted<string | undefined>([[8, 'application/x-www-form-urlencoded'], [1, 'application/json'], [1, 'multipart/form-data; boundary=x'], [1, undefined]]);
  const csrfField = () => rng.weighted<string | undefined>([[7, s.csrftoken], [1, undefined], [1, 'x'], [1, fx.sessions[sessionName === 'session-super' ? 'session-user' : 'session-super'].csrftoken]]);
  const which = rng.weighted<string>([[2, 'login-get'], [4, 'login-post'], [1, 'logout'], [2, 'profile'], [3, 'token-create'], [3, 'token-edit'], [2, 'token-delete']]);
  const withType = (plan: PagePlan): PagePlan => {
    if (plan.body) {
      const type = formType();
      if (type !== undefined) plan.headers['Content-Type'] = type;
    }
    return plan;
  };
  switch (which) {
    case 'login-get': {
      const q = rng.chance(0.6) ? `?next=${rng.chance(0.5) ? percentEncode(rng.pick(NEXTS)) : rng.pick(JUNK_ENCODED)}` : '';
      return { surface: 'login', method: rng.pick(['GET', 'GET', 'HEAD', 'PUT', 'OPTIONS']), path: `/login/${q}`, headers, htmlOk: true };
    }
    case 'login-post': {
      // The login form checks the csrftoken cookie against the form's field, and where the form came from.
      const h = dropEmptyCookie({ Cookie: rng.chance(0.8) ? `csrftoken=${s.csrftoken}` : rng.pick(['', 'csrftoken=%', `csrftoken=${'0'.repeat(64)}`]) });
      if (rng.chance(0.3)) h.Origin = rng.pick(['http://evil.example', 'null', '', '\u00ff']);
      if (rng.chance(0.3)) h.Referer = rng.pick(['http://evil.example/login/', '::::', '', '/login/']);
      return { surface: 'login', ...withType({ method: 'POST', path: '/login/', headers: h, body: loginFields(rng, fx, rng.chance(0.85) ? s.csrftoken : undefined), htmlOk: true }) };
    }
    case 'logout':
      return { surface: 'logout', method: rng.pick(['GET', 'POST', 'DELETE']), path: '/logout/', headers, htmlOk: true };
    case 'profile':
      return { surface: 'profile', method: rng.pick(['GET', 'GET', 'HEAD', 'POST']), path: `/user/profile/${rng.chance(0.2) ? `?${rng.pick(JUNK_ENCODED)}=1` : ''}`, headers, htmlOk: true };
    default: {
      const id = rng.weighted<string>([[6, String(rng.pick(s.tokenIds))], [1, String(fx.sessions[sessionName === 'session-super' ? 'session-user' : 'session-super'].tokenIds[0])], [2, rng.pick(['0', '-1', 'abc', '%zz', '%00', '99999999999999999999', '1.5', '1e400', '%ED%A0%80'])]]);
      const path = which === 'token-create' ? '/user/tokens/' : `/user/tokens/${id}/${which === 'token-edit' ? 'edit' : 'delete'}/`;
      const method = rng.weighted<string>([[9, 'POST'], [1, rng.pick(['GET', 'PUT', 'DELETE'])]]);
      const body = rng.chance(0.05) ? Buffer.from(`csrfmiddlewaretoken=${s.csrftoken}&description=${'x'.repeat(70_000)}`) : tokenFields(rng, csrfField());
      return { surface: 'token-forms', ...withType({ method, path, headers, body, htmlOk: true }) };
    }
  }
}

/** POST {username, password} to a type's provisioning action (a JSON body), or something else. */
export function provisionBody(rng: Prng, fx: Fixtures): { body: Buffer; contentType: string | undefined } {
  const fields: Record<string, unknown> = {};
  if (rng.chance(0.9)) fields.username = rng.weighted<unknown>([[3, rng.pick(fx.usernames)], [2, rng.pick(JUNK_TEXT)], [1, rng.pick([5, null, ['admin'], { a: 1 }])]]);
  if (rng.chance(0.9)) fields.password = rng.weighted<unknown>([[1, fx.password], [5, rng.pick(['wrong', ...JUNK_TEXT])], [1, rng.pick([5, null, true])]]);
  if (rng.chance(0.3)) fields.description = rng.pick([...JUNK_TEXT, 5, null, 'x'.repeat(201)]);
  const text = rng.weighted<() => string>([
    [8, () => JSON.stringify(fields)],
    [1, () => rng.pick(['[]', 'null', '"x"', '{', '{"username":"admin","password":"x"}x'])],
    [1, () => JSON.stringify({ username: 'x'.repeat(70_000), password: 'x' })],
  ])();
  return { body: Buffer.from(text, 'utf8'), contentType: rng.weighted<string | undefined>([[9, 'application/json'], [1, rng.pick(['text/plain', 'application/x-www-form-urlencoded', undefined])]]) };
}
