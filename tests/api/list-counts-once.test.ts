/**
 * A list page reads its rows' counts (a device's interface_count) once for the page, not once per row: in the
 * EXPLAIN ANALYZE of the list statement, captured as the engine sent it, every scan of the counted table sits
 * in a CTE of the statement (run once), none in a sub-select run per row. The values are those of the detail
 * view (counts of 0 included), and the tags beside them unchanged.
 */
import { startTestApp, type TestApp } from '../support/test-app';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Subplan Name'?: string;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

/** Each scan of a table, with the CTE it is part of (null: the main query, or a sub-select of it run per row). */
function scansOf(plan: PlanNode, table: string, cte: string | null = null): Array<{ cte: string | null }> {
  const within = plan['Subplan Name']?.startsWith('CTE ') ? plan['Subplan Name'] : cte;
  const mine = plan['Relation Name'] === table ? [{ cte: within }] : [];
  return [...mine, ...(plan.Plans ?? []).flatMap((p) => scansOf(p, table, within))];
}

const DEVICES = 30;

/** supertest serves each request on a port of its own: URLs are compared by their path. */
const withoutOrigin = (v: unknown): unknown => JSON.parse(JSON.stringify(v ?? null).replace(/https?:\/\/[^/"]+/g, ''));

describe('counts of a list page', () => {
  let t: TestApp;
  const captured: Array<{ sql: string; bindings: unknown[] }> = [];

  beforeAll(async () => {
    t = await startTestApp();
    const post = async (path: string, body: object): Promise<number> => {
      const res = await t.api.post(path).set(t.auth).send(body);
      expect(res.status).toBe(201);
      return res.body.id as number;
    };
    const site = await post('/api/dcim/sites/', { name: 'Site 1', slug: 'site-1' });
    const manufacturer = await post('/api/dcim/manufacturers/', { name: 'Maker', slug: 'maker' });
    const deviceType = await post('/api/dcim/device-types/', { manufacturer, model: 'Model 1', slug: 'model-1' });
    const role = await post('/api/dcim/device-roles/', { name: 'Role 1', slug: 'role-1', color: '2196f3' });
    // Named so that their order by name is not their order by id.
    const tags = [await post('/api/extras/tags/', { name: 'Zulu', slug: 'zulu' }), await post('/api/extras/tags/', { name: 'Alpha', slug: 'alpha' })];
    const devices = Array.from({ length: DEVICES }, (_, i) => ({
      name: `dev${String(i).padStart(2, '0')}`,
      site,
      device_type: deviceType,
      role,
      status: 'active',
      tags: tags.slice(0, i % 3),
    }));
    const made = await t.api.post('/api/dcim/devices/').set(t.auth).send(devices);
    expect(made.status).toBe(201);
    // Device i has i % 4 interfaces: some none (a count of 0 where no row is grouped).
    const interfaces = (made.body as Array<{ id: number }>).flatMap((d, i) => Array.from({ length: i % 4 }, (_, k) => ({ device: d.id, name: `eth${k}`, type: '1000base-t' })));
    const res = await t.api.post('/api/dcim/interfaces/').set(t.auth).send(interfaces);
    expect(res.status).toBe(201);
    t.knex.on('query', (q) => captured.push({ sql: q.sql, bindings: [...q.bindings] }));
  }, 120_000);

  afterAll(async () => {
    await t?.close();
  });

  test('the interfaces are counted by one part of the statement, run once', async () => {
    captured.length = 0;
    // config_context matches by the device's tags too (a per-row read of its own, not this change's).
    const res = await t.api.get('/api/dcim/devices/?limit=100&exclude=config_context').set(t.auth);
    expect(res.status).toBe(200);
    expect(res.body.results).toHaveLength(DEVICES);
    const statement = captured.find((c) => c.sql.includes('FROM "dcim_device" AS "t"'))!;
    const explained = await t.knex.run({ text: `EXPLAIN (ANALYZE, FORMAT JSON) ${statement.sql}`, values: statement.bindings });
    const plan = (explained.rows[0]!['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0]!.Plan;
    for (const table of ['dcim_interface']) {
      const scans = scansOf(plan, table);
      expect({ table, read: scans.length > 0 }).toEqual({ table, read: true });
      // In a CTE (MATERIALIZED: built once); a per-row sub-select of the main query would run once per device.
      expect({ table, scans }).toEqual({ table, scans: scans.map(() => ({ cte: expect.stringMatching(/^CTE /) })) });
    }
  });

  test('the counts and tags are those written, and those of the detail view', async () => {
    const list = await t.api.get('/api/dcim/devices/?limit=100').set(t.auth);
    const shown = (list.body.results as Array<{ name: string; interface_count: number; tags: Array<{ name: string }> }>).map((d) => [d.name, d.interface_count, d.tags.map((tag) => tag.name)]);
    // Device i: i % 4 interfaces; tags Zulu (i % 3 >= 1) and Alpha (i % 3 == 2), listed by name.
    const expected = Array.from({ length: DEVICES }, (_, i) => [`dev${String(i).padStart(2, '0')}`, i % 4, i % 3 === 2 ? ['Alpha', 'Zulu'] : i % 3 === 1 ? ['Zulu'] : []]);
    expect(shown).toEqual(expected);
    for (const d of list.body.results.slice(0, 6)) {
      const detail = await t.api.get(`/api/dcim/devices/${d.id}/`).set(t.auth);
      expect(detail.status).toBe(200);
      for (const field of ['interface_count', 'console_port_count', 'tags']) {
        expect({ field, value: withoutOrigin(d[field]) }).toEqual({ field, value: withoutOrigin(detail.body[field]) });
      }
    }
  });
});
