/**
 * A list page reads the row pointing at each component (its cable termination, its path's origin, the
 * wireless link joining it) once per row, shared by the cabling fields (cable, cable_end, _occupied,
 * link_peers(_type), connected_endpoints(_type, _reachable), connection_status), not once per field:
 * EXPLAIN ANALYZE of the list statement, captured as the engine sent it, shows one scan of each table running
 * once per page row. The fields are those of the detail view (which keeps one sub-select per field), with
 * cables present: direct, through front and rear ports, half-built, console and power, and a wireless link.
 */
import { startTestApp, type TestApp } from '../support/test-app';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Loops'?: number;
  'Index Cond'?: string;
  Filter?: string;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

/** supertest serves each request on a port of its own: URLs are compared by their path. */
const withoutOrigin = (v: unknown): unknown => JSON.parse(JSON.stringify(v ?? null).replace(/https?:\/\/[^/"]+/g, ''));

/** Interfaces on the first device, most of them without a cable: a page's rows, against which the scans' loops are counted. */
const SPARE = 20;

let t: TestApp;
let n = 0;
const captured: Array<{ sql: string; bindings: unknown[] }> = [];

async function post(p: string, body: object): Promise<Json> {
  const res = await t.api.post(`/api/${p}/`).set(t.auth).send(body);
  expect([p, res.status, res.status === 201 ? '' : res.text]).toEqual([p, 201, '']);
  return res.body as Json;
}
const end = (type: string, o: Json) => ({ object_type: type, object_id: o.id as number });
const cable = (a: Array<ReturnType<typeof end>>, b: Array<ReturnType<typeof end>>, extra: object = {}) => post('dcim/cables', { a_terminations: a, b_terminations: b, ...extra });

beforeAll(async () => {
  t = await startTestApp();
  const site = await post('dcim/sites', { name: 'S1', slug: 's1' });
  const role = await post('dcim/device-roles', { name: 'R', slug: 'r' });
  const mf = await post('dcim/manufacturers', { name: 'M', slug: 'm' });
  const dt = await post('dcim/device-types', { manufacturer: mf.id, model: 'T', slug: 't' });
  const device = () => post('dcim/devices', { name: `dev${++n}`, device_type: dt.id, role: role.id, site: site.id });
  const iface = (d: Json, type = '1000base-t') => post('dcim/interfaces', { device: d.id, name: `eth${String(++n).padStart(3, '0')}`, type });
  const [d1, d2, panel1, panel2] = [await device(), await device(), await device(), await device()];
  const mine: Json[] = [];
  for (let i = 0; i < SPARE; i++) mine.push(await iface(d1));
  const [b1, b2, b3] = [await iface(d2), await iface(d2), await iface(d2)];
  // Direct.
  await cable([end('dcim.interface', mine[0]!)], [end('dcim.interface', b1)]);
  // Through two patch panels: interface → front → rear → rear → front → interface (a complete path).
  const rear1 = await post('dcim/rear-ports', { device: panel1.id, name: 'rear', type: 'lc', positions: 1 });
  const front1 = await post('dcim/front-ports', { device: panel1.id, name: 'front1', type: 'lc', rear_port: rear1.id, rear_port_position: 1 });
  const rear2 = await post('dcim/rear-ports', { device: panel2.id, name: 'rear', type: 'lc', positions: 1 });
  const front2 = await post('dcim/front-ports', { device: panel2.id, name: 'front1', type: 'lc', rear_port: rear2.id, rear_port_position: 1 });
  await cable([end('dcim.interface', mine[1]!)], [end('dcim.frontport', front1)]);
  await cable([end('dcim.rearport', rear1)], [end('dcim.rearport', rear2)]);
  await cable([end('dcim.frontport', front2)], [end('dcim.interface', b2)], { status: 'planned' });
  // Half-built: a cable to a front port whose rear port leads nowhere (a path, not complete).
  const panel3 = await device();
  const rear3 = await post('dcim/rear-ports', { device: panel3.id, name: 'rear', type: 'lc', positions: 2 });
  const front3 = await post('dcim/front-ports', { device: panel3.id, name: 'front1', type: 'lc', rear_port: rear3.id, rear_port_position: 1 });
  await post('dcim/front-ports', { device: panel3.id, name: 'front2', type: 'lc', rear_port: rear3.id, rear_port_position: 2 });
  await cable([end('dcim.interface', mine[2]!)], [end('dcim.frontport', front3)]);
  // Two interfaces on one end of a cable, one on the other.
  await cable([end('dcim.interface', mine[3]!), end('dcim.interface', mine[4]!)], [end('dcim.interface', b3)]);
  // A wireless link (no cable): link_peers shows the other interface.
  const [w1, w2] = [await iface(d1, 'ieee802.11ac'), await iface(d2, 'ieee802.11ac')];
  await post('wireless/wireless-links', { interface_a: w1.id, interface_b: w2.id, ssid: 'bridge' });
  // Console and power.
  const cp = await post('dcim/console-ports', { device: d1.id, name: 'con0' });
  const csp = await post('dcim/console-server-ports', { device: d2.id, name: 'port1' });
  await post('dcim/console-ports', { device: d1.id, name: 'con1' });
  await post('dcim/console-server-ports', { device: d2.id, name: 'port2' });
  await cable([end('dcim.consoleport', cp)], [end('dcim.consoleserverport', csp)]);
  const pp = await post('dcim/power-ports', { device: d1.id, name: 'psu0' });
  const po = await post('dcim/power-outlets', { device: d2.id, name: 'out1' });
  await post('dcim/power-ports', { device: d1.id, name: 'psu1' });
  await post('dcim/power-outlets', { device: d2.id, name: 'out2' });
  await cable([end('dcim.powerport', pp)], [end('dcim.poweroutlet', po)]);
  t.knex.on('query', (q) => captured.push({ sql: q.sql, bindings: [...q.bindings] }));
}, 180_000);

afterAll(async () => {
  await t?.close();
});

const CABLING = ['cable', 'cable_end', '_occupied', 'link_peers', 'link_peers_type', 'connected_endpoints', 'connected_endpoints_type', 'connected_endpoints_reachable', 'connection_status'];

test.each(['interfaces', 'front-ports', 'rear-ports', 'console-ports', 'console-server-ports', 'power-ports', 'power-outlets'])(
  'each %s of a list page is its detail view, cabling fields included',
  async (path) => {
    const list = await t.api.get(`/api/dcim/${path}/?limit=1000`).set(t.auth);
    expect(list.status).toBe(200);
    const rows = list.body.results as Json[];
    expect(rows.length).toBeGreaterThan(1);
    // Some row of every list is cabled, and some not: both branches of each field are compared.
    expect(rows.some((r) => r.cable !== null) && rows.some((r) => r.cable === null)).toBe(true);
    if (path === 'interfaces') {
      // A complete path, an incomplete one, and a wireless link's peer without a cable are among them.
      expect(rows.some((r) => r.connected_endpoints !== null) && rows.some((r) => r.cable !== null && r.connected_endpoints === null)).toBe(true);
      expect(rows.some((r) => r.cable === null && r.link_peers.length === 1 && r.link_peers_type === 'dcim.interface')).toBe(true);
    }
    for (const row of rows) {
      const detail = await t.api.get(`/api/dcim/${path}/${row.id}/`).set(t.auth);
      expect(detail.status).toBe(200);
      for (const field of CABLING) if (field in detail.body) expect({ id: row.id, field, value: withoutOrigin(row[field]) }).toEqual({ id: row.id, field, value: withoutOrigin(detail.body[field]) });
      expect(withoutOrigin(row)).toEqual(withoutOrigin(detail.body));
    }
  },
);

test('the interface list reads each component\'s termination and path origin once per row, not once per field', async () => {
  captured.length = 0;
  const res = await t.api.get('/api/dcim/interfaces/?limit=1000').set(t.auth);
  expect(res.status).toBe(200);
  expect((res.body.results as Json[]).length).toBeGreaterThan(SPARE);
  const statement = captured.find((c) => c.sql.includes('FROM "dcim_interface" AS "t"'))!;
  const explained = await t.knex.run({ text: `EXPLAIN (ANALYZE, FORMAT JSON) ${statement.sql}`, values: statement.bindings });
  const plan = nodes((explained.rows[0]!['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0]!.Plan);
  // Scans run that look a page row up by index, once per row ("t" is the page's alias; the planner may number it
  // "t_2"); a join reading the table once for the page has no such scan. Peers and nested objects are looked up by other keys.
  const pageRow = /\bt(_\d+)?\."id"|\bt(_\d+)?\.id\b/;
  const lookups = (table: string) => plan.filter((p) => p['Relation Name'] === table && (p['Actual Loops'] ?? 0) > 0 && pageRow.test(`${p['Index Cond'] ?? ''} ${p.Filter ?? ''}`)).length;
  // Before: five scans of the terminations (cable, cable_end, _occupied, link_peers, link_peers_type) and four of
  // the path ends, each run once per row.
  expect({ dcim_cabletermination: lookups('dcim_cabletermination') <= 1, dcim_cablepathend: lookups('dcim_cablepathend') <= 2 }).toEqual({ dcim_cabletermination: true, dcim_cablepathend: true });
});
