import { startTestApp, type TestApp } from '../support/test-app';

/**
 * NetBox 3.7's L2VPNs and L2VPN terminations, written as definitions only: representations, a display
 * through a generic relation ("eth0 <> MyL2VPN (65000)", in the list's one statement), a point-to-point
 * type's cap of two terminations with NetBox's message (the type's label), and the terminations an
 * interface and a VLAN show.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let t: TestApp;
let dev: Json;

function norm(v: unknown): unknown {
  if (typeof v === 'string') return /^https?:\/\/[^/]+\/api\//.test(v) ? new URL(v).pathname : v;
  if (Array.isArray(v)) return v.map(norm);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, norm(x)]));
  return v;
}
async function post(p: string, body: unknown): Promise<Json> {
  const res = await t.api.post(`/api/${p}/`).set(t.auth).send(body as object);
  expect([p, res.status, res.status === 201 ? '' : res.text]).toEqual([p, 201, '']);
  return norm(res.body) as Json;
}
async function get(p: string): Promise<Json> {
  const res = await t.api.get(p.includes('?') ? `/api/${p}` : `/api/${p}/`).set(t.auth);
  expect([p, res.status, res.status === 200 ? '' : res.text]).toEqual([p, 200, '']);
  return norm(res.body) as Json;
}
let n = 0;
const iface = () => post('dcim/interfaces', { device: dev.id, name: `eth${n++}`, type: '1000base-t' });
const terminate = (l2vpn: Json, type: string, o: Json) => t.api.post('/api/vpn/l2vpn-terminations/').set(t.auth).send({ l2vpn: l2vpn.id, assigned_object_type: type, assigned_object_id: o.id });

beforeAll(async () => {
  t = await startTestApp();
  const site = await post('dcim/sites', { name: 'S1', slug: 's1' });
  const role = await post('dcim/device-roles', { name: 'R', slug: 'r' });
  const mf = await post('dcim/manufacturers', { name: 'M', slug: 'm' });
  const dt = await post('dcim/device-types', { manufacturer: mf.id, model: 'T', slug: 't' });
  dev = await post('dcim/devices', { name: 'pe1', device_type: dt.id, role: role.id, site: site.id });
});
afterAll(async () => {
  await t.close();
});

test('an L2VPN: NetBox\'s fields, display with its identifier, brief form, route targets', async () => {
  const rt = await post('ipam/route-targets', { name: '65000:100' });
  const vpn = await post('vpn/l2vpns', { name: 'Blue', slug: 'blue', type: 'vxlan-evpn', identifier: 10100, import_targets: [rt.id] });
  expect(Object.keys(vpn)).toEqual(['id', 'url', 'display', 'identifier', 'name', 'slug', 'type', 'import_targets', 'export_targets', 'description', 'comments', 'tenant', 'tags', 'custom_fields', 'created', 'last_updated']);
  expect([vpn.display, vpn.type, vpn.import_targets.map((x: Json) => x.name), vpn.export_targets]).toEqual(['Blue (10100)', { value: 'vxlan-evpn', label: 'VXLAN-EVPN' }, ['65000:100'], []]);
  expect((await get('vpn/l2vpns/?brief=1&import_target=65000:100')).results).toEqual([{ id: vpn.id, url: `/api/vpn/l2vpns/${vpn.id}/`, display: 'Blue (10100)', identifier: 10100, name: 'Blue', slug: 'blue', type: 'vxlan-evpn' }]);
  const plain = await post('vpn/l2vpns', { name: 'Plain', slug: 'plain', type: 'vpls' });
  expect(plain.display).toBe('Plain');
  const missing = await t.api.post('/api/vpn/l2vpns/').set(t.auth).send({ name: 'X', slug: 'x' });
  expect([missing.status, missing.body]).toEqual([400, { type: ['This field is required.'] }]);
});

test('a termination shows "<assigned object> <> <L2VPN>" and the interface and VLAN show their termination', async () => {
  const vpn = await post('vpn/l2vpns', { name: 'Green', slug: 'green', type: 'vpls', identifier: 7 });
  const eth = await iface();
  const vlan = await post('ipam/vlans', { vid: 300, name: 'cust300' });
  const te = await post('vpn/l2vpn-terminations', { l2vpn: vpn.id, assigned_object_type: 'dcim.interface', assigned_object_id: eth.id });
  expect(Object.keys(te)).toEqual(['id', 'url', 'display', 'l2vpn', 'assigned_object_type', 'assigned_object_id', 'assigned_object', 'tags', 'custom_fields', 'created', 'last_updated']);
  expect([te.display, te.l2vpn, te.assigned_object.id]).toEqual([`${eth.name} <> Green (7)`, { id: vpn.id, url: `/api/vpn/l2vpns/${vpn.id}/`, display: 'Green (7)', identifier: 7, name: 'Green', slug: 'green', type: 'vpls' }, eth.id]);
  const tv = await post('vpn/l2vpn-terminations', { l2vpn: vpn.id, assigned_object_type: 'ipam.vlan', assigned_object_id: vlan.id });
  expect(tv.display).toBe('cust300 (300) <> Green (7)');
  const brief = { id: te.id, url: `/api/vpn/l2vpn-terminations/${te.id}/`, display: te.display, l2vpn: te.l2vpn };
  expect((await get(`dcim/interfaces/${eth.id}`)).l2vpn_termination).toEqual(brief);
  expect((await get(`ipam/vlans/${vlan.id}`)).l2vpn_termination.id).toBe(tv.id);
  // The display follows the objects it shows.
  await t.api.patch(`/api/dcim/interfaces/${eth.id}/`).set(t.auth).send({ name: 'xe-0/0/0' }).expect(200);
  expect((await get(`vpn/l2vpn-terminations/${te.id}`)).display).toBe('xe-0/0/0 <> Green (7)');
  // Filters through the generic relation.
  expect((await get(`vpn/l2vpn-terminations/?device_id=${dev.id}`)).results.map((x: Json) => x.id)).toEqual([te.id]);
  expect((await get('vpn/l2vpn-terminations/?vlan_vid=300')).results.map((x: Json) => x.id)).toEqual([tv.id]);
  expect((await get('vpn/l2vpn-terminations/?assigned_object_type=ipam.vlan')).results.map((x: Json) => x.id)).toEqual([tv.id]);
  // One termination per object.
  const again = await terminate(vpn, 'dcim.interface', { id: eth.id });
  expect(again.status).toBe(400);
  // Deleting the interface takes its termination along.
  await t.api.delete(`/api/dcim/interfaces/${eth.id}/`).set(t.auth).expect(204);
  expect((await t.api.get(`/api/vpn/l2vpn-terminations/${te.id}/`).set(t.auth)).status).toBe(404);
});

test.each([
  ['vpws', 'VPWS'],
  ['epl', 'EPL'],
  ['ep-lan', 'Ethernet Private LAN'],
  ['ep-tree', 'Ethernet Private Tree'],
])('a point-to-point L2VPN (%s) takes two terminations; the third is refused with NetBox\'s message', async (type, label) => {
  const vpn = await post('vpn/l2vpns', { name: `p2p-${type}`, slug: `p2p-${type}`, type });
  for (let i = 0; i < 2; i++) expect((await terminate(vpn, 'dcim.interface', await iface())).status).toBe(201);
  const third = await terminate(vpn, 'dcim.interface', await iface());
  expect([third.status, third.body]).toEqual([400, { non_field_errors: [`${label} L2VPNs cannot have more than two terminations; found 2 already defined.`] }]);
  // Moving a termination of another L2VPN onto it is refused alike; a multipoint type takes any number.
  const multi = await post('vpn/l2vpns', { name: `mp-${type}`, slug: `mp-${type}`, type: 'vpls' });
  const moved = await post('vpn/l2vpn-terminations', { l2vpn: multi.id, assigned_object_type: 'dcim.interface', assigned_object_id: (await iface()).id });
  const patch = await t.api.patch(`/api/vpn/l2vpn-terminations/${moved.id}/`).set(t.auth).send({ l2vpn: vpn.id });
  expect([patch.status, patch.body]).toEqual([400, { non_field_errors: [`${label} L2VPNs cannot have more than two terminations; found 2 already defined.`] }]);
  for (let i = 0; i < 3; i++) expect((await terminate(multi, 'dcim.interface', await iface())).status).toBe(201);
});

test('a bulk create of three terminations on a point-to-point L2VPN is refused whole', async () => {
  const vpn = await post('vpn/l2vpns', { name: 'bulk', slug: 'bulk', type: 'vpws' });
  const ifs = [await iface(), await iface(), await iface()];
  const res = await t.api.post('/api/vpn/l2vpn-terminations/').set(t.auth).send(ifs.map((i) => ({ l2vpn: vpn.id, assigned_object_type: 'dcim.interface', assigned_object_id: i.id })));
  expect(res.status).toBe(400);
  expect((await get(`vpn/l2vpn-terminations/?l2vpn_id=${vpn.id}`)).count).toBe(0);
});

test('a list of terminations is one statement, whatever the types their displays reach through', async () => {
  const vpn = await post('vpn/l2vpns', { name: 'Many', slug: 'many', type: 'vpls' });
  for (let i = 0; i < 5; i++) await post('vpn/l2vpn-terminations', { l2vpn: vpn.id, assigned_object_type: 'dcim.interface', assigned_object_id: (await iface()).id });
  for (let i = 0; i < 5; i++) await post('vpn/l2vpn-terminations', { l2vpn: vpn.id, assigned_object_type: 'ipam.vlan', assigned_object_id: (await post('ipam/vlans', { vid: 400 + i, name: `v${i}` })).id });
  await t.knex.raw(`UPDATE "users_token" SET "last_used" = now() + interval '1 day' WHERE "key" = ?`, [t.token]);
  const url = `/api/vpn/l2vpn-terminations/?l2vpn_id=${vpn.id}&limit=100`;
  expect((await t.api.get(url).set(t.auth)).status).toBe(200);
  t.queries.reset();
  const res = await t.api.get(url).set(t.auth);
  expect(res.status).toBe(200);
  expect((res.body.results as Json[]).map((r) => r.display.endsWith(' <> Many'))).toEqual(Array(10).fill(true));
  expect(t.queries.log.length).toBe(1);
});
