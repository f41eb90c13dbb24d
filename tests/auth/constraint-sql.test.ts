import path from 'node:path';
import { loadRegistry } from '../../engine/boot';
import { constraintCondition } from '../../engine/auth/constraints';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * A permission constraint's SQL is a pure function of the constraint: the aliases of the sub-selects it
 * walks through are numbered within the statement being built, not from state shared by the process, so
 * the same request sends the same statement text (PostgreSQL can keep its plan) whoever built one before.
 */

const registry = loadRegistry(path.resolve(__dirname, '..', '..', 'schema'));
const device = registry.models.get('dcim.device')!;
const RELATIONAL = [{ site__region__slug: 'r1', tags__slug: 'managed' }, { tenant__group__slug__startswith: 'g' }];

test('building the same constraint twice gives identical SQL, each set numbered from c1 each time', () => {
  const first = constraintCondition(device, RELATIONAL, 7)!.toPositional();
  // Something else built in between must not shift the numbering.
  constraintCondition(registry.models.get('dcim.site')!, { region__parent__slug: 'x' }, 1);
  const second = constraintCondition(device, RELATIONAL, 7)!.toPositional();
  expect(second).toEqual(first);
  const aliases = [...first.text.matchAll(/AS "(c\d+)"/g)].map((m) => m[1]);
  expect(aliases).toEqual(['c1', 'c2', 'c3', 'c4', 'c1', 'c2']);
  expect(first.values).toEqual(['r1', 'managed', 'g%']);
});

test('the sets of a constraint list give the same SQL text in any order: OR-ed in the order of their text', () => {
  const listed = constraintCondition(device, RELATIONAL, 7)!.toPositional();
  const reversed = constraintCondition(device, [...RELATIONAL].reverse(), 7)!.toPositional();
  expect(reversed).toEqual(listed);
});

test('the same constraint for another user differs only in its bound values', () => {
  const mine = constraintCondition(device, { site__tenant__name: '$user' }, 1)!.toPositional();
  const theirs = constraintCondition(device, { site__tenant__name: '$user' }, 2)!.toPositional();
  expect(theirs.text).toBe(mine.text);
  expect([mine.values, theirs.values]).toEqual([['1'], ['2']]);
});

describe('over HTTP', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  test('two identical requests of a caller restricted by a relational constraint send identical statements', async () => {
    const region = await t.api.post('/api/dcim/regions/').set(t.auth).send({ name: 'R1', slug: 'r1' });
    expect(region.status).toBe(201);
    const site = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'S1', slug: 's1', region: region.body.id });
    expect(site.status).toBe(201);
    const key = await t.makeToken({ username: 'constrained' });
    const user = await t.knex.raw(`SELECT "user_id" FROM "users_token" WHERE "key" = ?`, [key]);
    const perm = await t.api.post('/api/users/permissions/').set(t.auth).send({
      name: 'sites of r1', object_types: ['dcim.site'], actions: ['view'], constraints: { region__slug: 'r1', region__parent__isnull: true },
      users: [(user.rows as Array<{ user_id: number }>)[0]!.user_id],
    });
    expect(perm.status).toBe(201);
    const h = { Authorization: `Token ${key}` };
    const request = async (): Promise<string[]> => {
      t.queries.reset();
      const res = await t.api.get('/api/dcim/sites/?limit=5').set(h);
      expect([res.status, res.body.count]).toEqual([200, 1]);
      return [...t.queries.log];
    };
    await request(); // the first warms the caches (credentials, compiled representation)
    const second = await request();
    const third = await request();
    expect(third).toEqual(second);
    expect(second.join('\n')).toContain('AS "c1"');
  });

  test('two permissions each numbering from c1 are OR-ed in one statement: each alias lives in its own sub-select', async () => {
    const tenant = await t.api.post('/api/tenancy/tenants/').set(t.auth).send({ name: 'T1', slug: 't1' });
    const region = await t.api.post('/api/dcim/regions/').set(t.auth).send({ name: 'R2', slug: 'r2' });
    const made = await Promise.all([
      t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'In R2', slug: 'in-r2', region: region.body.id }),
      t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'Of T1', slug: 'of-t1', tenant: tenant.body.id }),
      t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'Neither', slug: 'neither' }),
    ]);
    expect(made.map((r) => r.status)).toEqual([201, 201, 201]);
    const key = await t.makeToken({ username: 'two-grants' });
    const user = await t.knex.raw(`SELECT "user_id" FROM "users_token" WHERE "key" = ?`, [key]);
    const userId = (user.rows as Array<{ user_id: number }>)[0]!.user_id;
    for (const constraints of [{ region__slug: 'r2' }, { tenant__slug: 't1' }]) {
      const perm = await t.api.post('/api/users/permissions/').set(t.auth).send({ name: `by ${Object.keys(constraints)[0]!}`, object_types: ['dcim.site'], actions: ['view'], constraints, users: [userId] });
      expect(perm.status).toBe(201);
    }
    t.queries.reset();
    const res = await t.api.get('/api/dcim/sites/?ordering=slug').set({ Authorization: `Token ${key}` });
    expect([res.status, res.body.results.map((s: { slug: string }) => s.slug)]).toEqual([200, ['in-r2', 'of-t1']]);
    expect(t.queries.log.join('\n').match(/AS "c1"/g)?.length).toBeGreaterThanOrEqual(2);
  });
});
