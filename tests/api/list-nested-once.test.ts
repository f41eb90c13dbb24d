/**
 * A list page builds each nested object once per distinct row it references, not once per row that
 * references it: 30 devices of one site, one device type and one role read each of those rows once
 * (EXPLAIN ANALYZE of the list statement, captured as the engine sent it: no scan of the referenced
 * tables runs more than one loop). The answer is the same as the detail view's nested objects, aliases included.
 */
import { startTestApp, type TestApp } from '../support/test-app';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

const DEVICES = 30;

/** supertest serves each request on a port of its own: URLs are compared by their path. */
const withoutOrigin = (v: unknown): unknown => JSON.parse(JSON.stringify(v ?? null).replace(/https?:\/\/[^/"]+/g, ''));

describe('nested objects of a list page', () => {
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
    const devices = Array.from({ length: DEVICES }, (_, i) => ({ name: `dev${String(i).padStart(2, '0')}`, site, device_type: deviceType, role, status: 'active' }));
    const res = await t.api.post('/api/dcim/devices/').set(t.auth).send(devices);
    expect(res.status).toBe(201);
    t.knex.on('query', (q) => captured.push({ sql: q.sql, bindings: [...q.bindings] }));
  }, 120_000);

  afterAll(async () => {
    await t?.close();
  });

  test('each referenced site, device type and role is read once, whatever the number of devices', async () => {
    captured.length = 0;
    const res = await t.api.get('/api/dcim/devices/?limit=100').set(t.auth);
    expect(res.status).toBe(200);
    expect(res.body.results).toHaveLength(DEVICES);
    const statement = captured.find((c) => c.sql.includes('FROM "dcim_device" AS "t"'))!;
    const explained = await t.knex.run({ text: `EXPLAIN (ANALYZE, FORMAT JSON) ${statement.sql}`, values: statement.bindings });
    const plan = nodes((explained.rows[0]!['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0]!.Plan);
    const loops = (table: string) => plan.filter((n) => n['Relation Name'] === table).map((n) => n['Actual Loops']);
    for (const table of ['dcim_site', 'dcim_devicetype', 'dcim_devicerole']) {
      const seen = loops(table);
      // Scans never reached (a branch for rows without the key) run 0 loops; none runs more than one.
      expect({ table, loops: seen, read: seen.includes(1) }).toEqual({ table, loops: seen.map((l) => Math.min(l ?? 0, 1)), read: true });
    }
  });

  test('the nested objects (and the aliases of a foreign key) are those of the detail view', async () => {
    const list = await t.api.get('/api/dcim/devices/?limit=100').set(t.auth);
    for (const d of list.body.results.slice(0, 3)) {
      const detail = await t.api.get(`/api/dcim/devices/${d.id}/`).set(t.auth);
      expect(detail.status).toBe(200);
      for (const field of ['site', 'device_type', 'role', 'device_role', 'tenant', 'rack', 'primary_ip', 'primary_ip4']) {
        expect({ field, value: withoutOrigin(d[field]) }).toEqual({ field, value: withoutOrigin(detail.body[field]) });
      }
      expect(d.device_type.manufacturer.name).toBe('Maker');
      expect(d.device_role).toEqual(d.role);
    }
  });
});
