/**
 * The API root, the application roots, /api/status/, the headers every response carries, and the
 * generic HTTP answers (404, 405, trailing-slash redirects, indented JSON) — spec sections 1, 4.1, 4.2, 7.
 */
import type { Response } from 'supertest';
import { startTestApp, type TestApp } from '../support/test-app';

let t: TestApp;
let siteId: number;

beforeAll(async () => {
  t = await startTestApp();
  const site = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'Root Site', slug: 'root-site' });
  expect(site.status).toBe(201);
  siteId = site.body.id as number;
});
afterAll(async () => {
  await t.close();
});

const ABSOLUTE = /^https?:\/\/[^/]+/;
const APPLICATIONS = ['circuits', 'dcim', 'extras', 'ipam', 'plugins', 'tenancy', 'users', 'virtualization', 'vpn', 'wireless'];

/** The first object types (issue 2): each application root must list at least these. */
const FIRST_TYPES: Record<string, string[]> = {
  circuits: [],
  dcim: ['regions', 'sites'],
  extras: ['tags'],
  ipam: ['aggregates', 'ip-addresses', 'prefixes', 'rirs', 'roles', 'vlan-groups', 'vlans', 'vrfs'],
  plugins: [],
  tenancy: ['tenant-groups', 'tenants'],
  users: ['tokens', 'users'],
  virtualization: [],
  vpn: ['ike-policies', 'ike-proposals', 'ipsec-policies', 'ipsec-profiles', 'ipsec-proposals', 'l2vpn-terminations', 'l2vpns', 'tunnel-groups', 'tunnel-terminations', 'tunnels'],
  wireless: ['wireless-lan-groups', 'wireless-lans', 'wireless-links'],
};

/** Every exposed endpoint of an application, as the definitions declare them: object types and listed views. */
function declaredEndpoints(app: string): string[] {
  const models = [...t.registry.byPath.keys()].filter((k) => k.startsWith(`${app}/`)).map((k) => k.slice(app.length + 1));
  return [...models, ...listedViews(app)].sort();
}

/** The views schema/applications.json lists at an application's root (plugins: installed-plugins). */
function listedViews(app: string): string[] {
  const views = t.registry.applications.find((a) => a.name === app)?.views ?? new Map();
  return [...views].filter(([, v]) => v.listed).map(([segment]) => segment);
}

function originOf(res: Response): string {
  const url = (res.body as Record<string, string>).dcim ?? '';
  return ABSOLUTE.exec(url)?.[0] ?? '';
}

describe('API root', () => {
  test('/api/ lists every application with an absolute URL, without a token', async () => {
    const res = await t.api.get('/api/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = res.body as Record<string, string>;
    expect(Object.keys(body).sort()).toEqual(APPLICATIONS);
    const origin = originOf(res);
    expect(origin).toMatch(ABSOLUTE);
    for (const app of APPLICATIONS) expect(body[app]).toBe(`${origin}/api/${app}/`);
  });

  test.each(APPLICATIONS)('/api/%s/ lists its endpoints with absolute URLs, without a token', async (app) => {
    const res = await t.api.get(`/api/${app}/`);
    expect(res.status).toBe(200);
    const body = res.body as Record<string, string>;
    expect(Object.keys(body).sort()).toEqual(declaredEndpoints(app));
    expect(Object.keys(body)).toEqual(expect.arrayContaining(FIRST_TYPES[app]!));
    for (const [name, url] of Object.entries(body)) expect(url).toMatch(new RegExp(`^https?://[^/]+/api/${app}/${name}/$`));
  });

  test('the applications are schema/applications.json\'s, in its order', () => {
    expect(t.registry.applications.map((a) => a.name)).toEqual(APPLICATIONS);
    expect(listedViews('plugins')).toEqual(['installed-plugins']);
  });

  test('every object type an application root lists answers a list', async () => {
    const root = await t.api.get('/api/');
    for (const [appName, appUrl] of Object.entries(root.body as Record<string, string>)) {
      const app = await t.api.get(new URL(appUrl).pathname);
      const views = new Set(listedViews(appName));
      for (const [name, url] of Object.entries(app.body as Record<string, string>)) {
        if (views.has(name)) continue;
        const list = await t.api.get(new URL(url).pathname).set(t.auth);
        expect({ url, status: list.status }).toEqual({ url, status: 200 });
        expect(Object.keys(list.body as object)).toEqual(['count', 'next', 'previous', 'results']);
      }
    }
  });

  test('an application that does not exist is 404', async () => {
    const res = await t.api.get('/api/nonexistent/');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Not found.' });
  });
});

describe('/api/status/', () => {
  test('reports the NetBox API version spoken (3.7.x) and Patchbay\'s own', async () => {
    const res = await t.api.get('/api/status/');
    expect(res.status).toBe(200);
    const body = res.body as Record<string, unknown>;
    expect(body['netbox-version']).toEqual(expect.stringMatching(/^3\.7\.\d+$/));
    expect(typeof body['patchbay-version']).toBe('string');
    expect(body['patchbay-version']).toBe('test');
  });
});

describe('headers on every response', () => {
  const requests: Array<[string, () => Promise<Response>]> = [
    ['api root', () => t.api.get('/api/')],
    ['status', () => t.api.get('/api/status/')],
    ['list', () => t.api.get('/api/dcim/sites/').set(t.auth)],
    ['detail', () => t.api.get(`/api/dcim/sites/${siteId}/`).set(t.auth)],
    ['404 unknown path', () => t.api.get('/api/dcim/nothing-here/')],
    ['404 outside /api', () => t.api.get('/not-the-api/')],
    ['404 unknown id', () => t.api.get('/api/dcim/sites/987654/').set(t.auth)],
    ['405', () => t.api.post(`/api/dcim/sites/${siteId}/`).set(t.auth).send({})],
    ['403', () => t.api.post('/api/dcim/sites/').send({ name: 'x', slug: 'x' })],
    ['400', () => t.api.post('/api/dcim/sites/').set(t.auth).send({})],
    ['302', () => t.api.get(`/api/dcim/sites/${siteId}`)],
    ['OPTIONS', () => t.api.options('/api/dcim/sites/').set(t.auth)],
  ];

  test.each(requests)('%s carries API-Version: 3.7 and an X-Request-ID', async (_name, send) => {
    const res = await send();
    expect(res.headers['api-version']).toBe('3.7');
    expect(res.headers['x-request-id']).toEqual(expect.stringMatching(/\S{8,}/));
  });

  test('X-Request-ID is unique per response', async () => {
    const ids: string[] = [];
    for (const [, send] of requests) ids.push((await send()).headers['x-request-id'] as string);
    for (let i = 0; i < 5; i++) ids.push((await t.api.get('/api/')).headers['x-request-id'] as string);
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('404', () => {
  test.each([
    '/api/dcim/nothing-here/',
    '/api/dcim/sites/1/extra/',
    '/api/dcim/sites/1/extra/more/',
    '/api/ipam/prefixes/none/none/',
    '/not-the-api/',
  ])('unknown path %s is 404 {"detail":"Not found."}', async (path) => {
    const res = await t.api.get(path).set(t.auth);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ detail: 'Not found.' });
  });

  test.each(['987654', '99999999999999999999', '9223372036854775808', 'abc', '0', '-1', '1.5', '1e3', '%00', '0x10'])(
    'detail id %s that is not an object is 404 {"detail":"Not found."}',
    async (id) => {
      const res = await t.api.get(`/api/dcim/sites/${id}/`).set(t.auth);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'Not found.' });
    },
  );

  test.each(['patch', 'put', 'delete'] as const)('%s on an absurd or missing id is 404, never 500', async (method) => {
    for (const id of ['987654', '99999999999999999999', 'abc']) {
      const res = await t.api[method](`/api/dcim/sites/${id}/`).set(t.auth).send({ name: 'n', slug: 'n' });
      expect({ id, status: res.status, body: res.body as unknown }).toEqual({ id, status: 404, body: { detail: 'Not found.' } });
    }
  });
});

describe('trailing slash', () => {
  test('a detail URL without its slash is a 302 to the slashed URL', async () => {
    const res = await t.api.get(`/api/dcim/sites/${siteId}`).set(t.auth);
    expect(res.status).toBe(302);
    expect(res.headers.location).toMatch(new RegExp(`^(https?://[^/]+)?/api/dcim/sites/${siteId}/$`));
  });

  test('the redirect keeps the query string', async () => {
    const res = await t.api.get(`/api/dcim/sites/${siteId}?brief=1&exclude=tags`).set(t.auth);
    expect(res.status).toBe(302);
    expect(res.headers.location).toMatch(new RegExp(`^(https?://[^/]+)?/api/dcim/sites/${siteId}/\\?brief=1&exclude=tags$`));
    const followed = await t.api.get(new URL(res.headers.location as string, 'http://x').pathname + '?brief=1').set(t.auth);
    expect(followed.status).toBe(200);
    expect(Object.keys(followed.body as object)).toEqual(['id', 'url', 'display', 'name', 'slug']);
  });
});

describe('405', () => {
  test('POST on a detail URL is 405 with NetBox\'s message', async () => {
    const res = await t.api.post(`/api/dcim/sites/${siteId}/`).set(t.auth).send({ name: 'x', slug: 'x' });
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ detail: 'Method "POST" not allowed.' });
    const still = await t.api.get('/api/dcim/sites/').set(t.auth);
    expect((still.body as { count: number }).count).toBe(1);
  });

  test('the API root, an application root and /api/status/ are read-only: writes are 405', async () => {
    for (const path of ['/api/', '/api/dcim/', '/api/plugins/', '/api/status/']) {
      for (const method of ['post', 'put', 'patch', 'delete'] as const) {
        const res = await t.api[method](path).set(t.auth).send({});
        const expected = { detail: `Method "${method.toUpperCase()}" not allowed.` };
        expect({ path, method, status: res.status, body: res.body as unknown }).toEqual({ path, method, status: 405, body: expected });
      }
    }
    const unknownApp = await t.api.post('/api/nonexistent/').set(t.auth).send({});
    expect(unknownApp.status).toBe(404);
  });

  test('the method is named as sent, on detail and list URLs', async () => {
    const onDetail = await t.api.purge(`/api/dcim/sites/${siteId}/`).set(t.auth);
    expect(onDetail.status).toBe(405);
    expect(onDetail.body).toEqual({ detail: 'Method "PURGE" not allowed.' });
    const onList = await t.api.copy('/api/ipam/prefixes/').set(t.auth);
    expect(onList.status).toBe(405);
    expect(onList.body).toEqual({ detail: 'Method "COPY" not allowed.' });
  });
});

describe('Accept: application/json; indent=4', () => {
  test('gives JSON indented by four spaces', async () => {
    const res = await t.api.get(`/api/dcim/sites/${siteId}/`).set(t.auth).set('Accept', 'application/json; indent=4');
    expect(res.status).toBe(200);
    expect(res.text).toBe(JSON.stringify(res.body, null, 4));
    expect(res.text).toContain('\n    "id": ');
  });

  test('indents lists and errors too', async () => {
    const list = await t.api.get('/api/dcim/sites/').set(t.auth).set('Accept', 'application/json; indent=4');
    expect(list.text).toBe(JSON.stringify(list.body, null, 4));
    const missing = await t.api.get('/api/dcim/sites/987654/').set(t.auth).set('Accept', 'application/json; indent=4');
    expect(missing.status).toBe(404);
    expect(missing.text).toBe('{\n    "detail": "Not found."\n}');
  });

  test('without it the JSON is compact', async () => {
    const res = await t.api.get(`/api/dcim/sites/${siteId}/`).set(t.auth).set('Accept', 'application/json');
    expect(res.status).toBe(200);
    expect(res.text).toBe(JSON.stringify(res.body));
    expect(res.text).not.toContain('\n');
  });
});
