import { startTestApp, TEST_DATABASE_URL, type TestApp } from '../support/test-app';
import { startCluster, type Cluster, type Instance } from '../concurrency/support/cluster';

/**
 * Reads authenticate from the process's cache of tokens (issue 14: no round trip for the principal), and
 * every read checks, inside its one statement, that users, groups, tokens and permissions have not changed
 * since. A deleted, expired or disabled token, or a withdrawn permission, is refused on the very next
 * request; a permission granted is honoured on the very next request. On PostgreSQL the change is made
 * through one instance and the next request goes to another, whose cache was warm.
 */

const SITES = '/api/dcim/sites/';

/** The statements a request ran, as the app's query log saw them. */
async function statementsOf(t: TestApp, send: () => Promise<{ status: number }>): Promise<{ status: number; statements: string[] }> {
  t.queries.reset();
  const res = await send();
  return { status: res.status, statements: [...t.queries.log] };
}

describe('the credential cache on one instance', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  }, 120000);
  afterAll(async () => {
    await t.close();
  });

  const get = (key: string, path = SITES) => t.api.get(path).set('Authorization', `Token ${key}`);

  test('a token seen before costs no lookup: the read is its one statement', async () => {
    const key = await t.makeToken({ superuser: true });
    const first = await statementsOf(t, () => get(key));
    expect(first.status).toBe(200);
    expect(first.statements.some((s) => s.includes('"users_token"'))).toBe(true);
    const second = await statementsOf(t, () => get(key));
    expect(second.status).toBe(200);
    expect(second.statements).toHaveLength(1);
    expect(second.statements[0]).toContain('"patchbay_auth_version"');
  });

  test('deleted through the API: refused on the next read', async () => {
    const key = await t.makeToken({ superuser: true });
    expect((await get(key)).status).toBe(200);
    const id = (await t.knex.raw(`SELECT "id" FROM "users_token" WHERE "key" = ?`, [key])).rows[0].id as number;
    expect((await t.api.delete(`/api/users/tokens/${id}/`).set(t.auth)).status).toBe(204);
    const res = await get(key);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'Invalid token' });
  });

  test('expired by a PATCH, or by the clock passing its expiry: refused on the next read', async () => {
    const key = await t.makeToken({ superuser: true });
    expect((await get(key)).status).toBe(200);
    const id = (await t.knex.raw(`SELECT "id" FROM "users_token" WHERE "key" = ?`, [key])).rows[0].id as number;
    const past = new Date(t.clock.now().getTime() - 60_000).toISOString();
    expect((await t.api.patch(`/api/users/tokens/${id}/`).set(t.auth).send({ expires: past })).status).toBe(200);
    expect((await get(key)).body).toEqual({ detail: 'Token expired' });

    const soon = await t.makeToken({ superuser: true });
    const soonId = (await t.knex.raw(`SELECT "id" FROM "users_token" WHERE "key" = ?`, [soon])).rows[0].id as number;
    const inAMinute = new Date(t.clock.now().getTime() + 60_000).toISOString();
    await t.knex.raw(`UPDATE "users_token" SET "expires" = ?::timestamptz WHERE "id" = ?`, [inAMinute, soonId]);
    expect((await get(soon)).status).toBe(200);
    expect((await get(soon)).status).toBe(200);
    t.clock.advance(61_000);
    try {
      expect((await get(soon)).body).toEqual({ detail: 'Token expired' });
    } finally {
      t.clock.advance(-61_000);
    }
  });

  test('its user disabled by SQL behind the API\'s back: refused on the next read', async () => {
    const key = await t.makeToken({ superuser: true });
    expect((await get(key)).status).toBe(200);
    await t.knex.raw(`UPDATE "users_user" SET "is_active" = false WHERE "id" = (SELECT "user_id" FROM "users_token" WHERE "key" = ?)`, [key]);
    expect((await get(key)).body).toEqual({ detail: 'User inactive or deleted.' });
  });

  test('a token\'s last use being recorded does not empty the cache', async () => {
    const key = await t.makeToken({ superuser: true });
    expect((await get(key)).status).toBe(200);
    const version = async () => Number((await t.knex.raw(`SELECT "version" FROM "patchbay_auth_version"`)).rows[0].version);
    const before = await version();
    await t.knex.raw(`UPDATE "users_token" SET "last_used" = now(), "last_updated" = now() WHERE "key" = ?`, [key]);
    expect(await version()).toBe(before);
    const again = await statementsOf(t, () => get(key));
    expect(again.statements).toHaveLength(1);
  });

  test('a permission withdrawn is refused, and one granted is honoured, on the next read', async () => {
    const key = await t.makeToken();
    const user = (await t.knex.raw(`SELECT "user_id" FROM "users_token" WHERE "key" = ?`, [key])).rows[0].user_id as number;
    expect((await get(key)).status).toBe(403);
    const perm = await t.api.post('/api/users/permissions/').set(t.auth).send({ name: `view sites ${user}`, object_types: ['dcim.site'], actions: ['view'], users: [user] });
    expect(perm.status).toBe(201);
    expect((await get(key)).status).toBe(200);
    expect((await get(key)).status).toBe(200);
    expect((await t.api.patch(`/api/users/permissions/${perm.body.id as number}/`).set(t.auth).send({ enabled: false })).status).toBe(200);
    expect((await get(key)).status).toBe(403);
    expect((await t.api.patch(`/api/users/permissions/${perm.body.id as number}/`).set(t.auth).send({ enabled: true })).status).toBe(200);
    expect((await get(key)).status).toBe(200);
  });

  test('a permission\'s constraint narrowed: the next list shows only what it allows', async () => {
    const key = await t.makeToken();
    const user = (await t.knex.raw(`SELECT "user_id" FROM "users_token" WHERE "key" = ?`, [key])).rows[0].user_id as number;
    const a = await t.api.post(SITES).set(t.auth).send({ name: `cc-a-${user}`, slug: `cc-a-${user}`, status: 'active' });
    const b = await t.api.post(SITES).set(t.auth).send({ name: `cc-b-${user}`, slug: `cc-b-${user}`, status: 'planned' });
    expect([a.status, b.status]).toEqual([201, 201]);
    const perm = await t.api.post('/api/users/permissions/').set(t.auth).send({ name: `cc ${user}`, object_types: ['dcim.site'], actions: ['view'], users: [user], constraints: { name__in: [a.body.name, b.body.name] } });
    expect(perm.status).toBe(201);
    expect((await get(key)).body.count).toBe(2);
    expect((await t.api.patch(`/api/users/permissions/${perm.body.id as number}/`).set(t.auth).send({ constraints: { name: a.body.name } })).status).toBe(200);
    const after = await get(key);
    expect(after.body.results.map((s: { name: string }) => s.name)).toEqual([a.body.name]);
  });

  test('a create or change with a token seen before costs no lookup: the write checks the cache before it commits', async () => {
    const key = await t.makeToken({ superuser: true });
    expect((await get(key)).status).toBe(200);
    // Plain: one statement, guarded, without BEGIN or COMMIT.
    const plain = await statementsOf(t, () => t.api.post(SITES).set('Authorization', `Token ${key}`).send({ name: 'cc-write', slug: 'cc-write' }));
    expect(plain.status).toBe(201);
    expect(plain.statements).toHaveLength(1);
    expect(plain.statements[0]).toContain('"patchbay_auth_version"');
    expect(plain.statements[0]).toContain('INSERT INTO "dcim_site"');
    // With links (tags): a transaction whose last statement reads the answer back with the check.
    const tag = await t.api.post('/api/extras/tags/').set(t.auth).send({ name: 'cc tag', slug: 'cc-tag' });
    const linked = await statementsOf(t, () => t.api.post(SITES).set('Authorization', `Token ${key}`).send({ name: 'cc-write-2', slug: 'cc-write-2', tags: [tag.body.id] }));
    expect(linked.status).toBe(201);
    expect(linked.statements.some((s) => s.includes('"users_token"'))).toBe(false);
    expect(linked.statements.at(-2)).toContain('"patchbay_auth_version"');
    expect(linked.statements.at(-1)).toMatch(/^COMMIT/);
  });

  test('deleted, expired or disabled: the next create or change is refused and writes nothing', async () => {
    const write = (key: string, slug: string) => t.api.post(SITES).set('Authorization', `Token ${key}`).send({ name: slug, slug });
    const exists = async (slug: string) => (await t.knex.raw(`SELECT count(*)::int AS n FROM "dcim_site" WHERE "slug" = ?`, [slug])).rows[0].n as number;

    const deleted = await t.makeToken({ superuser: true });
    expect((await write(deleted, 'cc-w-1')).status).toBe(201);
    await t.knex.raw(`DELETE FROM "users_token" WHERE "key" = ?`, [deleted]);
    expect((await write(deleted, 'cc-w-2')).body).toEqual({ detail: 'Invalid token' });
    expect(await exists('cc-w-2')).toBe(0);

    const expired = await t.makeToken({ superuser: true });
    expect((await write(expired, 'cc-w-3')).status).toBe(201);
    await t.knex.raw(`UPDATE "users_token" SET "expires" = now() - interval '1 minute' WHERE "key" = ?`, [expired]);
    const site = (await t.knex.raw(`SELECT "id" FROM "dcim_site" WHERE "slug" = 'cc-w-3'`)).rows[0].id as number;
    const patched = await t.api.patch(`${SITES}${site}/`).set('Authorization', `Token ${expired}`).send({ description: 'changed' });
    expect(patched.body).toEqual({ detail: 'Token expired' });
    expect((await t.knex.raw(`SELECT "description" FROM "dcim_site" WHERE "id" = ?`, [site])).rows[0].description).toBe('');

    const disabled = await t.makeToken({ superuser: true });
    expect((await write(disabled, 'cc-w-4')).status).toBe(201);
    await t.knex.raw(`UPDATE "users_user" SET "is_active" = false WHERE "id" = (SELECT "user_id" FROM "users_token" WHERE "key" = ?)`, [disabled]);
    const bulk = await t.api.patch(SITES).set('Authorization', `Token ${disabled}`).send([{ id: site, description: 'changed' }]);
    expect(bulk.body).toEqual({ detail: 'User inactive or deleted.' });
    expect((await t.knex.raw(`SELECT "description" FROM "dcim_site" WHERE "id" = ?`, [site])).rows[0].description).toBe('');
  });

  test('a delete with a token seen before costs no lookup, and a revoked one deletes nothing', async () => {
    const key = await t.makeToken({ superuser: true });
    const make = async (slug: string) => (await t.api.post(SITES).set(t.auth).send({ name: slug, slug })).body.id as number;
    const exists = async (id: number) => (await t.knex.raw(`SELECT count(*)::int AS n FROM "dcim_site" WHERE "id" = ?`, [id])).rows[0].n as number;
    expect((await get(key)).status).toBe(200);
    const first = await make('cc-del-1');
    const deleted = await statementsOf(t, () => t.api.delete(`${SITES}${first}/`).set('Authorization', `Token ${key}`));
    expect(deleted.status).toBe(204);
    expect(deleted.statements.some((s) => s.includes('"users_token"'))).toBe(false);
    expect(deleted.statements.some((s) => s.includes('"patchbay_auth_version"') && s.includes('FOR NO KEY UPDATE'))).toBe(true);

    const second = await make('cc-del-2');
    const third = await make('cc-del-3');
    await t.knex.raw(`UPDATE "users_token" SET "expires" = now() - interval '1 minute' WHERE "key" = ?`, [key]);
    expect((await t.api.delete(`${SITES}${second}/`).set('Authorization', `Token ${key}`)).body).toEqual({ detail: 'Token expired' });
    expect((await t.api.delete(SITES).set('Authorization', `Token ${key}`).send([{ id: third }])).body).toEqual({ detail: 'Token expired' });
    expect([await exists(second), await exists(third)]).toEqual([1, 1]);
  });

  test('a write refused on cached permissions is honoured once a grant widens them', async () => {
    const key = await t.makeToken();
    const user = (await t.knex.raw(`SELECT "user_id" FROM "users_token" WHERE "key" = ?`, [key])).rows[0].user_id as number;
    const perm = await t.api.post('/api/users/permissions/').set(t.auth).send({ name: `cc add ${user}`, object_types: ['dcim.site'], actions: ['view', 'add'], users: [user], constraints: { status: 'planned' } });
    expect(perm.status).toBe(201);
    const add = (slug: string) => t.api.post(SITES).set('Authorization', `Token ${key}`).send({ name: slug, slug, status: 'active' });
    expect((await add(`cc-p-${user}-1`)).status).toBe(403);
    // Widened behind the API's back: only the auth version tells the cache.
    await t.knex.raw(`UPDATE "users_objectpermission" SET "constraints" = NULL WHERE "id" = ?`, [perm.body.id]);
    expect((await add(`cc-p-${user}-2`)).status).toBe(201);
  });
});

const onPostgres = TEST_DATABASE_URL ? describe : describe.skip;

onPostgres('the credential cache across instances (PostgreSQL)', () => {
  let c: Cluster;
  beforeAll(async () => {
    c = await startCluster(3);
  }, 120000);
  afterAll(async () => {
    await c.close();
  });

  /** Warms every instance's cache with the token: each answers 200 twice. */
  async function warm(key: string): Promise<void> {
    for (const i of c.instances) for (let n = 0; n < 2; n++) expect((await i.request('GET', SITES, { Authorization: `Token ${key}` })).status).toBe(200);
  }
  const on = (i: Instance, key: string) => i.request('GET', SITES, { Authorization: `Token ${key}` });

  test('a token deleted through one instance is refused by every other on the very next request', async () => {
    for (let round = 0; round < 5; round++) {
      const key = await c.t.makeToken({ superuser: true });
      await warm(key);
      const id = (await c.t.knex.raw(`SELECT "id" FROM "users_token" WHERE "key" = ?`, [key])).rows[0].id as number;
      expect((await c.instances[0].request('DELETE', `/api/users/tokens/${id}/`, c.t.auth)).status).toBe(204);
      for (const i of c.instances) expect(await on(i, key)).toEqual({ status: 403, body: { detail: 'Invalid token' } });
    }
  });

  test('expired or disabled through one instance: refused by every other on the very next request', async () => {
    const key = await c.t.makeToken({ superuser: true });
    await warm(key);
    const id = (await c.t.knex.raw(`SELECT "id" FROM "users_token" WHERE "key" = ?`, [key])).rows[0].id as number;
    const past = new Date(Date.now() - 3_600_000).toISOString();
    expect((await c.instances[1].request('PATCH', `/api/users/tokens/${id}/`, c.t.auth, { expires: past })).status).toBe(200);
    for (const i of c.instances) expect(await on(i, key)).toEqual({ status: 403, body: { detail: 'Token expired' } });

    const other = await c.t.makeToken({ superuser: true });
    await warm(other);
    const user = (await c.t.knex.raw(`SELECT "user_id" FROM "users_token" WHERE "key" = ?`, [other])).rows[0].user_id as number;
    expect((await c.instances[2].request('PATCH', `/api/users/users/${user}/`, c.t.auth, { is_active: false })).status).toBe(200);
    for (const i of c.instances) expect(await on(i, other)).toEqual({ status: 403, body: { detail: 'User inactive or deleted.' } });
  });

  test('write permission withdrawn from a token (write_enabled false) is refused by every instance at once', async () => {
    const key = await c.t.makeToken({ superuser: true });
    await warm(key);
    const id = (await c.t.knex.raw(`SELECT "id" FROM "users_token" WHERE "key" = ?`, [key])).rows[0].id as number;
    expect((await c.instances[0].request('PATCH', `/api/users/tokens/${id}/`, c.t.auth, { write_enabled: false })).status).toBe(200);
    for (const i of c.instances) {
      const res = await i.request('POST', '/api/tenancy/tenant-groups/', { Authorization: `Token ${key}` }, { name: `tg ${i.base}`, slug: `tg-${i.base.replace(/\D/g, '')}` });
      expect(res).toEqual({ status: 403, body: { detail: 'This token does not have write permission.' } });
    }
  });
});
