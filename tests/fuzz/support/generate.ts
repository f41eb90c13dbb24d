import { caseRng, type Prng } from './prng';
import type { FuzzRequest } from './fuzz-request';
import { Obj, toJsonText, type Json } from './json-text';
import { bulkDeleteBody, bulkUpdateBody, createBody, mutatedBody, updateBody } from './bodies';
import { contentTypeFor, multipartBody, rawBody } from './raw-bodies';
import { callerHeaders, extraHeaders, junkCookie, pickCaller } from './callers';
import { detailQuery, listQuery } from './queries';
import { accountPage, fixedApiMethod, fixedApiPath, provisionBody } from './pages';
import { constraintSetup } from './constraints';
import type { Endpoint, World } from './world';

/**
 * One case: a pure function of the run's seed, the case number and the world (the registry and the
 * fixtures, made the same way every run), so `FUZZ_CASE=k` replays case k alone.
 */

/** The server settings cases are served under, each a separate app on the same database. */
export const SETTINGS: Record<string, Record<string, string>> = {
  default: {},
  strict: { LOGIN_REQUIRED: 'true', PATCHBAY_REJECT_UNKNOWN_FIELDS: 'true', ALLOW_TOKEN_RETRIEVAL: 'false', MAX_PAGE_SIZE: '0' },
  proxied: { TRUSTED_PROXIES: '127.0.0.0/8,::1/128,::ffff:127.0.0.0/104', EXEMPT_VIEW_PERMISSIONS: '*', MAINTENANCE_MODE: 'true', ALLOWED_HOSTS: '127.0.0.1,.example.com', PAGINATE_COUNT: '3' },
};

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);
const ODD_METHODS = ['PROPFIND', 'TRACE', 'PURGE', 'LOCK', 'SEARCH', 'MKCOL', 'QUERY', 'COPY', 'MOVE', 'LINK', 'REPORT'];

/** Junk where an id goes, as it appears in a path (already encoded). */
const JUNK_IDS = ['0', '-1', '00001', '1.0', '1e3', '1e400', '99999999999999999999', '9007199254740993', '2147483648', '1180591620717411303424', 'abc', '%31', '%00', '%ED%A0%80', '%FF', '..', '%2e%2e', '1%2F2', '%201', '+1', '%D9%A1', 'null', '__proto__', 'constructor', '%', 'x'.repeat(2000)];

function htmlAsked(headers: Record<string, string>, path: string): boolean {
  return /text\/(html|\*)/i.test(headers.Accept ?? '') || /[?&]format=api(&|$)/.test(path);
}

function jsonBody(rng: Prng, value: Json): { body: Buffer; contentType: string | undefined } {
  return { body: Buffer.from(toJsonText(value), 'utf8'), contentType: contentTypeFor(rng) };
}

function keepId(world: World, ep: Endpoint): number {
  return world.vocab.idsOf(ep.model.label)[0] ?? 1;
}

function spareId(world: World, ep: Endpoint): number {
  return world.vocab.idsOf(ep.model.label)[1] ?? 1;
}

/** A path under a type's list that is odd: junk ids, extra segments, missing slashes, another case. */
function oddPath(rng: Prng, world: World, ep: Endpoint): string {
  const id = keepId(world, ep);
  return rng.pick([
    () => `${ep.list}${rng.pick(JUNK_IDS)}/`,
    () => `${ep.list}${id}/${rng.pick(['extra', '1', '..', '%00', ep.actions[0] ?? 'x'])}/`,
    () => `${ep.list}${id}`,
    () => `${ep.list.slice(0, -1)}`,
    () => `${ep.list}${id}//`,
    () => ep.list.toUpperCase(),
    () => ep.list.replace('/api/', '/api//'),
    () => `${ep.list};x=1/`,
    () => `${ep.list}${rng.pick(JUNK_IDS)}/${rng.pick(['edit', 'delete'])}/`,
    () => `${ep.list}${id}/?${rng.pick(['%', '%zz=1', 'a=%ED%A0%80'])}`,
    () => `${ep.list}%2e%2e/%2e%2e/`,
    () => `/api/${ep.model.app}/${rng.pick(JUNK_IDS)}/`,
  ])();
}

export function generateCase(world: World, seed: number, caseNo: number): FuzzRequest {
  const rng = caseRng(seed, caseNo);
  const settings = rng.weighted<string>([[7, 'default'], [2, 'strict'], [1, 'proxied']]);
  const ep = rng.pick(world.endpoints);
  const surface = rng.weighted<string>([
    [16, 'query'],
    [8, 'detail'],
    [12, 'create'],
    [10, 'update'],
    [6, 'bulk'],
    [3, 'delete'],
    [7, 'raw-body'],
    [3, 'upload'],
    [6, 'path'],
    [3, 'method'],
    [6, 'headers'],
    [6, 'fixed'],
    [3, 'list-action'],
    [3, 'detail-action'],
    [10, 'account'],
    [4, 'constraints'],
  ]);

  let method = 'GET';
  let path = ep.list;
  let payload: { body: Buffer; contentType: string | undefined } | undefined;
  let headerChance = 0.15;
  let htmlPage = false;

  switch (surface) {
    case 'query':
      method = rng.weighted<string>([[9, 'GET'], [1, 'HEAD']]);
      path = `${ep.list}${listQuery(rng, ep, world)}`;
      break;
    case 'detail':
      method = rng.weighted<string>([[8, 'GET'], [1, 'HEAD'], [2, 'OPTIONS']]);
      path = `${ep.list}${rng.chance(0.9) ? keepId(world, ep) : spareId(world, ep)}/${detailQuery(rng, ep, world)}`;
      break;
    case 'create':
      method = 'POST';
      payload = jsonBody(rng, createBody(rng, ep, world, caseNo));
      break;
    case 'update': {
      method = rng.pick(['PUT', 'PATCH']);
      const id = rng.weighted<string>([[9, String(keepId(world, ep))], [1, rng.pick(JUNK_IDS)]]);
      path = `${ep.list}${id}/`;
      payload = rng.chance(0.05) ? undefined : jsonBody(rng, updateBody(rng, ep, world, caseNo, method === 'PUT'));
      break;
    }
    case 'bulk':
      method = rng.pick(['PUT', 'PATCH', 'DELETE']);
      payload = jsonBody(rng, method === 'DELETE' ? bulkDeleteBody(rng, ep, world) : bulkUpdateBody(rng, ep, world, caseNo, method === 'PUT'));
      break;
    case 'delete':
      method = 'DELETE';
      path = `${ep.list}${rng.weighted<string>([[6, String(spareId(world, ep))], [2, rng.pick(JUNK_IDS)]])}/`;
      if (rng.chance(0.2)) payload = jsonBody(rng, rng.pick<Json>([null, [], new Obj([['id', 1]])]));
      break;
    case 'raw-body': {
      method = rng.pick(['POST', 'POST', 'PUT', 'PATCH', 'DELETE']);
      if (method !== 'POST' && rng.chance(0.6)) path = `${ep.list}${keepId(world, ep)}/`;
      const r = rawBody(rng, mutatedBody(rng, ep, world, caseNo));
      payload = { body: r.bytes, contentType: r.contentType };
      break;
    }
    case 'upload': {
      // Forms with files, good and bad (multipart/form-data), to a type with file fields (image attachments).
      const withFiles = world.endpoints.filter((e) => e.model.fieldList.some((f) => f.kind === 'image'));
      const up = withFiles.length ? rng.pick(withFiles) : ep;
      const files = up.model.fieldList.filter((f) => f.kind === 'image').map((f) => f.name);
      method = rng.pick(['POST', 'POST', 'PUT', 'PATCH']);
      path = method === 'POST' ? up.list : `${up.list}${rng.chance(0.9) ? keepId(world, up) : rng.pick(JUNK_IDS)}/`;
      const r = files.length ? multipartBody(rng, mutatedBody(rng, up, world, caseNo), files) : rawBody(rng, mutatedBody(rng, up, world, caseNo));
      payload = { body: r.bytes, contentType: r.contentType };
      break;
    }
    case 'path':
      method = rng.weighted<string>([[6, 'GET'], [1, 'HEAD'], [1, 'OPTIONS'], [2, rng.pick(['POST', 'PUT', 'PATCH', 'DELETE'])]]);
      path = oddPath(rng, world, ep);
      if (!SAFE.has(method) && rng.chance(0.7)) payload = jsonBody(rng, updateBody(rng, ep, world, caseNo, false));
      break;
    case 'method':
      method = rng.pick(ODD_METHODS);
      path = rng.pick([ep.list, `${ep.list}${keepId(world, ep)}/`, `${ep.list}${ep.actions[0] ?? 'x'}/`]);
      if (rng.chance(0.5)) payload = jsonBody(rng, mutatedBody(rng, ep, world, caseNo));
      break;
    case 'headers':
      method = rng.weighted<string>([[8, 'GET'], [1, 'HEAD'], [1, 'OPTIONS']]);
      path = rng.chance(0.5) ? `${ep.list}${rng.chance(0.5) ? listQuery(rng, ep, world) : ''}` : `${ep.list}${keepId(world, ep)}/`;
      headerChance = 1;
      break;
    case 'fixed': {
      const f = fixedApiPath(rng, world);
      method = fixedApiMethod(rng);
      path = f.path;
      htmlPage = f.htmlOk;
      headerChance = 0.4;
      break;
    }
    case 'detail-action': {
      // A type's detail action (available-ips, trace...) on one of its objects or a junk id, with any
      // method, a query and a body; or an application's view. A type without one gets a 404 to be had.
      const withActions = world.endpoints.filter((e) => e.detailActions.length);
      const owner = withActions.length ? rng.pick(withActions) : ep;
      const id = rng.weighted<string>([[8, String(keepId(world, owner))], [1, rng.pick(JUNK_IDS)]]);
      const onObject = `${owner.list}${id}/${owner.detailActions.length ? rng.pick(owner.detailActions) : 'x'}/`;
      const onView = world.views.length ? `${rng.pick(world.views)}${rng.pick(['', '', '1/', 'x/'])}` : onObject;
      path = `${rng.chance(0.8) ? onObject : onView}${rng.chance(0.5) ? listQuery(rng, owner, world) : ''}`;
      method = rng.weighted<string>([[6, 'GET'], [3, 'POST'], [1, rng.pick(['PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'])]]);
      if (method !== 'GET' && method !== 'HEAD') payload = jsonBody(rng, rng.chance(0.5) ? createBody(rng, ep, world, caseNo) : mutatedBody(rng, ep, world, caseNo));
      break;
    }
    case 'list-action': {
      // A type with list actions, if the registry has one; another type's list otherwise (a 404 to be had).
      const withActions = world.endpoints.filter((e) => e.actions.length);
      const owner = withActions.length ? rng.pick(withActions) : ep;
      path = `${owner.list}${owner.actions.length ? rng.pick(owner.actions) : 'provision'}/`;
      method = rng.weighted<string>([[8, 'POST'], [1, 'GET'], [1, rng.pick(['PUT', 'DELETE', 'OPTIONS', 'HEAD'])]]);
      if (method !== 'GET' && method !== 'HEAD') {
        const p = provisionBody(rng, world.fixtures);
        payload = { body: p.body, contentType: p.contentType };
      }
      break;
    }
    case 'constraints': {
      // The probe user's permission is rewritten first; then the probe user reads or writes the type.
      const setup = constraintSetup(rng, ep, world);
      method = rng.weighted<string>([[6, 'GET'], [1, 'HEAD'], [2, 'PATCH'], [1, 'DELETE'], [1, 'POST']]);
      const detail = rng.chance(0.4) || method === 'PATCH' || method === 'DELETE';
      path = detail ? `${ep.list}${method === 'DELETE' ? spareId(world, ep) : keepId(world, ep)}/` : `${ep.list}${method === 'GET' && rng.chance(0.5) ? listQuery(rng, ep, world) : ''}`;
      if (method === 'PATCH' || method === 'POST') payload = jsonBody(rng, method === 'POST' ? createBody(rng, ep, world, caseNo) : updateBody(rng, ep, world, caseNo, false));
      const headers: Record<string, string> = { Authorization: `Token ${world.fixtures.probe.token}` };
      if (payload?.contentType !== undefined) headers['Content-Type'] = payload.contentType;
      return { surface, settings: 'default', method, path, headers, body: payload?.body, htmlOk: htmlAsked(headers, path), setup: [setup] };
    }
    default: {
      const page = accountPage(rng, world);
      const headers = { ...page.headers, ...extraHeaders(rng, 0.15) };
      if (page.body && !headers['Content-Type'] && page.headers['Content-Type']) headers['Content-Type'] = page.headers['Content-Type'];
      return { surface: page.surface, settings, method: page.method, path: page.path, headers, body: page.body, htmlOk: true };
    }
  }

  // Who asks: token-bearing and account pages' callers pick themselves; the rest pick here.
  const caller = surface === 'list-action' && rng.chance(0.7) ? 'anonymous' : pickCaller(rng);
  const headers: Record<string, string> = { ...callerHeaders(rng, world.fixtures, caller, !SAFE.has(method)), ...extraHeaders(rng, headerChance) };
  if (rng.chance(headerChance / 3)) headers.Cookie = headers.Cookie ? `${headers.Cookie}; ${junkCookie(rng)}` : junkCookie(rng);
  if (rng.chance(headerChance / 6)) headers['X-CSRFToken'] = rng.pick(['\u00ff', 'x', 'f'.repeat(64), '']);
  if (payload?.contentType !== undefined) headers['Content-Type'] = payload.contentType;
  return { surface, settings, method, path, headers, body: payload?.body, htmlOk: htmlPage || htmlAsked(headers, path) };
}
