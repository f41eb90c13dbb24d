/**
 * Filters comparing values of two rows or two fields, against fixtures worked out by hand: IP ranges'
 * contains (start_address <= address <= end_address, masks ignored, NetBox's IPRangeFilterSet) and FHRP
 * groups' related_ip (groups holding an address in the named address's subnet and VRF). The derived
 * suite has no oracle for these (filter-plan.ts: COMPARISONS_TEST).
 */
import { startTestApp, type TestApp } from '../support/test-app';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let t: TestApp;

async function post(p: string, body: unknown): Promise<Json> {
  const res = await t.api.post(`/api/${p}/`).set(t.auth).send(body as object);
  expect([p, res.status, res.status === 201 ? '' : res.text]).toEqual([p, 201, '']);
  return res.body as Json;
}

async function ids(p: string, query: string): Promise<number[]> {
  const res = await t.api.get(`/api/${p}/?${query}&limit=1000`).set(t.auth);
  expect([query, res.status]).toEqual([query, 200]);
  return (res.body.results as Json[]).map((r) => r.id as number).sort((a, b) => a - b);
}

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe('IP ranges: contains', () => {
  let r1: Json, r2: Json, r6: Json;
  beforeAll(async () => {
    r1 = await post('ipam/ip-ranges', { start_address: '10.0.0.10/24', end_address: '10.0.0.20/24' });
    // Ranges of one VRF may not overlap: the second is in another.
    const blue = await post('ipam/vrfs', { name: 'blue' });
    r2 = await post('ipam/ip-ranges', { start_address: '10.0.0.15/24', end_address: '10.0.0.30/24', vrf: blue.id });
    r6 = await post('ipam/ip-ranges', { start_address: '2001:db8::1/64', end_address: '2001:db8::ff/64' });
  });

  test('an address between the bounds, bounds included, whatever the masks', async () => {
    expect(await ids('ipam/ip-ranges', 'contains=10.0.0.12')).toEqual([r1.id]);
    expect(await ids('ipam/ip-ranges', 'contains=10.0.0.15')).toEqual(sorted([r1.id, r2.id]));
    expect(await ids('ipam/ip-ranges', 'contains=10.0.0.20/8')).toEqual(sorted([r1.id, r2.id]));
    expect(await ids('ipam/ip-ranges', 'contains=10.0.0.30')).toEqual([r2.id]);
    expect(await ids('ipam/ip-ranges', 'contains=10.0.0.9')).toEqual([]);
    expect(await ids('ipam/ip-ranges', 'contains=10.0.0.31')).toEqual([]);
  });

  test('families do not mix; repeated values OR', async () => {
    expect(await ids('ipam/ip-ranges', 'contains=2001:db8::10')).toEqual([r6.id]);
    expect(await ids('ipam/ip-ranges', 'contains=::ffff:10.0.0.12')).toEqual([]);
    expect(await ids('ipam/ip-ranges', 'contains=10.0.0.12&contains=2001:db8::1')).toEqual(sorted([r1.id, r6.id]));
  });

  test('a value that is no address is a 400 naming the parameter', async () => {
    const res = await t.api.get('/api/ipam/ip-ranges/?contains=not-an-ip').set(t.auth);
    expect([res.status, Object.keys(res.body as object)]).toEqual([400, ['contains']]);
  });
});

describe('FHRP groups: related_ip', () => {
  test('groups holding an address in the named address\'s subnet, in the same VRF', async () => {
    const red = await post('ipam/vrfs', { name: 'red' });
    const group = (n: number) => post('ipam/fhrp-groups', { protocol: 'vrrp2', group_id: n });
    const [g1, g2, g3] = [await group(1), await group(2), await group(3)];
    const assign = (address: string, g: Json, vrf?: Json) => post('ipam/ip-addresses', { address, vrf: vrf?.id ?? null, assigned_object_type: 'ipam.fhrpgroup', assigned_object_id: g.id });
    await assign('10.1.0.1/24', g1);
    await assign('10.1.0.2/24', g2, red);
    await assign('10.2.0.1/24', g3);
    const plain = await post('ipam/ip-addresses', { address: '10.1.0.50/24' });
    const inRed = await post('ipam/ip-addresses', { address: '10.1.0.60/24', vrf: red.id });
    const wide = await post('ipam/ip-addresses', { address: '10.0.0.1/8' });
    expect(await ids('ipam/fhrp-groups', `related_ip=${plain.id}`)).toEqual([g1.id]);
    expect(await ids('ipam/fhrp-groups', `related_ip=${inRed.id}`)).toEqual([g2.id]);
    expect(await ids('ipam/fhrp-groups', `related_ip=${plain.id}&related_ip=${inRed.id}`)).toEqual(sorted([g1.id, g2.id]));
    // A /8 holds both subnets of the global table.
    expect(await ids('ipam/fhrp-groups', `related_ip=${wide.id}`)).toEqual(sorted([g1.id, g3.id]));
    const res = await t.api.get('/api/ipam/fhrp-groups/?related_ip=999999').set(t.auth);
    expect([res.status, res.body]).toEqual([400, { related_ip: ['Select a valid choice. 999999 is not one of the available choices.'] }]);
  });
});

describe('interfaces: virtual_chassis_member and virtual_chassis_member_id (NetBox Device.vc_interfaces)', () => {
  test('the named device\'s own interfaces, and the other members\' unless management-only', async () => {
    const site = await post('dcim/sites', { name: 'S', slug: 's' });
    const role = await post('dcim/device-roles', { name: 'R', slug: 'r' });
    const mf = await post('dcim/manufacturers', { name: 'M', slug: 'm' });
    const dt = await post('dcim/device-types', { manufacturer: mf.id, model: 'T', slug: 't' });
    const vc = await post('dcim/virtual-chassis', { name: 'stack' });
    const device = (name: string, position?: number) => post('dcim/devices', { name, device_type: dt.id, role: role.id, site: site.id, ...(position ? { virtual_chassis: vc.id, vc_position: position } : {}) });
    const [d1, d2, d3] = [await device('sw1', 1), await device('sw2', 2), await device('lone')];
    const iface = (d: Json, name: string, mgmt = false) => post('dcim/interfaces', { device: d.id, name, type: '1000base-t', mgmt_only: mgmt });
    const [a, am, b, bm, c] = [await iface(d1, 'a'), await iface(d1, 'am', true), await iface(d2, 'b'), await iface(d2, 'bm', true), await iface(d3, 'c')];
    expect(await ids('dcim/interfaces', 'virtual_chassis_member=sw2')).toEqual(sorted([a.id, b.id, bm.id]));
    expect(await ids('dcim/interfaces', `virtual_chassis_member_id=${d1.id}`)).toEqual(sorted([a.id, am.id, b.id]));
    expect(await ids('dcim/interfaces', 'virtual_chassis_member=lone')).toEqual([c.id]);
    expect(await ids('dcim/interfaces', `virtual_chassis_member_id=${d3.id}&virtual_chassis_member_id=${d2.id}`)).toEqual(sorted([a.id, b.id, bm.id, c.id]));
    expect(await ids('dcim/interfaces', 'virtual_chassis_member=nosuch')).toEqual([]);
  });
});
