/**
 * The IPAM types beyond prefixes and addresses (ASNs, ASN ranges, IP ranges, FHRP groups and their
 * assignments, route targets, services and service templates) with NetBox 3.7's shapes, and the
 * definition words they brought: filter paths through many-to-many links both ways, integer-array
 * filters, non-empty lists, ordered / family / mask checks, display functions and overlapping ranges
 * refused under an advisory lock.
 */
import { startTestApp, type TestApp } from '../support/test-app';

type Json = Record<string, unknown>;
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

async function create(path: string, body: Json): Promise<Json> {
  const res = await t.api.post(path).set(t.auth).send(body);
  if (res.status !== 201) throw new Error(`POST ${path} ${JSON.stringify(body)} -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Json;
}
const post = (path: string, body: unknown) => t.api.post(path).set(t.auth).send(body as object);
const list = async (path: string): Promise<Json[]> => {
  const r = await t.api.get(path).set(t.auth);
  expect(r.status).toBe(200);
  return (r.body as { results: Json[] }).results;
};
const ids = (rows: Json[]) => rows.map((r) => r.id);

let rir: Json;
let site: Json;
let provider: Json;

beforeAll(async () => {
  rir = await create('/api/ipam/rirs/', { name: 'ARIN', slug: 'arin' });
  site = await create('/api/dcim/sites/', { name: 'S1', slug: 's1' });
  provider = await create('/api/circuits/providers/', { name: 'P1', slug: 'p1' });
});

describe('ASNs and ASN ranges', () => {
  test('an ASN shows AS65000, a 32-bit one its ASDOT form; sites and providers list it and it counts them', async () => {
    const a = await create('/api/ipam/asns/', { asn: 65000, rir: rir.id });
    const b = await create('/api/ipam/asns/', { asn: 4200000000, rir: rir.id });
    expect(a.display).toBe('AS65000');
    expect(b.display).toBe('AS4200000000 (64086.59904)');
    expect(Object.keys(a).sort()).toEqual(['asn', 'comments', 'created', 'custom_fields', 'description', 'display', 'id', 'last_updated', 'provider_count', 'rir', 'site_count', 'tags', 'tenant', 'url'].sort());
    const s = await t.api.patch(`/api/dcim/sites/${String(site.id)}/`).set(t.auth).send({ asns: [a.id, b.id] });
    expect(s.status).toBe(200);
    expect((s.body as { asns: Json[] }).asns.map((x) => x.display)).toEqual(['AS65000', 'AS4200000000 (64086.59904)']);
    await t.api.patch(`/api/circuits/providers/${String(provider.id)}/`).set(t.auth).send({ asns: [a.id] }).expect(200);
    const again = (await t.api.get(`/api/ipam/asns/${String(a.id)}/`).set(t.auth)).body as Json;
    expect([again.site_count, again.provider_count]).toEqual([1, 1]);
    const brief = (await t.api.get(`/api/ipam/asns/${String(a.id)}/?brief=1`).set(t.auth)).body as Json;
    expect({ ...brief, url: null }).toEqual({ id: a.id, url: null, display: 'AS65000', asn: 65000 });
    // Both ways through the many-to-many link.
    expect(ids(await list(`/api/ipam/asns/?site_id=${String(site.id)}`))).toEqual([a.id, b.id]);
    expect(ids(await list('/api/ipam/asns/?site=s1&asn__gte=70000'))).toEqual([b.id]);
    expect(ids(await list(`/api/ipam/asns/?site_id__n=${String(site.id)}`))).toEqual([]);
    expect(ids(await list(`/api/dcim/sites/?asn_id=${String(b.id)}`))).toEqual([site.id]);
    expect(ids(await list('/api/dcim/sites/?asn=65000'))).toEqual([site.id]);
    expect(ids(await list('/api/circuits/providers/?asn=4200000000'))).toEqual([]);
    expect((await t.api.get('/api/ipam/asns/?site_id=999999').set(t.auth)).status).toBe(400);
  });

  test('an ASN is unique and within 1..4294967295', async () => {
    expect((await post('/api/ipam/asns/', { asn: 65000, rir: rir.id })).body).toEqual({ asn: ['ASN with this ASN already exists.'] });
    expect((await post('/api/ipam/asns/', { asn: 4294967296, rir: rir.id })).body).toEqual({ asn: ['Ensure this value is less than or equal to 4294967295.'] });
  });

  test('an ASN range shows its name and span and refuses start >= end', async () => {
    const r = await create('/api/ipam/asn-ranges/', { name: 'Private', slug: 'private', rir: rir.id, start: 64512, end: 65534 });
    expect(r.display).toBe('Private (64512-65534)');
    const bad = await post('/api/ipam/asn-ranges/', { name: 'Bad', slug: 'bad', rir: rir.id, start: 100, end: 100 });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ non_field_errors: ['Starting ASN (100) must be lower than ending ASN (100).'] });
  });
});

describe('IP ranges', () => {
  test('shape, display, size and family as NetBox', async () => {
    const r = await create('/api/ipam/ip-ranges/', { start_address: '10.0.0.1/24', end_address: '10.0.0.100/24' });
    expect(r).toMatchObject({ display: '10.0.0.1-100/24', size: 100, family: { value: 4, label: 'IPv4' }, status: { value: 'active', label: 'Active' }, mark_utilized: false, vrf: null });
    const v6 = await create('/api/ipam/ip-ranges/', { start_address: '2001:db8::10/64', end_address: '2001:db8::1f/64' });
    expect(v6).toMatchObject({ display: '2001:db8::10-1f/64', size: 16, family: { value: 6, label: 'IPv6' } });
    // A range too wide for a 64-bit count is answered, with no size, rather than failing.
    const wide = await create('/api/ipam/ip-ranges/', { start_address: '2001:db8:8000::1/32', end_address: '2001:db8:ffff::1/32' });
    expect(wide.size).toBeNull();
    const listed = await list('/api/ipam/ip-ranges/?family=4');
    expect(listed.map((x) => [x.display, x.size])).toEqual([['10.0.0.1-100/24', 100]]);
    expect(ids(await list('/api/ipam/ip-ranges/?parent=10.0.0.0/16'))).toEqual([r.id]);
  });

  test('family, mask and order of the two ends are checked', async () => {
    const fam = await post('/api/ipam/ip-ranges/', { start_address: '10.1.0.1/24', end_address: '2001:db8::1/24' });
    expect(fam.body).toEqual({ end_address: ['Starting and ending IP address versions must match'] });
    const mask = await post('/api/ipam/ip-ranges/', { start_address: '10.1.0.1/24', end_address: '10.1.0.9/25' });
    expect(mask.body).toEqual({ end_address: ['Starting and ending IP address masks must match'] });
    const order = await post('/api/ipam/ip-ranges/', { start_address: '10.1.0.9/24', end_address: '10.1.0.1/24' });
    expect(order.body).toEqual({ end_address: ['Ending address must be lower than the starting address (10.1.0.9/24)'] });
  });

  test('overlapping ranges in one VRF are refused, in another VRF allowed, and concurrent writers cannot both pass', async () => {
    const overlap = await post('/api/ipam/ip-ranges/', { start_address: '10.0.0.50/24', end_address: '10.0.0.150/24' });
    expect(overlap.status).toBe(400);
    expect(overlap.body).toEqual({ non_field_errors: ['Defined addresses overlap with range 10.0.0.1-100/24 in VRF '] });
    const vrf = await create('/api/ipam/vrfs/', { name: 'Blue' });
    await create('/api/ipam/ip-ranges/', { start_address: '10.0.0.50/24', end_address: '10.0.0.150/24', vrf: vrf.id });
    // Ten writers at once, each a distinct range covering one common address: exactly one may win.
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => post('/api/ipam/ip-ranges/', { start_address: `10.9.0.${i + 1}/24`, end_address: '10.9.0.200/24' })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400)).toHaveLength(9);
    // A bulk write overlapping itself is refused whole.
    const bulk = await post('/api/ipam/ip-ranges/', [
      { start_address: '10.8.0.1/24', end_address: '10.8.0.10/24' },
      { start_address: '10.8.0.5/24', end_address: '10.8.0.20/24' },
    ]);
    expect(bulk.status).toBe(400);
    expect(await list('/api/ipam/ip-ranges/?parent=10.8.0.0/16')).toEqual([]);
  });
});

describe('route targets and VRFs', () => {
  test('VRFs import and export route targets, filtered from both sides', async () => {
    const rt1 = await create('/api/ipam/route-targets/', { name: '65000:1' });
    const rt2 = await create('/api/ipam/route-targets/', { name: '65000:2' });
    const red = await create('/api/ipam/vrfs/', { name: 'Red', rd: '65000:10', import_targets: [rt1.id, rt2.id], export_targets: [rt1.id] });
    expect((red.import_targets as Json[]).map((x) => x.name)).toEqual(['65000:1', '65000:2']);
    expect(ids(await list(`/api/ipam/route-targets/?importing_vrf_id=${String(red.id)}`))).toEqual([rt1.id, rt2.id]);
    expect(ids(await list(`/api/ipam/route-targets/?exporting_vrf_id=${String(red.id)}`))).toEqual([rt1.id]);
    expect(ids(await list('/api/ipam/route-targets/?exporting_vrf=65000:10'))).toEqual([rt1.id]);
    expect(ids(await list(`/api/ipam/route-targets/?exporting_vrf_id__n=${String(red.id)}`))).toEqual([rt2.id]);
    expect(ids(await list(`/api/ipam/vrfs/?import_target_id=${String(rt2.id)}`))).toEqual([red.id]);
    expect(ids(await list('/api/ipam/vrfs/?export_target=65000:2'))).toEqual([]);
  });
});

describe('services and templates', () => {
  let device: Json;
  beforeAll(async () => {
    const mf = await create('/api/dcim/manufacturers/', { name: 'M', slug: 'm' });
    const dt = await create('/api/dcim/device-types/', { manufacturer: mf.id, model: 'T', slug: 't' });
    const role = await create('/api/dcim/device-roles/', { name: 'R', slug: 'r' });
    device = await create('/api/dcim/devices/', { name: 'd1', device_type: dt.id, role: role.id, site: site.id });
  });

  test('display as NetBox, ports a non-empty list of 1..65535, port filter matches any listed port', async () => {
    const ssh = await create('/api/ipam/services/', { device: device.id, name: 'SSH', protocol: 'tcp', ports: [22] });
    const web = await create('/api/ipam/services/', { device: device.id, name: 'web', protocol: 'tcp', ports: [80, 81, 82, 443] });
    expect(ssh.display).toBe('SSH (TCP/22)');
    expect(web.display).toBe('web (TCP/80-82, 443)');
    expect(ssh).toMatchObject({ protocol: { value: 'tcp', label: 'TCP' }, ports: [22], ipaddresses: [], virtual_machine: null });
    expect(ids(await list('/api/ipam/services/?port=443'))).toEqual([web.id]);
    expect(ids(await list('/api/ipam/services/?port=22&port=81'))).toEqual([ssh.id, web.id]);
    expect((await t.api.get('/api/ipam/services/?port=abc').set(t.auth)).status).toBe(400);
    expect((await post('/api/ipam/services/', { device: device.id, name: 'x', protocol: 'tcp', ports: [] })).body).toEqual({ ports: ['Ensure this list has at least 1 elements.'] });
    expect((await post('/api/ipam/services/', { device: device.id, name: 'x', protocol: 'tcp', ports: [70000] })).status).toBe(400);
    expect((await post('/api/ipam/services/', { name: 'x', protocol: 'tcp', ports: [1] })).body).toEqual({ non_field_errors: ['A service must be associated with either a device or a virtual machine.'] });
    const tpl = await create('/api/ipam/service-templates/', { name: 'DNS', protocol: 'udp', ports: [53] });
    expect(tpl.display).toBe('DNS (UDP/53)');
    const brief = (await t.api.get(`/api/ipam/service-templates/${String(tpl.id)}/?brief=1`).set(t.auth)).body as Json;
    expect({ ...brief, url: null }).toEqual({ id: tpl.id, url: null, display: 'DNS (UDP/53)', name: 'DNS', protocol: 'udp', ports: [53] });
  });

  test('FHRP groups show their addresses and interfaces count their groups', async () => {
    const g = await create('/api/ipam/fhrp-groups/', { protocol: 'vrrp2', group_id: 10 });
    expect(g.display).toBe('VRRPv2: 10');
    const named = await create('/api/ipam/fhrp-groups/', { name: 'edge', protocol: 'hsrp', group_id: 1 });
    expect(named.display).toBe('edge HSRP: 1');
    await create('/api/ipam/ip-addresses/', { address: '10.5.0.1/24', assigned_object_type: 'ipam.fhrpgroup', assigned_object_id: g.id });
    const again = (await t.api.get(`/api/ipam/fhrp-groups/${String(g.id)}/`).set(t.auth)).body as Json;
    expect((again.ip_addresses as Json[]).map((x) => x.address)).toEqual(['10.5.0.1/24']);
    const iface = await create('/api/dcim/interfaces/', { device: device.id, name: 'eth0', type: '1000base-t' });
    const a = await create('/api/ipam/fhrp-group-assignments/', { group: g.id, interface_type: 'dcim.interface', interface_id: iface.id, priority: 100 });
    expect(a).toMatchObject({ group: { id: g.id, display: 'VRRPv2: 10', protocol: 'vrrp2', group_id: 10 }, interface_type: 'dcim.interface', interface_id: iface.id, priority: 100 });
    const dup = await post('/api/ipam/fhrp-group-assignments/', { group: g.id, interface_type: 'dcim.interface', interface_id: iface.id, priority: 50 });
    expect(dup.status).toBe(400);
    expect(ids(await list(`/api/ipam/fhrp-group-assignments/?device_id=${String(device.id)}`))).toEqual([a.id]);
    const i = (await t.api.get(`/api/dcim/interfaces/${String(iface.id)}/`).set(t.auth)).body as Json;
    expect(i.count_fhrp_groups).toBe(1);
  });
});
