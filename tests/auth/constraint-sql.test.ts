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

test('building the same constraint twice gives identical SQL, numbered from c1 each time', () => {
  const first = constraintCondition(device, RELATIONAL, 7)!.toPositional();
  // Something else built in between must not shift the numbering.
  constraintCondition(registry.models.get('dcim.site')!, { region__parent__slug: 'x' }, 1);
  const second = constraintCondition(device, RELATIONAL, 7)!.toPositional();
  expect(second).toEqual(first);
  const aliases = [...first.text.matchAll(/AS "(c\d+)"/g)].map((m) => m[1]);
  expect(aliases).toEqual(['c1', 'c2', 'c3', 'c4', 'c5', 'c6']);
  expect(first.values).toEqual(['r1', 'managed', 'g%']);
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
});
