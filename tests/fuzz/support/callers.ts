import type { Prng } from './prng';
import type { Fixtures, IdentityName } from './fixtures';

/**
 * Who a case claims to be (a superuser's, a plain user's, a read-only or a constrained token; a
 * browser session with or without its CSRF token; nobody; or an Authorization header that is junk),
 * and the other headers a client controls: Accept, Host, X-Forwarded-*, cookies.
 */

export type Caller = IdentityName | 'junk-auth';

export function pickCaller(rng: Prng): Caller {
  return rng.weighted<Caller>([
    [40, 'superuser'],
    [8, 'user'],
    [7, 'readonly'],
    [10, 'constrained'],
    [10, 'session-super'],
    [5, 'session-user'],
    [12, 'anonymous'],
    [8, 'junk-auth'],
  ]);
}

function junkAuthorization(rng: Prng, fx: Fixtures): string {
  const key = fx.tokens.superuser;
  return rng.pick([
    'Token',
    'Token ',
    `Token ${key.slice(0, 39)}`,
    `Token ${'0'.repeat(40)}`,
    `token ${key}`,
    `Token   ${key}   `,
    `Token\t${key}`,
    `Bearer ${key}`,
    `Basic ${Buffer.from('admin:admin').toString('base64')}`,
    `Token ${key} extra`,
    `Token ${key.toUpperCase()}`,
    `Token ${'a'.repeat(10_000)}`,
    'Token %00',
    `Token ${key}\u00ff`,
    '\u00ff\u00fe',
    `Token ${key},Token ${key}`,
    `Token ${'g'.repeat(40)}`,
    'Token null',
    'Token __proto__',
  ]);
}

/** Authorization, Cookie and X-CSRFToken for the caller; `unsafe`: the method writes (a session then shows its CSRF token, or not). */
export function callerHeaders(rng: Prng, fx: Fixtures, caller: Caller, unsafe: boolean): Record<string, string> {
  switch (caller) {
    case 'anonymous':
      return {};
    case 'junk-auth':
      return { Authorization: junkAuthorization(rng, fx) };
    case 'session-super':
    case 'session-user': {
      const s = fx.sessions[caller];
      const headers: Record<string, string> = { Cookie: `sessionid=${s.sessionid}; csrftoken=${s.csrftoken}` };
      if (unsafe) {
        const csrf = rng.weighted<string | null>([
          [7, s.csrftoken],
          [1, null],
          [1, rng.pick(['x', 'f'.repeat(64), s.csrftoken.toUpperCase(), '\u00ff'.repeat(64), fx.sessions[caller === 'session-super' ? 'session-user' : 'session-super'].csrftoken])],
        ]);
        if (csrf !== null) headers['X-CSRFToken'] = csrf;
      }
      return headers;
    }
    default:
      return { Authorization: `Token ${fx.tokens[caller]}` };
  }
}

const ACCEPTS = [
  'application/json',
  'application/json; indent=4',
  'application/json; indent=99999999999999999999',
  'application/json; indent=-1',
  'application/json; version=3.7',
  'text/html',
  'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'text/html;q=0.1, application/json',
  '*/*',
  'application/xml',
  'image/png',
  ';;;',
  'application/json; q=abc',
  'text/*',
  '',
  'application/vnd.oai.openapi',
  'application/yaml',
];

const HOSTS = ['evil.example', '[::1]:80', '999.999.999.999', 'host:65536', 'host:65535', 'a'.repeat(300), 'host:99999', 'ho st', '', 'localhost.', '[::1', 'x:y:z', '127.0.0.1:0', '\u00ff', 'EXAMPLE.COM'];

const COOKIES = ['sessionid=%', 'sessionid=%E0%A4%A', `sessionid=${'f'.repeat(64)}`, 'csrftoken=%zz; sessionid=%00', 'sessionid=a; sessionid=b', '=;=;', ';;;', 'sessionid', `sessionid=${'%'.repeat(500)}`, 'csrftoken=\u00ff', '__proto__=1; constructor=2'];

/** Other headers a client controls, now and then junk (an empty object most of the time). */
export function extraHeaders(rng: Prng, p = 0.25): Record<string, string> {
  const h: Record<string, string> = {};
  if (rng.chance(p)) h.Accept = rng.pick(ACCEPTS);
  if (rng.chance(p / 4)) h.Host = rng.pick(HOSTS);
  if (rng.chance(p / 4)) h['X-Forwarded-For'] = rng.pick(['not an address', '1.2.3.4, 5.6.7.8', '::ffff:zz', '\u00ff', Array.from({ length: 500 }, () => '1.2.3.4').join(','), '', '127.0.0.1']);
  if (rng.chance(p / 4)) h['X-Forwarded-Proto'] = rng.pick(['https', 'HTTPS,http', 'ftp', '', 'https\u00ff']);
  if (rng.chance(p / 4)) h['X-Forwarded-Host'] = rng.pick(['evil.example', '', 'a'.repeat(300)]);
  if (rng.chance(p / 5)) h['Accept-Encoding'] = rng.pick(['gzip', 'br;q=2', 'identity;q=0', '*;q=0']);
  if (rng.chance(p / 5)) h['Accept-Language'] = rng.pick(['de', '\u00ff', 'x'.repeat(1000)]);
  return h;
}

/** Cookies that are junk, sent beside (or instead of) the caller's own. */
export function junkCookie(rng: Prng): string {
  return rng.pick(COOKIES);
}
