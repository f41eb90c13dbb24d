/**
 * The catalog's cross-object behaviour, as NetBox 3.7 has it: checks refused with 400 naming the field
 * (a VID outside its group's range, a rack of another site, a circuit termination without a place),
 * circuit termination_a / termination_z, tree counts that include descendants, cable and interface
 * filters through terminations, and VLANs available on a device.
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

let n = 0;
const uniq = (base: string) => `${base}-${++n}`;

async function create(path: string, body: Json): Promise<Json> {
  const res = await t.api.post(path).set(t.auth).send(body);
  if (res.status !== 201) throw new Error(`POST ${path} ${JSON.stringify(body)} -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Json;
}

async function refused(method: 'post' | 'patch', path: string, body: Json): Promise<Json> {
  const res = await t.api[method](path).set(t.auth).send(body);
  expect({ status: res.status, path }).toEqual({ status: 400, path });
  return res.body as Json;
}

async function ids(path: string): Promise<number[]> {
  const res = await t.api.get(path).set(t.auth);
  expect({ status: res.status, path }).toEqual({ status: 200, path });
  return (res.body as { results: Json[] }).results.map((r) => r.id as number).sort((a, b) => a - b);
}

async function named(base: string, path: string, extra: Json = {}): Promise<Json> {
  const name = uniq(base);
  return create(path, { name, slug: name.toLowerCase(), ...extra });
}

/** A device with its own type, role and the given site (and extras). */
async function device(site: Json, extra: Json = {}): Promise<Json> {
  const manufacturer = await named('Mfr', '/api/dcim/manufacturers/');
  const type = await create('/api/dcim/device-types/', { manufacturer: manufacturer.id, model: uniq('Model'), slug: uniq('model') });
  const role = await named('Role', '/api/dcim/device-roles/');
  return create('/api/dcim/devices/', { name: uniq('dev'), device_type: type.id, role: role.id, site: site.id, ...extra });
}

describe('checks across related objects', () => {
  test('a VLAN VID outside its group range is 400 on vid, with the range; inside it is created', async () => {
    const group = await named('VG', '/api/ipam/vlan-groups/', { min_vid: 100, max_vid: 199 });
    const body = await refused('post', '/api/ipam/vlans/', { group: group.id, vid: 200, name: 'v200' });
    expect(body).toEqual({ vid: [`VID must be between 100 and 199 for VLANs in group ${String(group.name)}`] });
    const ok = await create('/api/ipam/vlans/', { group: group.id, vid: 150, name: 'v150' });
    // Moving it out of range by PATCH is refused too, and changes nothing.
    await refused('patch', `/api/ipam/vlans/${String(ok.id)}/`, { vid: 99 });
    const again = await t.api.get(`/api/ipam/vlans/${String(ok.id)}/`).set(t.auth);
    expect(again.body.vid).toBe(150);
  });

  test('a VLAN group whose max VID is below its min VID is 400 on max_vid', async () => {
    const name = uniq('VG');
    const body = await refused('post', '/api/ipam/vlan-groups/', { name, slug: name.toLowerCase(), min_vid: 300, max_vid: 200 });
    expect(body).toEqual({ max_vid: ['Maximum child VID must be greater than or equal to minimum child VID'] });
  });

  test('a device in a rack of another site is 400 on rack; a location of another site on location', async () => {
    const siteA = await named('SiteA', '/api/dcim/sites/');
    const siteB = await named('SiteB', '/api/dcim/sites/');
    const rackB = await create('/api/dcim/racks/', { name: uniq('R'), site: siteB.id });
    const locationB = await named('LocB', '/api/dcim/locations/', { site: siteB.id });
    const d = await device(siteA);
    expect(await refused('patch', `/api/dcim/devices/${String(d.id)}/`, { rack: rackB.id })).toEqual({
      rack: [`Rack ${String(rackB.name)} does not belong to site ${String(siteA.name)}.`],
    });
    expect(await refused('patch', `/api/dcim/devices/${String(d.id)}/`, { location: locationB.id })).toEqual({
      location: [`Location ${String(locationB.name)} does not belong to site ${String(siteA.name)}.`],
    });
    // Moving the device with its rack in one request is consistent, and accepted.
    const res = await t.api.patch(`/api/dcim/devices/${String(d.id)}/`).set(t.auth).send({ site: siteB.id, rack: rackB.id });
    expect(res.status).toBe(200);
  });

  test('a rack whose location is in another site is 400 on location', async () => {
    const siteA = await named('SiteA', '/api/dcim/sites/');
    const siteB = await named('SiteB', '/api/dcim/sites/');
    const locationB = await named('LocB', '/api/dcim/locations/', { site: siteB.id });
    expect(await refused('post', '/api/dcim/racks/', { name: uniq('R'), site: siteA.id, location: locationB.id })).toEqual({
      location: [`Assigned location must belong to parent site (${String(siteA.name)}).`],
    });
  });

  test('a circuit termination needs a site or a provider network, not both', async () => {
    const provider = await named('Prov', '/api/circuits/providers/');
    const type = await named('CT', '/api/circuits/circuit-types/');
    const circuit = await create('/api/circuits/circuits/', { cid: uniq('CID'), provider: provider.id, type: type.id });
    const site = await named('Site', '/api/dcim/sites/');
    const network = await create('/api/circuits/provider-networks/', { provider: provider.id, name: uniq('PN') });
    expect(await refused('post', '/api/circuits/circuit-terminations/', { circuit: circuit.id, term_side: 'A' })).toEqual({
      non_field_errors: ['A circuit termination must attach to either a site or a provider network.'],
    });
    expect(await refused('post', '/api/circuits/circuit-terminations/', { circuit: circuit.id, term_side: 'A', site: site.id, provider_network: network.id })).toEqual({
      non_field_errors: ['A circuit termination cannot attach to both a site and a provider network.'],
    });
  });

  test('a virtual machine needs a site or a cluster; its cluster must be in its site', async () => {
    expect(await refused('post', '/api/virtualization/virtual-machines/', { name: uniq('vm') })).toEqual({
      cluster: ['A virtual machine must be assigned to a site and/or cluster.'],
    });
    const siteA = await named('SiteA', '/api/dcim/sites/');
    const siteB = await named('SiteB', '/api/dcim/sites/');
    const ctype = await named('CType', '/api/virtualization/cluster-types/');
    const cluster = await create('/api/virtualization/clusters/', { name: uniq('C'), type: ctype.id, site: siteB.id });
    expect(await refused('post', '/api/virtualization/virtual-machines/', { name: uniq('vm'), site: siteA.id, cluster: cluster.id })).toEqual({
      cluster: [`The selected cluster (${String(cluster.name)}) is not assigned to this site (${String(siteA.name)}).`],
    });
  });

  test('an interface untagged VLAN of another site is 400; a global one is accepted', async () => {
    const siteA = await named('SiteA', '/api/dcim/sites/');
    const siteB = await named('SiteB', '/api/dcim/sites/');
    const d = await device(siteA);
    const foreign = await create('/api/ipam/vlans/', { vid: 10, name: uniq('vb'), site: siteB.id });
    const global = await create('/api/ipam/vlans/', { vid: 11, name: uniq('vg') });
    const body = await refused('post', '/api/dcim/interfaces/', { device: d.id, name: 'eth0', type: '1000base-t', mode: 'access', untagged_vlan: foreign.id });
    expect(body).toEqual({
      untagged_vlan: [`The untagged VLAN (${String(foreign.name)} (10)) must belong to the same site as the interface's parent device, or it must be global.`],
    });
    await create('/api/dcim/interfaces/', { device: d.id, name: 'eth0', type: '1000base-t', mode: 'access', untagged_vlan: global.id });
  });

  test('in a bulk create a broken check is that element\'s error, and nothing is created', async () => {
    const group = await named('VG', '/api/ipam/vlan-groups/', { min_vid: 10, max_vid: 20 });
    const before = (await ids(`/api/ipam/vlans/?group_id=${String(group.id)}`)).length;
    const res = await t.api.post('/api/ipam/vlans/').set(t.auth).send([
      { group: group.id, vid: 15, name: 'ok' },
      { group: group.id, vid: 25, name: 'bad' },
    ]);
    expect(res.status).toBe(400);
    expect(res.body).toEqual([{}, { vid: [`VID must be between 10 and 20 for VLANs in group ${String(group.name)}`] }]);
    expect((await ids(`/api/ipam/vlans/?group_id=${String(group.id)}`)).length).toBe(before);
  });
});

describe('case-insensitive names', () => {
  test('device names are unique per site without regard to case, as NetBox (Lower(name))', async () => {
    const site = await named('Site', '/api/dcim/sites/');
    const d = await device(site, { name: 'Leaf-CI' });
    const res = await t.api.post('/api/dcim/devices/').set(t.auth).send({ name: 'leaf-ci', device_type: (d.device_type as Json).id, role: (d.role as Json).id, site: site.id });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ non_field_errors: ['Device name must be unique per site.'] });
    const elsewhere = await named('Other', '/api/dcim/sites/');
    await device(elsewhere, { name: 'leaf-ci' });
  });
});

describe('circuit termination_a and termination_z', () => {
  test('each is the termination of that side with its site and speeds, or null', async () => {
    const provider = await named('Prov', '/api/circuits/providers/');
    const type = await named('CT', '/api/circuits/circuit-types/');
    const site = await named('Site', '/api/dcim/sites/');
    const circuit = await create('/api/circuits/circuits/', { cid: uniq('CID'), provider: provider.id, type: type.id });
    const a = await create('/api/circuits/circuit-terminations/', { circuit: circuit.id, term_side: 'A', site: site.id, port_speed: 10000, xconnect_id: 'XC-9' });
    const res = await t.api.get(`/api/circuits/circuits/${String(circuit.id)}/`).set(t.auth);
    // Each supertest request has its own port: compare URLs by path.
    const paths = (v: unknown): unknown => JSON.parse(JSON.stringify(v).replace(/http:\/\/[^/"]+/g, ''));
    expect(paths(res.body.termination_a)).toEqual({
      id: a.id,
      url: paths(a.url),
      display: 'Termination A',
      site: { id: site.id, url: paths(site.url), display: site.name, name: site.name, slug: site.slug },
      provider_network: null,
      port_speed: 10000,
      upstream_speed: null,
      xconnect_id: 'XC-9',
      description: '',
    });
    expect(res.body.termination_z).toBeNull();
    // In the list too, and a page of circuits filters by the terminations' site.
    expect(await ids(`/api/circuits/circuits/?site_id=${String(site.id)}`)).toEqual([circuit.id]);
  });
});

describe('tree counts include descendants', () => {
  test('a region counts the sites of its child regions; a location the devices of its children', async () => {
    const top = await named('Top', '/api/dcim/regions/');
    const child = await named('Child', '/api/dcim/regions/', { parent: top.id });
    await named('S1', '/api/dcim/sites/', { region: top.id });
    const s2 = await named('S2', '/api/dcim/sites/', { region: child.id });
    const topRead = await t.api.get(`/api/dcim/regions/${String(top.id)}/`).set(t.auth);
    const childRead = await t.api.get(`/api/dcim/regions/${String(child.id)}/`).set(t.auth);
    expect([topRead.body.site_count, childRead.body.site_count]).toEqual([2, 1]);
    const loc = await named('L', '/api/dcim/locations/', { site: s2.id });
    const sub = await named('Sub', '/api/dcim/locations/', { site: s2.id, parent: loc.id });
    await device(s2, { location: sub.id });
    const locRead = await t.api.get(`/api/dcim/locations/${String(loc.id)}/`).set(t.auth);
    expect(locRead.body.device_count).toBe(1);
  });
});

describe('prefix hierarchy', () => {
  test('children and _depth count the prefixes inside and around, in the same VRF only', async () => {
    const vrf = await create('/api/ipam/vrfs/', { name: uniq('VRF') });
    const p = async (prefix: string, extra: Json = {}) => (await create('/api/ipam/prefixes/', { prefix, ...extra })).id as number;
    const top = await p('10.77.0.0/16');
    const mid = await p('10.77.1.0/24');
    const leaf = await p('10.77.1.0/26');
    await p('10.77.1.64/26', { vrf: vrf.id });
    const res = await t.api.get(`/api/ipam/prefixes/?id=${top}&id=${mid}&id=${leaf}&ordering=prefix`).set(t.auth);
    const got = (res.body as { results: Json[] }).results.map((x) => [x.prefix, x.children, x._depth]);
    expect(got).toEqual([
      ['10.77.0.0/16', 2, 0],
      ['10.77.1.0/24', 1, 1],
      ['10.77.1.0/26', 0, 2],
    ]);
  });
});

describe('cables and interfaces filtered through terminations', () => {
  let siteA: Json;
  let siteB: Json;
  let d1: Json;
  let d2: Json;
  let i1: Json;
  let i2: Json;
  let i3: Json;
  let ct: Json;
  let cableDevices: Json;
  let cableCircuit: Json;
  let vlan: Json;

  beforeAll(async () => {
    siteA = await named('SiteA', '/api/dcim/sites/');
    siteB = await named('SiteB', '/api/dcim/sites/');
    d1 = await device(siteA);
    d2 = await device(siteA);
    vlan = await create('/api/ipam/vlans/', { vid: 30, name: uniq('v30') });
    i1 = await create('/api/dcim/interfaces/', { device: d1.id, name: 'xe-0', type: '10gbase-x-sfpp' });
    i2 = await create('/api/dcim/interfaces/', { device: d2.id, name: 'xe-0', type: '10gbase-x-sfpp' });
    i3 = await create('/api/dcim/interfaces/', { device: d2.id, name: 'xe-1', type: '10gbase-x-sfpp', mode: 'tagged', tagged_vlans: [vlan.id] });
    await create('/api/dcim/interfaces/', { device: d1.id, name: 'mgmt', type: '1000base-t', mark_connected: true });
    const provider = await named('Prov', '/api/circuits/providers/');
    const ctype = await named('CT', '/api/circuits/circuit-types/');
    const circuit = await create('/api/circuits/circuits/', { cid: uniq('CID'), provider: provider.id, type: ctype.id });
    ct = await create('/api/circuits/circuit-terminations/', { circuit: circuit.id, term_side: 'A', site: siteB.id });
    cableDevices = await create('/api/dcim/cables/', {
      a_terminations: [{ object_type: 'dcim.interface', object_id: i1.id }],
      b_terminations: [{ object_type: 'dcim.interface', object_id: i2.id }],
    });
    cableCircuit = await create('/api/dcim/cables/', {
      a_terminations: [{ object_type: 'dcim.interface', object_id: i3.id }],
      b_terminations: [{ object_type: 'circuits.circuittermination', object_id: ct.id }],
    });
  });

  test.each([
    ['device_id of either end', () => `device_id=${String(d1.id)}`, () => [cableDevices.id]],
    ['device by name', () => `device=${encodeURIComponent(String(d2.name))}`, () => [cableDevices.id, cableCircuit.id]],
    ['interface_id', () => `interface_id=${String(i2.id)}`, () => [cableDevices.id]],
    ['circuittermination_id', () => `circuittermination_id=${String(ct.id)}`, () => [cableCircuit.id]],
    ['site_id through a device or a circuit termination', () => `site_id=${String(siteB.id)}`, () => [cableCircuit.id]],
    ['termination_a_type + termination_a_id', () => `termination_a_type=dcim.interface&termination_a_id=${String(i1.id)}`, () => [cableDevices.id]],
    ['termination_b_type', () => `termination_b_type=circuits.circuittermination&device_id=${String(d2.id)}`, () => [cableCircuit.id]],
    ['device_id__n: neither end on the device', () => `device_id__n=${String(d1.id)}&site_id=${String(siteB.id)}`, () => [cableCircuit.id]],
  ])('cables: %s', async (_what, query, want) => {
    expect(await ids(`/api/dcim/cables/?${query()}`)).toEqual((want() as number[]).sort((a, b) => a - b));
  });

  test('an unknown device id is a 400 naming the parameter', async () => {
    const res = await t.api.get('/api/dcim/cables/?device_id=999999').set(t.auth);
    expect(res.status).toBe(400);
    expect(Object.keys(res.body as Json)).toEqual(['device_id']);
  });

  test('interfaces: cabled, occupied (a cable or marked connected), vlan_id (untagged or tagged)', async () => {
    const onD1 = `device_id=${String(d1.id)}`;
    const all = await ids(`/api/dcim/interfaces/?${onD1}`);
    expect(await ids(`/api/dcim/interfaces/?${onD1}&cabled=true`)).toEqual([i1.id]);
    expect(await ids(`/api/dcim/interfaces/?${onD1}&cabled=false`)).toEqual(all.filter((id) => id !== i1.id));
    expect(await ids(`/api/dcim/interfaces/?${onD1}&occupied=true`)).toEqual(all);
    expect(await ids(`/api/dcim/interfaces/?${onD1}&occupied=false`)).toEqual([]);
    expect(await ids(`/api/dcim/interfaces/?vlan_id=${String(vlan.id)}`)).toEqual([i3.id]);
  });
});

describe('VLANs available on a device', () => {
  test('group scoped to the site, its region or a parent region, the site itself, and global ones; not another site', async () => {
    const parent = await named('RP', '/api/dcim/regions/');
    const region = await named('RC', '/api/dcim/regions/', { parent: parent.id });
    const site = await named('Here', '/api/dcim/sites/', { region: region.id });
    const other = await named('There', '/api/dcim/sites/');
    const d = await device(site);
    const scoped = async (scopeType: string, scopeId: unknown) => named('G', '/api/ipam/vlan-groups/', { scope_type: scopeType, scope_id: scopeId });
    const inGroup = async (group: Json) => (await create('/api/ipam/vlans/', { vid: 100, name: uniq('v'), group: group.id })).id as number;
    const want = [
      await inGroup(await scoped('dcim.region', parent.id)),
      await inGroup(await scoped('dcim.region', region.id)),
      await inGroup(await scoped('dcim.site', site.id)),
      await inGroup(await named('Unscoped', '/api/ipam/vlan-groups/')),
      (await create('/api/ipam/vlans/', { vid: 101, name: uniq('v'), site: site.id })).id as number,
      (await create('/api/ipam/vlans/', { vid: 102, name: uniq('v') })).id as number,
    ];
    const notWanted = [
      await inGroup(await scoped('dcim.site', other.id)),
      (await create('/api/ipam/vlans/', { vid: 103, name: uniq('v'), site: other.id })).id as number,
    ];
    const got = await ids(`/api/ipam/vlans/?available_on_device=${String(d.id)}&limit=1000`);
    expect(want.filter((id) => !got.includes(id))).toEqual([]);
    expect(notWanted.filter((id) => got.includes(id))).toEqual([]);
    // Global VLANs from other tests are available too; everything listed is one of those or wanted.
    const res = await t.api.get(`/api/ipam/vlans/?id=${got.join('&id=')}&limit=1000`).set(t.auth);
    for (const v of (res.body as { results: Json[] }).results) {
      if (want.includes(v.id as number)) continue;
      expect({ id: v.id, site: v.site }).toEqual({ id: v.id, site: null });
    }
  });
});
