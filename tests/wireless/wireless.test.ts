import { startTestApp, type TestApp } from '../support/test-app';

/**
 * NetBox 3.7's wireless app (wireless LAN groups, wireless LANs, wireless links), written as definitions
 * only: representations, NetBox's checks, and a wireless link as a cable-path segment (link peers,
 * connected endpoints, trace).
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let t: TestApp;
let site: Json;
let role: Json;
let dt: Json;
let n = 0;

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
/** Absolute API URLs reduced to their paths: supertest serves each request on a new port. */
function norm(v: unknown): unknown {
  if (typeof v === 'string') return /^https?:\/\/[^/]+\/api\//.test(v) ? new URL(v).pathname : v;
  if (Array.isArray(v)) return v.map(norm);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, norm(x)]));
  return v;
}
const device = () => post('dcim/devices', { name: `dev${++n}`, device_type: dt.id, role: role.id, site: site.id });
const iface = (d: Json, type = 'ieee802.11ac') => post('dcim/interfaces', { device: d.id, name: `wlan${++n}`, type });

beforeAll(async () => {
  t = await startTestApp();
  site = await post('dcim/sites', { name: 'S1', slug: 's1' });
  role = await post('dcim/device-roles', { name: 'R', slug: 'r' });
  const mf = await post('dcim/manufacturers', { name: 'M', slug: 'm' });
  dt = await post('dcim/device-types', { manufacturer: mf.id, model: 'T', slug: 't' });
});
afterAll(async () => {
  await t.close();
});

test('wireless LAN groups nest, count their LANs (descendants included) and have NetBox\'s brief form', async () => {
  const top = await post('wireless/wireless-lan-groups', { name: 'Campus', slug: 'campus' });
  const child = await post('wireless/wireless-lan-groups', { name: 'Building A', slug: 'building-a', parent: top.id });
  expect(Object.keys(child)).toEqual(['id', 'url', 'display', '_depth', 'parent', 'name', 'slug', 'description', 'tags', 'custom_fields', 'wirelesslan_count', 'created', 'last_updated']);
  expect(child.parent).toEqual({ id: top.id, url: child.parent.url, display: 'Campus', name: 'Campus', slug: 'campus', wirelesslan_count: 0, _depth: 0 });
  await post('wireless/wireless-lans', { ssid: 'corp', group: child.id });
  const again = await get(`wireless/wireless-lan-groups/${top.id}`);
  expect([again._depth, again.wirelesslan_count]).toEqual([0, 1]);
  const brief = await get('wireless/wireless-lan-groups/?brief=1&slug=building-a');
  expect(brief.results.map((r: Json) => Object.keys(r))).toEqual([['id', 'url', 'display', 'name', 'slug', 'wirelesslan_count', '_depth']]);
  const dup = await t.api.post('/api/wireless/wireless-lan-groups/').set(t.auth).send({ name: 'Campus', slug: 'campus2' });
  expect([dup.status, dup.body]).toEqual([400, { name: ['wireless LAN group with this name already exists.'] }]);
});

test('a wireless LAN: NetBox\'s fields, blank choices read as null, choices with labels, filters', async () => {
  const vlan = await post('ipam/vlans', { vid: 100, name: 'wifi' });
  const lan = await post('wireless/wireless-lans', { ssid: 'guest', vlan: vlan.id, status: 'reserved', auth_type: 'wpa-personal', auth_cipher: 'aes', auth_psk: 'hunter22' });
  expect(Object.keys(lan)).toEqual(['id', 'url', 'display', 'ssid', 'group', 'status', 'vlan', 'tenant', 'auth_type', 'auth_cipher', 'auth_psk', 'description', 'comments', 'tags', 'custom_fields', 'created', 'last_updated']);
  expect([lan.display, lan.status, lan.auth_type, lan.auth_cipher, lan.auth_psk, lan.vlan.id]).toEqual(['guest', { value: 'reserved', label: 'Reserved' }, { value: 'wpa-personal', label: 'WPA Personal (PSK)' }, { value: 'aes', label: 'AES' }, 'hunter22', vlan.id]);
  const open = await post('wireless/wireless-lans', { ssid: 'open' });
  expect([open.status.value, open.auth_type, open.auth_cipher, open.auth_psk]).toEqual(['active', null, null, '']);
  expect((await get('wireless/wireless-lans/?auth_type=wpa-personal')).results.map((r: Json) => r.ssid)).toEqual(['guest']);
  expect((await get(`wireless/wireless-lans/?vlan_id=${vlan.id}&brief=1`)).results).toEqual([{ id: lan.id, url: lan.url, display: 'guest', ssid: 'guest' }]);
  const bad = await t.api.post('/api/wireless/wireless-lans/').set(t.auth).send({ ssid: 'x'.repeat(33), auth_type: 'wpa3' });
  expect([bad.status, bad.body]).toEqual([400, { ssid: ['Ensure this field has no more than 32 characters.'], auth_type: ['"wpa3" is not a valid choice.'] }]);
});

test('an interface joins wireless LANs and shows them nested', async () => {
  const lan = await post('wireless/wireless-lans', { ssid: 'staff' });
  const i = await post('dcim/interfaces', { device: (await device()).id, name: 'wlan0', type: 'ieee802.11ax', wireless_lans: [lan.id] });
  expect(i.wireless_lans).toEqual([{ id: lan.id, url: lan.url, display: 'staff', ssid: 'staff' }]);
  expect([i.wireless_link, i.l2vpn_termination]).toEqual([null, null]);
});

test('a wireless link joins two wireless interfaces as a cable would: link peers, connected endpoints, trace', async () => {
  const [a, b] = [await iface(await device()), await iface(await device())];
  const link = await post('wireless/wireless-links', { interface_a: a.id, interface_b: b.id, ssid: 'bridge', auth_psk: 'secret-psk' });
  expect(Object.keys(link)).toEqual(['id', 'url', 'display', 'interface_a', 'interface_b', 'ssid', 'status', 'tenant', 'auth_type', 'auth_cipher', 'auth_psk', 'description', 'comments', 'tags', 'custom_fields', 'created', 'last_updated']);
  expect([link.display, link.status, link.interface_a.id, link.interface_b.name]).toEqual(['bridge', { value: 'connected', label: 'Connected' }, a.id, b.name]);
  const nested = { id: link.id, url: link.url, display: 'bridge', ssid: 'bridge' };
  const ia = await get(`dcim/interfaces/${a.id}`);
  expect(ia.wireless_link).toEqual(nested);
  expect([ia.link_peers.map((p: Json) => p.id), ia.link_peers_type, ia.connected_endpoints.map((p: Json) => p.id), ia.connected_endpoints_type, ia.connected_endpoints_reachable]).toEqual([[b.id], 'dcim.interface', [b.id], 'dcim.interface', true]);
  const ib = await get(`dcim/interfaces/${b.id}`);
  expect([ib.wireless_link, ib.link_peers.map((p: Json) => p.id), ib.connected_endpoints.map((p: Json) => p.id)]).toEqual([nested, [a.id], [a.id]]);
  const trace = await get(`dcim/interfaces/${a.id}/trace`);
  expect(trace.map((seg: Json[]) => [seg[0].map((x: Json) => x.id), seg[1].id, seg[1].url, seg[2].map((x: Json) => x.id)])).toEqual([[[a.id], link.id, `/api/wireless/wireless-links/${link.id}/`, [b.id]]]);

  // A planned link is not active: the far end is connected, not reachable.
  await t.api.patch(`/api/wireless/wireless-links/${link.id}/`).set(t.auth).send({ status: 'planned' }).expect(200);
  expect((await get(`dcim/interfaces/${a.id}`)).connected_endpoints_reachable).toBe(false);

  // Deleting the link drops the paths.
  await t.api.delete(`/api/wireless/wireless-links/${link.id}/`).set(t.auth).expect(204);
  const gone = await get(`dcim/interfaces/${a.id}`);
  expect([gone.wireless_link, gone.link_peers, gone.link_peers_type, gone.connected_endpoints, gone.connected_endpoints_reachable]).toEqual([null, [], null, null, null]);
  expect(await get(`dcim/interfaces/${a.id}/trace`)).toEqual([]);
});

test('moving a link to another interface retraces both the old and the new ends', async () => {
  const [a, b, c] = [await iface(await device()), await iface(await device()), await iface(await device())];
  const link = await post('wireless/wireless-links', { interface_a: a.id, interface_b: b.id });
  expect(link.display).toBe(`#${link.id}`);
  await t.api.patch(`/api/wireless/wireless-links/${link.id}/`).set(t.auth).send({ interface_b: c.id }).expect(200);
  expect((await get(`dcim/interfaces/${b.id}`)).connected_endpoints).toBeNull();
  expect((await get(`dcim/interfaces/${a.id}`)).connected_endpoints.map((x: Json) => x.id)).toEqual([c.id]);
  expect((await get(`dcim/interfaces/${c.id}`)).connected_endpoints.map((x: Json) => x.id)).toEqual([a.id]);
});

test('NetBox\'s checks: both ends wireless (reported on interface_a, with the type\'s label), one link per pair, interfaces protected', async () => {
  const [a, wired] = [await iface(await device()), await iface(await device(), '1000base-t')];
  const bad = await t.api.post('/api/wireless/wireless-links/').set(t.auth).send({ interface_a: a.id, interface_b: wired.id });
  expect([bad.status, bad.body]).toEqual([400, { interface_a: ['1000BASE-T (1GE) is not a wireless interface.'] }]);
  const b = await iface(await device());
  await post('wireless/wireless-links', { interface_a: a.id, interface_b: b.id });
  const dup = await t.api.post('/api/wireless/wireless-links/').set(t.auth).send({ interface_a: a.id, interface_b: b.id });
  expect([dup.status, dup.body]).toEqual([400, { non_field_errors: ['Wireless link with this Interface A and Interface B already exists.'] }]);
  const del = await t.api.delete(`/api/dcim/interfaces/${a.id}/`).set(t.auth);
  expect(del.status).toBe(409);
});
