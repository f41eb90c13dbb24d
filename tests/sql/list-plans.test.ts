import pg from 'pg';
import { preparedName } from '../../engine/database/prepared-names';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * PostgreSQL keeps one generic plan for a list statement instead of planning the whole representation at
 * every request (engine/reads/read-statements.ts): a plain list page (no filter, so its WHERE binds no
 * value) carries its page size class as a literal LIMIT; a filtered page keeps a bound LIMIT and reads its
 * ids first, its rows by id after, so that its estimated cost does not depend on the filter's values. The
 * pages themselves are unchanged: sizes between classes, offsets and counts are checked against the rows.
 */

const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;
const SITES = 7;
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
  t.db.knex.on('query', (q) => seen.push({ text: q.sql, values: q.bindings }));
  for (let i = 1; i <= SITES; i++) {
    const res = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: `Site ${i}`, slug: `site-${i}` });
    expect(res.status).toBe(201);
  }
}, 120000);
afterAll(async () => {
  await t.close();
});

/** Every statement since the last request of listStatementOf, with its values. */
let seen: Array<{ text: string; values: readonly unknown[] }> = [];

/** The list statement one GET sends (the statement that builds "results"), with its values. */
async function listStatementOf(url: string): Promise<{ text: string; values: readonly unknown[] }> {
  seen = [];
  const res = await t.api.get(url).set(t.auth);
  expect([url, res.status]).toEqual([url, 200]);
  const lists = seen.filter((s) => s.text.includes('AS "results"'));
  expect([url, lists.length]).toEqual([url, 1]);
  return lists[0]!;
}

/** How PostgreSQL planned the statement after `runs` executions in one session: generic and custom plan counts. */
async function plansAfter(statement: { text: string; values: readonly unknown[] }, runs: number): Promise<{ generic: number; custom: number }> {
  if (!TEST_DATABASE_URL) {
    // PGlite: one session, the server's own, where the statement is prepared under its name.
    const row = await t.knex.raw<{ generic_plans: string; custom_plans: string }>(
      `SELECT "generic_plans", "custom_plans" FROM pg_prepared_statements WHERE "name" = ?`,
      [preparedName(statement.text)],
    );
    const r = row.rows[0]!;
    return { generic: Number(r.generic_plans), custom: Number(r.custom_plans) };
  }
  // PostgreSQL: the server's pool spreads requests over connections, so the statement runs here, in one session.
  const schema = (await t.knex.raw<{ s: string }>('SELECT current_schema() AS "s"')).rows[0]!.s;
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(`SET search_path TO "${schema}"`);
    for (let i = 0; i < runs; i++) await client.query({ name: 'probe', text: statement.text, values: [...statement.values] });
    const r = (await client.query(`SELECT "generic_plans", "custom_plans" FROM pg_prepared_statements WHERE "name" = 'probe'`)).rows[0];
    return { generic: Number(r.generic_plans), custom: Number(r.custom_plans) };
  } finally {
    await client.end();
  }
}

async function get(url: string): Promise<{ count: number; next: string | null; names: string[] }> {
  const res = await t.api.get(url).set(t.auth);
  expect([url, res.status]).toEqual([url, 200]);
  return { count: res.body.count, next: res.body.next, names: (res.body.results as Array<{ name: string }>).map((s) => s.name) };
}

describe('statement shapes', () => {
  test('a class size is a literal LIMIT; a size between classes is the next class cut by a bound value', async () => {
    expect((await listStatementOf('/api/dcim/sites/?limit=50')).text).toMatch(/ LIMIT 50\)/);
    const between = await listStatementOf('/api/dcim/sites/?limit=30');
    expect(between.text).toMatch(/ LIMIT 50\)/);
    expect(between.text).toMatch(/"__n" <= \$\d+::bigint/);
    expect(between.values).toContain(30);
  });

  test('a filtered page and a page past the largest class keep a bound LIMIT', async () => {
    expect((await listStatementOf('/api/dcim/sites/?slug=site-1&limit=50')).text).toMatch(/ LIMIT \$\d+\)/);
    expect((await listStatementOf('/api/dcim/sites/?limit=1000')).text).toMatch(/ LIMIT \$\d+\)/);
  });

  test('a filtered page reads its ids first, then its rows by id', async () => {
    expect((await listStatementOf('/api/dcim/sites/?slug__ic=site&limit=50')).text).toMatch(/unnest\(ARRAY\(SELECT "t"\."id" FROM "dcim_site"/);
    expect((await listStatementOf('/api/dcim/sites/?limit=50')).text).not.toMatch(/unnest\(ARRAY/);
  });

  test.each([
    ['plain', ''],
    ['filtered', 'slug__ic=site&'],
  ])('%s pages of every size and offset hold the rows they held with a bound LIMIT', async (_, filter) => {
    const all = (await get(`/api/dcim/sites/?${filter}limit=1000`)).names;
    expect(all).toHaveLength(SITES);
    expect(all).toEqual([...all].sort((a, b) => a.localeCompare(b, 'en', { numeric: true })));
    for (const limit of [1, 3, 10, 50, 100, 250, 251]) {
      for (const offset of [0, 1, 5, SITES, SITES + 2]) {
        const page = await get(`/api/dcim/sites/?${filter}limit=${limit}&offset=${offset}`);
        expect([limit, offset, page.count, page.names]).toEqual([limit, offset, SITES, all.slice(offset, offset + limit)]);
        expect([limit, offset, page.next !== null]).toEqual([limit, offset, offset + limit < SITES]);
      }
    }
  });
});

describe('plans', () => {
  // Enough rows that a bound LIMIT's guessed size (a tenth of the table) makes the generic plan look dearer
  // than the custom ones, as on any real table: with a handful of rows PostgreSQL keeps it either way.
  const TENANTS = 1000;
  const DEVICES = 4;
  const devices: number[] = [];
  beforeAll(async () => {
    for (let from = 0; from < TENANTS; from += 250) {
      const batch = Array.from({ length: 250 }, (_, i) => ({ name: `Tenant ${from + i}`, slug: `tenant-${from + i}` }));
      const res = await t.api.post('/api/tenancy/tenants/').set(t.auth).send(batch);
      expect(res.status).toBe(201);
    }
    const post = async (path: string, body: Record<string, unknown>): Promise<number> => {
      const res = await t.api.post(path).set(t.auth).send(body);
      expect([path, res.status]).toEqual([path, 201]);
      return res.body.id as number;
    };
    const site = await post('/api/dcim/sites/', { name: 'Plan site', slug: 'plan-site' });
    const manufacturer = await post('/api/dcim/manufacturers/', { name: 'Plan maker', slug: 'plan-maker' });
    const deviceType = await post('/api/dcim/device-types/', { manufacturer, model: 'Plan box', slug: 'plan-box' });
    const role = await post('/api/dcim/device-roles/', { name: 'Plan role', slug: 'plan-role' });
    for (let d = 0; d < DEVICES; d++) {
      devices.push(await post('/api/dcim/devices/', { name: `plan-${d}`, device_type: deviceType, role, site }));
      const batch = Array.from({ length: 250 }, (_, i) => ({ device: devices[d], name: `eth${i}`, type: '1000base-t' }));
      const res = await t.api.post('/api/dcim/interfaces/').set(t.auth).send(batch);
      expect(res.status).toBe(201);
    }
    await t.knex.raw('ANALYZE "tenancy_tenant"');
    await t.knex.raw('ANALYZE "dcim_interface"');
  }, 300000);

  test.each([
    ['a plain page', () => '/api/tenancy/tenants/?limit=50'],
    ['a filtered page', () => '/api/tenancy/tenants/?slug__ic=tenant-1&limit=50'],
    ['a filtered page of a large representation', () => `/api/dcim/interfaces/?device_id=${devices[1]}`],
  ])('PostgreSQL keeps a generic plan for %s', async (_, urlOf) => {
    const url = urlOf();
    const statement = await listStatementOf(url);
    for (let i = 0; i < 9; i++) await listStatementOf(url);
    const plans = await plansAfter(statement, 10);
    // plan_cache_mode auto: five custom plans, then the generic one is chosen and kept
    expect(plans.custom).toBeLessThanOrEqual(5);
    expect(plans.generic).toBeGreaterThanOrEqual(5);
  });
});
