import { startTestApp, type TestApp } from '../support/test-app';
import { apiWith } from '../support/listen';

/**
 * NetBox's object permissions on generated endpoints: actions granted per object type by enabled
 * permissions (directly or through groups), constraints (Django lookups; a list is OR-ed) scoping
 * lists, counts and details, and every write checked before and after inside its transaction.
 * Also EXEMPT_VIEW_PERMISSIONS, LOGIN_REQUIRED, OPTIONS, and tokens as permission-governed objects.
 */

let t: TestApp;
const NO_CREDENTIALS = { detail: 'Authentication credentials were not provided.' };
const DENIED = { detail: 'You do not have permission to perform this action.' };
const SITES = '/api/dcim/sites/';

/** Sites by slug -> id; the fixture:
 *  a1 active  region r1 tenant t1 (group g1)
 *  a2 active  region r2 tenant t2 (group g2) tagged managed
 *  p1 planned region r1 tenant t2 (group g2)
 *  r2 retired region r2 no tenant
 *  x  staging no region tenant t1 (group g1) tagged managed
 */
const site: Record<string, number> = {};
const region: Record<string, number> = {};
const tenant: Record<string, number> = {};

beforeAll(async () => {
  t = await startTestApp();
  const post = async (path: string, body: Record<string, unknown>): Promise<number> => {
    const res = await t.api.post(path).set(t.auth).send(body);
    expect([path, res.status, res.body]).toEqual([path, 201, expect.anything()]);
    return res.body.id;
  };
  region.r1 = await post('/api/dcim/regions/', { name: 'Region 1', slug: 'r1' });
  region.r2 = await post('/api/dcim/regions/', { name: 'Region 2', slug: 'r2' });
  const g1 = await post('/api/tenancy/tenant-groups/', { name: 'Group 1', slug: 'g1' });
  const g2 = await post('/api/tenancy/tenant-groups/', { name: 'Group 2', slug: 'g2' });
  const t1 = (tenant.t1 = await post('/api/tenancy/tenants/', { name: 'Tenant 1', slug: 't1', group: g1 }));
  const t2 = (tenant.t2 = await post('/api/tenancy/tenants/', { name: 'Tenant 2', slug: 't2', group: g2 }));
  site.a1 = await post(SITES, { name: 'A1', slug: 'a1', status: 'active', region: region.r1, tenant: t1 });
  const managed = await post('/api/extras/tags/', { name: 'Managed', slug: 'managed' });
  site.a2 = await post(SITES, { name: 'A2', slug: 'a2', status: 'active', region: region.r2, tenant: t2, tags: [managed] });
  site.p1 = await post(SITES, { name: 'P1', slug: 'p1', status: 'planned', region: region.r1, tenant: t2 });
  site.r2 = await post(SITES, { name: 'R2', slug: 'r2', status: 'retired', region: region.r2 });
  site.x = await post(SITES, { name: 'X', slug: 'x', status: 'staging', tenant: t1, tags: [managed] });
});
afterAll(async () => {
  await t.close();
});

interface User {
  id: number;
  key: string;
  h: { Authorization: string };
}

/** A new non-superuser with a token and no permissions. */
async function newUser(): Promise<User> {
  const key = await t.makeToken();
  const r = await t.knex.raw(`SELECT "user_id" FROM "users_token" WHERE "key" = ?`, [key]);
  return { id: (r.rows as Array<{ user_id: number }>)[0]!.user_id, key, h: { Authorization: `Token ${key}` } };
}

let permissions = 0;
/** Creates an ObjectPermission through the API (as the superuser). */
async function grant(p: { users?: number[]; groups?: number[]; types?: string[]; actions: string[]; constraints?: unknown; enabled?: boolean }): Promise<number> {
  const res = await t.api
    .post('/api/users/permissions/')
    .set(t.auth)
    .send({
      name: `permission ${++permissions}`,
      object_types: p.types ?? ['dcim.site'],
      actions: p.actions,
      constraints: p.constraints ?? null,
      users: p.users ?? [],
      groups: p.groups ?? [],
      ...(p.enabled === undefined ? {} : { enabled: p.enabled }),
    });
  expect([res.status, res.body]).toEqual([201, expect.objectContaining({ id: expect.any(Number) })]);
  return res.body.id;
}

/** The slugs of the sites a list response holds, sorted. */
const slugs = (body: { results: Array<{ slug: string }> }) => body.results.map((s) => s.slug).sort();

/** What the database holds for a site (read past the API). */
async function stored(id: number): Promise<{ name: string; status: string; description: string } | undefined> {
  const r = await t.knex.raw(`SELECT "name", "status", "description" FROM "dcim_site" WHERE "id" = ?`, [id]);
  return (r.rows as Array<{ name: string; status: string; description: string }>)[0];
}

async function siteIdBySlug(slug: string): Promise<number | undefined> {
  const r = await t.knex.raw(`SELECT "id" FROM "dcim_site" WHERE "slug" = ?`, [slug]);
  return (r.rows as Array<{ id: number }>)[0]?.id;
}

/** Asserts the user's view of sites is exactly these slugs: list, count, every detail, and filters within it. */
async function expectSees(u: User, expected: string[]): Promise<void> {
  const list = await t.api.get(`${SITES}?limit=0`).set(u.h);
  expect(list.status).toBe(200);
  expect(slugs(list.body)).toEqual([...expected].sort());
  expect(list.body.count).toBe(expected.length);
  const paged = await t.api.get(`${SITES}?limit=1`).set(u.h);
  expect(paged.body.count).toBe(expected.length);
  const brief = await t.api.get(`${SITES}?brief=1&limit=0`).set(u.h);
  expect(brief.body.count).toBe(expected.length);
  for (const [slug, id] of Object.entries(site)) {
    const detail = await t.api.get(`${SITES}${id}/`).set(u.h);
    if (expected.includes(slug)) {
      expect([slug, detail.status]).toEqual([slug, 200]);
      expect(detail.body.slug).toBe(slug);
    } else {
      // Outside the constraints an object does not exist, as far as this user can tell.
      expect([slug, detail.status, detail.body]).toEqual([slug, 404, { detail: 'Not found.' }]);
    }
  }
  // A filter narrows within the permitted objects, never past them.
  const filtered = await t.api.get(`${SITES}?region=r1`).set(u.h);
  const inR1 = ['a1', 'p1'].filter((s) => expected.includes(s));
  expect(slugs(filtered.body)).toEqual(inR1);
  expect(filtered.body.count).toBe(inR1.length);
}

describe('a user with no permission', () => {
  test('gets 403 on list, detail, create, update and delete, and nothing changes', async () => {
    const u = await newUser();
    const attempts = [
      await t.api.get(SITES).set(u.h),
      await t.api.get(`${SITES}${site.a1}/`).set(u.h),
      await t.api.post(SITES).set(u.h).send({ name: 'Nope', slug: 'nope' }),
      await t.api.patch(`${SITES}${site.a1}/`).set(u.h).send({ description: 'nope' }),
      await t.api.patch(SITES).set(u.h).send([{ id: site.a1, description: 'nope' }]),
      await t.api.delete(`${SITES}${site.a1}/`).set(u.h),
      await t.api.delete(SITES).set(u.h).send([{ id: site.a1 }]),
    ];
    for (const res of attempts) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual(DENIED);
    }
    expect(await siteIdBySlug('nope')).toBeUndefined();
    expect(await stored(site.a1)).toMatchObject({ description: '' });
  });
});

describe('view constraints', () => {
  test('{"status": "active"}: exactly the active sites, in list, count and detail', async () => {
    const u = await newUser();
    await grant({ users: [u.id], actions: ['view'], constraints: { status: 'active' } });
    await expectSees(u, ['a1', 'a2']);
  });

  test('a list of two constraint objects is OR-ed', async () => {
    const u = await newUser();
    await grant({ users: [u.id], actions: ['view'], constraints: [{ status: 'planned' }, { region__slug: 'r2' }] });
    await expectSees(u, ['p1', 'a2', 'r2']);
  });

  test('the lookups of one object are AND-ed', async () => {
    const u = await newUser();
    await grant({ users: [u.id], actions: ['view'], constraints: { status: 'active', region__slug: 'r1' } });
    await expectSees(u, ['a1']);
  });

  test('a relation path: {"region__slug": "r1"}', async () => {
    const u = await newUser();
    await grant({ users: [u.id], actions: ['view'], constraints: { region__slug: 'r1' } });
    await expectSees(u, ['a1', 'p1']);
  });

  test('a two-step relation path: {"tenant__group__slug": "g1"}', async () => {
    const u = await newUser();
    await grant({ users: [u.id], actions: ['view'], constraints: { tenant__group__slug: 'g1' } });
    await expectSees(u, ['a1', 'x']);
  });

  test('a path through a many-to-many field: {"tags__slug": "managed"}', async () => {
    const u = await newUser();
    await grant({ users: [u.id], actions: ['view'], constraints: { tags__slug: 'managed' } });
    await expectSees(u, ['a2', 'x']);
  });

  test('lookups: __in, __isnull, __istartswith, and an id', async () => {
    const inList = await newUser();
    await grant({ users: [inList.id], actions: ['view'], constraints: { slug__in: ['a2', 'x', 'not-there'] } });
    await expectSees(inList, ['a2', 'x']);
    const noRegion = await newUser();
    await grant({ users: [noRegion.id], actions: ['view'], constraints: { region__isnull: true } });
    await expectSees(noRegion, ['x']);
    const prefix = await newUser();
    await grant({ users: [prefix.id], actions: ['view'], constraints: [{ name__istartswith: 'r' }, { region_id: region.r1, status: 'planned' }] });
    await expectSees(prefix, ['r2', 'p1']);
  });

  test('two permissions for the same action widen each other (OR across permissions)', async () => {
    const u = await newUser();
    await grant({ users: [u.id], actions: ['view'], constraints: { status: 'active' } });
    await grant({ users: [u.id], actions: ['view'], constraints: { tenant__group__slug: 'g1' } });
    await expectSees(u, ['a1', 'a2', 'x']);
    // An unconstrained one opens everything.
    await grant({ users: [u.id], actions: ['view'] });
    await expectSees(u, Object.keys(site));
  });

  test('a constraint naming a field the type does not have grants nothing (fails closed)', async () => {
    const u = await newUser();
    await grant({ users: [u.id], actions: ['view'], constraints: { no_such_field: 'x' } });
    const res = await t.api.get(SITES).set(u.h);
    expect(res.status).toBe(403);
  });
});

describe('add constraints', () => {
  test('a create outside them is 403 and nothing is written; inside is 201', async () => {
    const u = await newUser();
    await grant({ users: [u.id], actions: ['view'] });
    await grant({ users: [u.id], actions: ['add'], constraints: { status: 'planned', region__slug: 'r1' } });
    const ok = await t.api.post(SITES).set(u.h).send({ name: 'Add ok', slug: 'add-ok', status: 'planned', region: region.r1 });
    expect(ok.status).toBe(201);
    expect(ok.body.status.value).toBe('planned');

    for (const [slug, body] of [
      ['add-active', { status: 'active', region: region.r1 }],
      ['add-default', { region: region.r1 }],
      ['add-r2', { status: 'planned', region: region.r2 }],
      ['add-noregion', { status: 'planned' }],
    ] as const) {
      const res = await t.api.post(SITES).set(u.h).send({ name: slug, slug, ...body });
      expect([slug, res.status, res.body]).toEqual([slug, 403, DENIED]);
      expect(await siteIdBySlug(slug)).toBeUndefined();
    }
  });

  test('a bulk create with one element outside is 403 and writes none of them', async () => {
    const u = await newUser();
    await grant({ users: [u.id], actions: ['view', 'add'], constraints: { status: 'planned' } });
    const res = await t.api
      .post(SITES)
      .set(u.h)
      .send([
        { name: 'Bulk in 1', slug: 'bulk-in-1', status: 'planned' },
        { name: 'Bulk out', slug: 'bulk-out', status: 'active' },
        { name: 'Bulk in 2', slug: 'bulk-in-2', status: 'planned' },
      ]);
    expect(res.status).toBe(403);
    for (const slug of ['bulk-in-1', 'bulk-out', 'bulk-in-2']) expect(await siteIdBySlug(slug)).toBeUndefined();
    const inside = await t.api.post(SITES).set(u.h).send([{ name: 'Bulk in 3', slug: 'bulk-in-3', status: 'planned' }]);
    expect(inside.status).toBe(201);
  });

  test('without the add action, viewing is not enough', async () => {
    const u = await newUser();
    await grant({ users: [u.id], actions: ['view', 'change', 'delete'] });
    const res = await t.api.post(SITES).set(u.h).send({ name: 'No add', slug: 'no-add' });
    expect(res.status).toBe(403);
    expect(await siteIdBySlug('no-add')).toBeUndefined();
  });
});

describe('change constraints', () => {
  let u: User;
  let c1: number;
  let c2: number;
  let cp: number;
  beforeAll(async () => {
    u = await newUser();
    await grant({ users: [u.id], actions: ['view'] });
    await grant({ users: [u.id], actions: ['change'], constraints: { status: 'active', slug__startswith: 'chg-' } });
    const make = async (slug: string, status: string) => (await t.api.post(SITES).set(t.auth).send({ name: slug, slug, status })).body.id as number;
    c1 = await make('chg-1', 'active');
    c2 = await make('chg-2', 'active');
    cp = await make('chg-p', 'planned');
  });

  test('a change that stays inside is fine', async () => {
    const res = await t.api.patch(`${SITES}${c1}/`).set(u.h).send({ description: 'edited' });
    expect(res.status).toBe(200);
    expect(res.body.description).toBe('edited');
  });

  test('moving an object out of them is 403 and leaves it unchanged (PATCH and PUT)', async () => {
    const before = await stored(c1);
    const patch = await t.api.patch(`${SITES}${c1}/`).set(u.h).send({ status: 'planned', description: 'moved' });
    expect(patch.status).toBe(403);
    expect(patch.body).toEqual(DENIED);
    const put = await t.api.put(`${SITES}${c1}/`).set(u.h).send({ name: 'chg-1', slug: 'chg-1', status: 'retired' });
    expect(put.status).toBe(403);
    expect(await stored(c1)).toEqual(before);
  });

  test('changing an object outside them is 403 (visible, but not changeable), even into them', async () => {
    const before = await stored(cp);
    for (const body of [{ description: 'outside' }, { status: 'active' }]) {
      const res = await t.api.patch(`${SITES}${cp}/`).set(u.h).send(body);
      expect(res.status).toBe(403);
    }
    expect(await stored(cp)).toEqual(before);
  });

  test('a bulk update with one element outside (or moving out) is 403 and writes nothing', async () => {
    const c1Before = await stored(c1);
    const c2Before = await stored(c2);
    const cpBefore = await stored(cp);
    const outside = await t.api
      .patch(SITES)
      .set(u.h)
      .send([
        { id: c1, description: 'bulk' },
        { id: cp, description: 'bulk' },
      ]);
    expect(outside.status).toBe(403);
    const movingOut = await t.api
      .patch(SITES)
      .set(u.h)
      .send([
        { id: c1, description: 'bulk' },
        { id: c2, status: 'decommissioning' },
      ]);
    expect(movingOut.status).toBe(403);
    expect(await stored(c1)).toEqual(c1Before);
    expect(await stored(c2)).toEqual(c2Before);
    expect(await stored(cp)).toEqual(cpBefore);
    const inside = await t.api
      .patch(SITES)
      .set(u.h)
      .send([
        { id: c1, description: 'bulk ok' },
        { id: c2, description: 'bulk ok' },
      ]);
    expect(inside.status).toBe(200);
    expect((await stored(c2))!.description).toBe('bulk ok');
  });

  test('an object outside the view constraints is a 404 to a change, not a 403', async () => {
    const narrow = await newUser();
    await grant({ users: [narrow.id], actions: ['view'], constraints: { status: 'active' } });
    await grant({ users: [narrow.id], actions: ['change'] });
    const res = await t.api.patch(`${SITES}${site.p1}/`).set(narrow.h).send({ description: 'hidden' });
    expect(res.status).toBe(404);
    expect((await stored(site.p1))!.description).toBe('');
  });
});

describe('delete constraints', () => {
  test('deleting outside them is 403 and the object stays; single and bulk', async () => {
    const u = await newUser();
    await grant({ users: [u.id], actions: ['view'] });
    await grant({ users: [u.id], actions: ['delete'], constraints: { status: 'retired' } });
    const make = async (slug: string, status: string) => (await t.api.post(SITES).set(t.auth).send({ name: slug, slug, status })).body.id as number;
    const ret1 = await make('del-ret-1', 'retired');
    const ret2 = await make('del-ret-2', 'retired');
    const act = await make('del-act', 'active');

    const refused = await t.api.delete(`${SITES}${act}/`).set(u.h);
    expect(refused.status).toBe(403);
    expect(await stored(act)).toBeDefined();

    const bulk = await t.api.delete(SITES).set(u.h).send([{ id: ret2 }, { id: act }]);
    expect(bulk.status).toBe(403);
    expect(await stored(ret2)).toBeDefined();
    expect(await stored(act)).toBeDefined();

    expect((await t.api.delete(`${SITES}${ret1}/`).set(u.h)).status).toBe(204);
    expect(await stored(ret1)).toBeUndefined();
    expect((await t.api.delete(SITES).set(u.h).send([{ id: ret2 }])).status).toBe(204);
    expect(await stored(ret2)).toBeUndefined();
  });
});

describe('which permissions count', () => {
  test('permissions through a group, and only while a member', async () => {
    const u = await newUser();
    const group = await t.api.post('/api/users/groups/').set(t.auth).send({ name: 'planners' });
    expect(group.status).toBe(201);
    await grant({ groups: [group.body.id], actions: ['view', 'add'], constraints: { status: 'planned', tenant__slug: 't2' } });
    expect((await t.api.get(SITES).set(u.h)).status).toBe(403);

    expect((await t.api.patch(`/api/users/users/${u.id}/`).set(t.auth).send({ groups: [group.body.id] })).status).toBe(200);
    await expectSees(u, ['p1']);
    const add = await t.api.post(SITES).set(u.h).send({ name: 'Group add', slug: 'group-add', status: 'planned', tenant: tenant.t2 });
    expect(add.status).toBe(201);
    const outside = await t.api.post(SITES).set(u.h).send({ name: 'Group out', slug: 'group-out', status: 'planned', tenant: tenant.t1 });
    expect(outside.status).toBe(403);

    expect((await t.api.patch(`/api/users/users/${u.id}/`).set(t.auth).send({ groups: [] })).status).toBe(200);
    expect((await t.api.get(SITES).set(u.h)).status).toBe(403);
  });

  test('a disabled permission grants nothing, until enabled', async () => {
    const u = await newUser();
    const id = await grant({ users: [u.id], actions: ['view'], enabled: false });
    expect((await t.api.get(SITES).set(u.h)).status).toBe(403);
    expect((await t.api.get(`${SITES}${site.a1}/`).set(u.h)).status).toBe(403);
    expect((await t.api.patch(`/api/users/permissions/${id}/`).set(t.auth).send({ enabled: true })).status).toBe(200);
    expect((await t.api.get(SITES).set(u.h)).status).toBe(200);
  });

  test('object_types must match the endpoint\'s type', async () => {
    const u = await newUser();
    await grant({ users: [u.id], actions: ['view', 'add'], types: ['ipam.prefix', 'tenancy.tenant'] });
    expect((await t.api.get(SITES).set(u.h)).status).toBe(403);
    expect((await t.api.get('/api/dcim/regions/').set(u.h)).status).toBe(403);
    const tenants = await t.api.get('/api/tenancy/tenants/').set(u.h);
    expect(tenants.status).toBe(200);
    expect(tenants.body.count).toBe(2);
    expect((await t.api.post('/api/ipam/prefixes/').set(u.h).send({ prefix: '10.9.0.0/16' })).status).toBe(201);
    expect((await t.api.post(SITES).set(u.h).send({ name: 'Wrong type', slug: 'wrong-type' })).status).toBe(403);
  });

  test('another user\'s permission grants nothing', async () => {
    const u = await newUser();
    const other = await newUser();
    await grant({ users: [other.id], actions: ['view'] });
    expect((await t.api.get(SITES).set(u.h)).status).toBe(403);
    expect((await t.api.get(SITES).set(other.h)).status).toBe(200);
  });
});

describe('"$user" in constraints', () => {
  test('{"id": "$user"} on users: a user sees only themselves', async () => {
    const u = await newUser();
    await grant({ users: [u.id], types: ['users.user'], actions: ['view'], constraints: { id: '$user' } });
    const list = await t.api.get('/api/users/users/').set(u.h);
    expect(list.status).toBe(200);
    expect(list.body.count).toBe(1);
    expect(list.body.results.map((r: { id: number }) => r.id)).toEqual([u.id]);
    const admin = await t.knex.raw(`SELECT "id" FROM "users_user" WHERE "username" = 'admin'`);
    expect((await t.api.get(`/api/users/users/${(admin.rows as Array<{ id: number }>)[0]!.id}/`).set(u.h)).status).toBe(404);
  });

  test('{"user": "$user"} on tokens', async () => {
    const u = await newUser();
    await grant({ users: [u.id], types: ['users.token'], actions: ['view'], constraints: { user: '$user' } });
    const list = await t.api.get('/api/users/tokens/').set(u.h);
    expect(list.status).toBe(200);
    expect(list.body.results.map((r: { key: string }) => r.key)).toEqual([u.key]);
  });
});

describe('tokens are governed by permissions on users.token', () => {
  test('a non-superuser with every token action sees and manages only their own tokens', async () => {
    const u = await newUser();
    const other = await newUser();
    const otherToken = (await t.knex.raw(`SELECT "id" FROM "users_token" WHERE "key" = ?`, [other.key])).rows[0].id as number;
    await grant({ users: [u.id], types: ['users.token'], actions: ['view', 'add', 'change', 'delete'] });

    const list = await t.api.get('/api/users/tokens/').set(u.h);
    expect(list.status).toBe(200);
    expect(list.body.count).toBe(1);
    expect(list.body.results[0].user.id).toBe(u.id);
    expect((await t.api.get(`/api/users/tokens/${otherToken}/`).set(u.h)).status).toBe(404);

    // Creating: for oneself (named or not); never for someone else.
    const mine = await t.api.post('/api/users/tokens/').set(u.h).send({ description: 'mine' });
    expect(mine.status).toBe(201);
    expect(mine.body.user.id).toBe(u.id);
    expect((await t.api.post('/api/users/tokens/').set(u.h).send({ user: u.id, description: 'mine too' })).status).toBe(201);
    const before = (await t.knex.raw(`SELECT count(*)::int AS n FROM "users_token" WHERE "user_id" = ?`, [other.id])).rows[0].n;
    const forOther = await t.api.post('/api/users/tokens/').set(u.h).send({ user: other.id, description: 'for them' });
    expect(forOther.status).toBe(403);
    const bulkForOther = await t.api.post('/api/users/tokens/').set(u.h).send([{ description: 'ok' }, { user: other.id }]);
    expect(bulkForOther.status).toBe(403);
    expect((await t.knex.raw(`SELECT count(*)::int AS n FROM "users_token" WHERE "user_id" = ?`, [other.id])).rows[0].n).toBe(before);
    expect((await t.api.get('/api/users/tokens/').set(u.h)).body.count).toBe(3);

    // Changing: one's own, but not handing it to someone else, and not someone else's.
    expect((await t.api.patch(`/api/users/tokens/${mine.body.id}/`).set(u.h).send({ description: 'renamed' })).status).toBe(200);
    const handOver = await t.api.patch(`/api/users/tokens/${mine.body.id}/`).set(u.h).send({ user: other.id });
    expect(handOver.status).toBe(403);
    expect((await t.api.get(`/api/users/tokens/${mine.body.id}/`).set(u.h)).body.user.id).toBe(u.id);
    expect((await t.api.patch(`/api/users/tokens/${otherToken}/`).set(u.h).send({ description: 'hijacked' })).status).toBe(404);

    // Deleting: one's own only.
    expect((await t.api.delete(`/api/users/tokens/${otherToken}/`).set(u.h)).status).toBe(404);
    expect((await t.api.get('/api/dcim/regions/').set(other.h)).status).toBe(403); // still a valid token: refused for permission, not "Invalid token"
    expect((await t.api.get('/api/dcim/regions/').set(other.h)).body).toEqual(DENIED);
    expect((await t.api.delete(`/api/users/tokens/${mine.body.id}/`).set(u.h)).status).toBe(204);
  });

  test('without any permission every user views, adds, changes and deletes their own tokens (NetBox 3.7 DEFAULT_PERMISSIONS), and only theirs', async () => {
    const u = await newUser();
    const other = await newUser();
    const otherToken = (await t.knex.raw(`SELECT "id" FROM "users_token" WHERE "key" = ?`, [other.key])).rows[0].id as number;
    const list = await t.api.get('/api/users/tokens/').set(u.h);
    expect([list.status, list.body.count, list.body.results[0].user.id]).toEqual([200, 1, u.id]);
    const made = await t.api.post('/api/users/tokens/').set(u.h).send({ description: 'own' });
    expect([made.status, made.body.user.id, made.body.key]).toEqual([201, u.id, expect.stringMatching(/^[0-9a-f]{40}$/)]);
    expect((await t.api.post('/api/users/tokens/').set(u.h).send({ user: other.id })).status).toBe(403);
    expect((await t.api.patch(`/api/users/tokens/${made.body.id}/`).set(u.h).send({ description: 'renamed' })).body.description).toBe('renamed');
    expect((await t.api.patch(`/api/users/tokens/${otherToken}/`).set(u.h).send({ description: 'hijacked' })).status).toBe(404);
    expect((await t.api.delete(`/api/users/tokens/${otherToken}/`).set(u.h)).status).toBe(404);
    expect((await t.api.delete(`/api/users/tokens/${made.body.id}/`).set(u.h)).status).toBe(204);
    // Owning tokens grants nothing else: other users' objects stay out of reach.
    expect((await t.api.get('/api/users/users/').set(u.h)).status).toBe(403);
  });
});

describe('OPTIONS', () => {
  test('with add permission: actions.POST lists writable fields, choices as {value, display_name}', async () => {
    const u = await newUser();
    await grant({ users: [u.id], actions: ['view', 'add'], constraints: { status: 'planned' } });
    const res = await t.api.options(SITES).set(u.h);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: expect.any(String), description: expect.any(String), renders: expect.arrayContaining(['application/json']), parses: ['application/json'] });
    const post = res.body.actions.POST;
    expect(post.name).toMatchObject({ type: 'string', required: true, read_only: false, label: expect.any(String) });
    expect(post.status.type).toBe('choice');
    expect(post.status.choices).toEqual([
      { value: 'planned', display_name: 'Planned' },
      { value: 'staging', display_name: 'Staging' },
      { value: 'active', display_name: 'Active' },
      { value: 'decommissioning', display_name: 'Decommissioning' },
      { value: 'retired', display_name: 'Retired' },
    ]);
    expect(post.id.read_only).toBe(true);
  });

  test('without add permission (view only, or nothing): no actions.POST', async () => {
    const viewer = await newUser();
    await grant({ users: [viewer.id], actions: ['view', 'change', 'delete'] });
    const res = await t.api.options(SITES).set(viewer.h);
    expect(res.status).toBe(200);
    expect(res.body.actions?.POST).toBeUndefined();
    const nobody = await newUser();
    const none = await t.api.options(SITES).set(nobody.h);
    expect(none.status).toBe(200);
    expect(none.body.actions?.POST).toBeUndefined();
    // The add permission on another type does not count.
    const prefixAdder = await newUser();
    await grant({ users: [prefixAdder.id], types: ['ipam.prefix'], actions: ['add'] });
    expect((await t.api.options(SITES).set(prefixAdder.h)).body.actions?.POST).toBeUndefined();
    expect((await t.api.options('/api/ipam/prefixes/').set(prefixAdder.h)).body.actions?.POST?.status?.choices).toContainEqual({ value: 'container', display_name: 'Container' });
  });
});

describe('EXEMPT_VIEW_PERMISSIONS and LOGIN_REQUIRED', () => {
  test('a list of types: anyone reads those (all objects, whatever their constraints), nothing else, and never writes', async () => {
    const open = apiWith(t, { EXEMPT_VIEW_PERMISSIONS: 'dcim.site,tenancy.tenant' });
    const constrained = await newUser();
    await grant({ users: [constrained.id], actions: ['view'], constraints: { status: 'active' } });
    const nobody = await newUser();
    for (const h of [{}, constrained.h, nobody.h]) {
      const list = await open.get(`${SITES}?limit=0`).set(h);
      expect(list.status).toBe(200);
      expect(list.body.count).toBe(await siteTotal());
      expect((await open.get(`${SITES}${site.p1}/`).set(h)).status).toBe(200);
      expect((await open.get('/api/tenancy/tenants/').set(h)).status).toBe(200);
      expect((await open.get('/api/dcim/regions/').set(h)).status).toBe(403);
    }
    expect((await open.get('/api/dcim/regions/')).body).toEqual(NO_CREDENTIALS);
    expect((await open.get('/api/dcim/regions/').set(nobody.h)).body).toEqual(DENIED);
    const anonWrite = await open.post(SITES).send({ name: 'Anon', slug: 'anon-exempt' });
    expect(anonWrite.status).toBe(403);
    const userWrite = await open.post(SITES).set(nobody.h).send({ name: 'Nobody', slug: 'nobody-exempt' });
    expect(userWrite.status).toBe(403);
    expect(await siteIdBySlug('anon-exempt')).toBeUndefined();
    expect(await siteIdBySlug('nobody-exempt')).toBeUndefined();
    // Without the setting the same requests are refused.
    expect((await t.api.get(SITES)).status).toBe(403);
    expect((await t.api.get(SITES).set(nobody.h)).status).toBe(403);
  });

  test("'*': every inventory type, but never a private one (users, groups, permissions, tokens, webhooks)", async () => {
    const open = apiWith(t, { EXEMPT_VIEW_PERMISSIONS: '*' });
    const nobody = await newUser();
    for (const path of [SITES, '/api/dcim/regions/', '/api/tenancy/tenants/', '/api/ipam/prefixes/']) {
      expect([path, (await open.get(path)).status]).toEqual([path, 200]);
      expect([path, (await open.get(path).set(nobody.h)).status]).toEqual([path, 200]);
    }
    // As NetBox's EXEMPT_EXCLUDE_MODELS, from the definitions' "private": '*' opens none of them.
    for (const path of ['/api/users/users/', '/api/users/groups/', '/api/users/permissions/', '/api/extras/webhooks/']) {
      expect([path, (await open.get(path)).status]).toEqual([path, 403]);
      expect([path, (await open.get(path).set(nobody.h)).status]).toEqual([path, 403]);
    }
    // Tokens: nobody anonymous sees any; a user sees only their own (every user may, exempt or not).
    const anonTokens = await open.get('/api/users/tokens/');
    expect(anonTokens.status).toBe(403);
    const keys = (await t.knex.raw(`SELECT "key" FROM "users_token"`)).rows as Array<{ key: string }>;
    for (const { key } of keys) expect(JSON.stringify(anonTokens.body)).not.toContain(key);
    const ownTokens = await open.get('/api/users/tokens/').set(nobody.h);
    expect(ownTokens.status).toBe(200);
    expect(ownTokens.body.results.map((r: { key: string }) => r.key)).toEqual([nobody.key]);
    // Naming a sensitive type explicitly does open it, as in NetBox.
    const named = apiWith(t, { EXEMPT_VIEW_PERMISSIONS: 'users.user' });
    expect((await named.get('/api/users/users/')).status).toBe(200);
  });

  test('LOGIN_REQUIRED=true: anonymous requests are refused even for exempt types; users still read them', async () => {
    const closed = apiWith(t, { EXEMPT_VIEW_PERMISSIONS: 'dcim.site', LOGIN_REQUIRED: 'true' });
    const anon = await closed.get(SITES);
    expect(anon.status).toBe(403);
    expect(anon.body).toEqual(NO_CREDENTIALS);
    expect((await closed.get(`${SITES}${site.a1}/`)).status).toBe(403);
    expect((await closed.options(SITES)).status).toBe(403);
    const nobody = await newUser();
    expect((await closed.get(SITES).set(nobody.h)).status).toBe(200);
    expect((await closed.options(SITES).set(nobody.h)).status).toBe(200);
    // And with LOGIN_REQUIRED off, anonymous reads of exempt types work.
    expect((await apiWith(t, { EXEMPT_VIEW_PERMISSIONS: 'dcim.site' }).get(SITES)).status).toBe(200);
  });
});

async function siteTotal(): Promise<number> {
  const r = await t.knex.raw(`SELECT count(*)::int AS n FROM "dcim_site"`);
  return (r.rows as Array<{ n: number }>)[0]!.n;
}
