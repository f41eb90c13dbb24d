import crypto from 'node:crypto';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * Minimal token authentication (spec section 5 and 7): who may read, who may write, and the exact
 * NetBox wording of each refusal.
 */

const NO_CREDENTIALS = { detail: 'Authentication credentials were not provided.' };
let t: TestApp;
let siteId: number;

beforeAll(async () => {
  t = await startTestApp();
  const site = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'Auth site', slug: 'auth-site' });
  expect(site.status).toBe(201);
  siteId = site.body.id;
});
afterAll(async () => {
  await t.close();
});

async function siteCount(): Promise<number> {
  const r = await t.knex.raw(`SELECT count(*)::int AS n FROM "${t.registry.models.get('dcim.site')!.table}"`);
  return (r.rows as Array<{ n: number }>)[0]!.n;
}

const key = () => crypto.randomBytes(20).toString('hex');

describe('without a token', () => {
  test.each([
    ['POST', '/api/dcim/sites/'],
    ['PUT', '/api/dcim/sites/'],
    ['PATCH', '/api/dcim/sites/'],
    ['DELETE', '/api/dcim/sites/'],
    ['PUT', '/api/dcim/sites/{id}/'],
    ['PATCH', '/api/dcim/sites/{id}/'],
    ['DELETE', '/api/dcim/sites/{id}/'],
  ])('%s %s is 403 and changes nothing', async (method, path) => {
    const before = await siteCount();
    const url = path.replace('{id}', String(siteId));
    const body = path.includes('{id}') ? { name: 'Hijacked', slug: 'hijacked' } : [{ id: siteId, name: 'Hijacked' }];
    const req = t.api[method.toLowerCase() as 'post' | 'put' | 'patch' | 'delete'](url);
    const res = await (method === 'POST' ? req.send({ name: 'Anon', slug: 'anon' }) : req.send(body));
    expect(res.status).toBe(403);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual(NO_CREDENTIALS);
    expect(await siteCount()).toBe(before);
    const site = await t.api.get(`/api/dcim/sites/${siteId}/`).set(t.auth);
    expect(site.body.name).toBe('Auth site');
  });

  test.each(['/api/dcim/sites/', '/api/dcim/sites/{id}/', '/api/ipam/prefixes/', '/api/users/tokens/'])('GET %s is 403 by default', async (path) => {
    const res = await t.api.get(path.replace('{id}', String(siteId)));
    expect(res.status).toBe(403);
    expect(res.body).toEqual(NO_CREDENTIALS);
  });

  test('OPTIONS answers anonymously (as NetBox without LOGIN_REQUIRED) but offers no POST', async () => {
    const res = await t.api.options('/api/dcim/sites/');
    expect(res.status).toBe(200);
    expect(res.body.actions?.POST).toBeUndefined();
  });

  test('the API root, app roots and status need no token', async () => {
    for (const path of ['/api/', '/api/dcim/', '/api/status/']) {
      expect((await t.api.get(path)).status).toBe(200);
    }
  });
});

describe('bad tokens', () => {
  test('an unknown 40-hex key is "Invalid token", on reads and writes', async () => {
    const h = { Authorization: `Token ${key()}` };
    for (const res of [await t.api.get('/api/dcim/sites/').set(h), await t.api.post('/api/dcim/sites/').set(h).send({ name: 'X', slug: 'x' })]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: 'Invalid token' });
    }
  });

  test('a key of the wrong shape is "Invalid token"', async () => {
    for (const k of ['abc', 'z'.repeat(40), key().slice(1), `${key()}0`]) {
      const res = await t.api.get('/api/dcim/sites/').set({ Authorization: `Token ${k}` });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: 'Invalid token' });
    }
  });

  test.each([
    ['no key', 'Token'],
    ['two words after Token', `Token ${'a'.repeat(40)} extra`],
    ['another scheme', `Bearer ${'a'.repeat(40)}`],
    ['basic auth', 'Basic YWRtaW46YWRtaW4='],
    ['garbage', '\u00ff\u00fe'],
  ])('a malformed Authorization header (%s) is 403 with a JSON detail', async (_name, header) => {
    for (const res of [await t.api.get('/api/dcim/sites/').set({ Authorization: header }), await t.api.post('/api/dcim/sites/').set({ Authorization: header }).send({ name: 'M', slug: 'm' })]) {
      expect(res.status).toBe(403);
      expect(typeof res.body.detail).toBe('string');
    }
    expect(await siteCount()).toBe(1);
  });

  test('an expired token is "Token expired"; one expiring later still works', async () => {
    const k = await t.makeToken({ superuser: true });
    await t.knex.raw(`UPDATE "users_token" SET "expires" = now() + interval '1 hour' WHERE "key" = ?`, [k]);
    expect((await t.api.get('/api/dcim/sites/').set({ Authorization: `Token ${k}` })).status).toBe(200);
    await t.knex.raw(`UPDATE "users_token" SET "expires" = now() - interval '1 second' WHERE "key" = ?`, [k]);
    for (const res of [await t.api.get('/api/dcim/sites/').set({ Authorization: `Token ${k}` }), await t.api.post('/api/dcim/sites/').set({ Authorization: `Token ${k}` }).send({ name: 'E', slug: 'e' })]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: 'Token expired' });
    }
    expect(await siteCount()).toBe(1);
  });

  test('a token of an inactive user is refused', async () => {
    const k = await t.makeToken({ superuser: true });
    expect((await t.api.get('/api/dcim/sites/').set({ Authorization: `Token ${k}` })).status).toBe(200);
    await t.knex.raw(`UPDATE "users_user" SET "is_active" = false WHERE "id" = (SELECT "user_id" FROM "users_token" WHERE "key" = ?)`, [k]);
    for (const res of [await t.api.get('/api/dcim/sites/').set({ Authorization: `Token ${k}` }), await t.api.post('/api/dcim/sites/').set({ Authorization: `Token ${k}` }).send({ name: 'I', slug: 'i' })]) {
      expect(res.status).toBe(403);
      expect(typeof res.body.detail).toBe('string');
    }
    expect(await siteCount()).toBe(1);
  });
});

describe('a read-only token', () => {
  let h: { Authorization: string };
  beforeAll(async () => {
    h = { Authorization: `Token ${await t.makeToken({ superuser: true, writeEnabled: false })}` };
  });

  test('reads', async () => {
    expect((await t.api.get('/api/dcim/sites/').set(h)).status).toBe(200);
    expect((await t.api.get(`/api/dcim/sites/${siteId}/`).set(h)).status).toBe(200);
  });

  test('cannot write, and nothing changes', async () => {
    const attempts = [
      t.api.post('/api/dcim/sites/').set(h).send({ name: 'RO', slug: 'ro' }),
      t.api.patch(`/api/dcim/sites/${siteId}/`).set(h).send({ name: 'RO' }),
      t.api.put(`/api/dcim/sites/${siteId}/`).set(h).send({ name: 'RO', slug: 'ro' }),
      t.api.patch('/api/dcim/sites/').set(h).send([{ id: siteId, name: 'RO' }]),
      t.api.delete(`/api/dcim/sites/${siteId}/`).set(h),
      t.api.delete('/api/dcim/sites/').set(h).send([{ id: siteId }]),
    ];
    for (const res of await Promise.all(attempts.map((a) => a.then((r) => r)))) {
      expect(res.status).toBe(403);
      expect(typeof res.body.detail).toBe('string');
    }
    const site = await t.api.get(`/api/dcim/sites/${siteId}/`).set(t.auth);
    expect(site.body.name).toBe('Auth site');
    expect(await siteCount()).toBe(1);
  });
});

describe('EXEMPT_VIEW_PERMISSIONS', () => {
  test('dcim.site lets anonymous GET sites but not prefixes, and never writes', async () => {
    const app = await startTestApp({ env: { EXEMPT_VIEW_PERMISSIONS: 'dcim.site' } });
    try {
      const site = await app.api.post('/api/dcim/sites/').set(app.auth).send({ name: 'Open', slug: 'open' });
      expect(site.status).toBe(201);
      const list = await app.api.get('/api/dcim/sites/');
      expect(list.status).toBe(200);
      expect(list.body.count).toBe(1);
      expect((await app.api.get(`/api/dcim/sites/${site.body.id}/`)).status).toBe(200);
      for (const path of ['/api/ipam/prefixes/', '/api/tenancy/tenants/']) {
        const res = await app.api.get(path);
        expect(res.status).toBe(403);
        expect(res.body).toEqual(NO_CREDENTIALS);
      }
      const write = await app.api.post('/api/dcim/sites/').send({ name: 'Anon', slug: 'anon' });
      expect(write.status).toBe(403);
      expect(write.body).toEqual(NO_CREDENTIALS);
      // An exempt read with a bad token is still refused: a token that is sent must be valid.
      const bad = await app.api.get('/api/dcim/sites/').set({ Authorization: `Token ${key()}` });
      expect(bad.status).toBe(403);
      expect(bad.body).toEqual({ detail: 'Invalid token' });
    } finally {
      await app.close();
    }
  });

  test("'*' lets anonymous GET every inventory model, and never writes", async () => {
    const app = await startTestApp({ env: { EXEMPT_VIEW_PERMISSIONS: '*' } });
    try {
      // Every type served at a list endpoint (engine-internal state such as dashboards has none) but the
      // private ones (users, groups, permissions, tokens, webhooks), which '*' never opens (tests/security/private-types.test.ts).
      for (const model of [...app.registry.models.values()].filter((m) => m.exposed)) {
        const res = await app.api.get(`/api/${model.app}/${model.path}/`);
        expect([model.label, res.status]).toEqual([model.label, model.private ? 403 : 200]);
      }
      const write = await app.api.post('/api/ipam/prefixes/').send({ prefix: '10.0.0.0/8' });
      expect(write.status).toBe(403);
      expect(write.body).toEqual(NO_CREDENTIALS);
      const del = await app.api.delete('/api/ipam/prefixes/').send([{ id: 1 }]);
      expect(del.status).toBe(403);
    } finally {
      await app.close();
    }
  });
});
