/**
 * Filters that follow a generic relation backwards (the rows of another type pointing at the listed
 * object), against fixtures worked out by hand: cable_end and connected on cabled components, contact,
 * contact_role and contact_group on types with contacts, l2vpn and l2vpn_id on VLANs and interfaces, and
 * created_by_request / updated_by_request / modified_by_request from the change log. The derived suite
 * cannot build these rows itself (cable paths and the change log are written by the engine, not posted).
 */
import { startTestApp, type TestApp } from '../support/test-app';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let t: TestApp;
let n = 0;

async function post(p: string, body: unknown): Promise<Json> {
  const res = await t.api.post(`/api/${p}/`).set(t.auth).send(body as object);
  expect([p, res.status, res.status === 201 ? '' : res.text]).toEqual([p, 201, '']);
  // The request id the change log holds for this write.
  return { ...(res.body as Json), requestId: res.headers['x-request-id'] as string };
}

/** The ids a filtered list returns, sorted; any other status fails. */
async function ids(p: string, query: string): Promise<number[]> {
  const res = await t.api.get(`/api/${p}/?${query}&limit=1000`).set(t.auth);
  expect([query, res.status]).toEqual([query, 200]);
  return (res.body.results as Json[]).map((r) => r.id as number).sort((a, b) => a - b);
}

async function refused(p: string, query: string): Promise<Json> {
  const res = await t.api.get(`/api/${p}/?${query}`).set(t.auth);
  expect([query, res.status]).toEqual([query, 400]);
  return res.body as Json;
}

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const end = (type: string, o: Json) => ({ object_type: type, object_id: o.id });

let site: Json;
let site2: Json;
let site3: Json;
let device: Json;

beforeAll(async () => {
  t = await startTestApp();
  site = await post('dcim/sites', { name: 'S1', slug: 's1' });
  site2 = await post('dcim/sites', { name: 'S2', slug: 's2' });
  site3 = await post('dcim/sites', { name: 'S3', slug: 's3' });
  const role = await post('dcim/device-roles', { name: 'R', slug: 'r' });
  const mf = await post('dcim/manufacturers', { name: 'M', slug: 'm' });
  const dt = await post('dcim/device-types', { manufacturer: mf.id, model: 'T', slug: 't' });
  device = await post('dcim/devices', { name: 'dev', device_type: dt.id, role: role.id, site: site.id });
});
afterAll(async () => {
  await t?.close();
});

const iface = () => post('dcim/interfaces', { device: device.id, name: `eth${++n}`, type: '1000base-t' });

describe('cable_end and connected, read from the cable termination and the stored path', () => {
  let a: Json, b: Json, c: Json, d: Json, loose: Json;
  beforeAll(async () => {
    [a, b, c, d, loose] = [await iface(), await iface(), await iface(), await iface(), await iface()];
    await post('dcim/cables', { a_terminations: [end('dcim.interface', a)], b_terminations: [end('dcim.interface', b)] });
    // A planned cable: its path is traced but not active.
    await post('dcim/cables', { a_terminations: [end('dcim.interface', c)], b_terminations: [end('dcim.interface', d)], status: 'planned' });
  });

  test('cable_end matches the end the object is on; __n keeps the uncabled; a value outside the choices is a 400', async () => {
    const mine = (xs: number[]) => xs.filter((x) => [a.id, b.id, c.id, d.id, loose.id].includes(x));
    expect(mine(await ids('dcim/interfaces', 'cable_end=A'))).toEqual(sorted([a.id, c.id]));
    expect(mine(await ids('dcim/interfaces', 'cable_end=B'))).toEqual(sorted([b.id, d.id]));
    expect(mine(await ids('dcim/interfaces', 'cable_end__n=A'))).toEqual(sorted([b.id, d.id, loose.id]));
    expect(await refused('dcim/interfaces', 'cable_end=C')).toEqual({ cable_end: ['Select a valid choice. C is not one of the available choices.'] });
  });

  test('connected=true: the path from the object is active; false: inactive or no path at all (NetBox _path__is_active)', async () => {
    const mine = (xs: number[]) => xs.filter((x) => [a.id, b.id, c.id, d.id, loose.id].includes(x));
    expect(mine(await ids('dcim/interfaces', 'connected=true'))).toEqual(sorted([a.id, b.id]));
    expect(mine(await ids('dcim/interfaces', 'connected=false'))).toEqual(sorted([c.id, d.id, loose.id]));
    expect(await refused('dcim/interfaces', 'connected=maybe')).toEqual({ connected: [expect.any(String)] });
  });

  test('connected on power: a power port cabled to an outlet', async () => {
    const port = await post('dcim/power-ports', { device: device.id, name: 'psu1' });
    const idle = await post('dcim/power-ports', { device: device.id, name: 'psu2' });
    const outlet = await post('dcim/power-outlets', { device: device.id, name: 'out1' });
    await post('dcim/cables', { a_terminations: [end('dcim.powerport', port)], b_terminations: [end('dcim.poweroutlet', outlet)] });
    expect(await ids('dcim/power-ports', 'connected=true')).toEqual([port.id]);
    expect(await ids('dcim/power-ports', 'connected=false')).toEqual([idle.id]);
    expect(await ids('dcim/power-outlets', 'connected=true')).toEqual([outlet.id]);
    expect(await ids('dcim/power-ports', 'cable_end=A')).toEqual([port.id]);
  });
});

describe('contact, contact_role and contact_group, through the contact assignments pointing at the object', () => {
  let alice: Json, bob: Json, admin: Json, tech: Json, parent: Json;
  beforeAll(async () => {
    parent = await post('tenancy/contact-groups', { name: 'Parent', slug: 'parent' });
    const child = await post('tenancy/contact-groups', { name: 'Child', slug: 'child', parent: parent.id });
    alice = await post('tenancy/contacts', { name: 'Alice' });
    bob = await post('tenancy/contacts', { name: 'Bob', group: child.id });
    admin = await post('tenancy/contact-roles', { name: 'Admin', slug: 'admin' });
    tech = await post('tenancy/contact-roles', { name: 'Tech', slug: 'tech' });
    await post('tenancy/contact-assignments', { content_type: 'dcim.site', object_id: site.id, contact: alice.id, role: admin.id });
    await post('tenancy/contact-assignments', { content_type: 'dcim.site', object_id: site2.id, contact: bob.id, role: tech.id });
    await post('tenancy/contact-assignments', { content_type: 'dcim.site', object_id: site2.id, contact: alice.id, role: tech.id });
    // A device: another type, whose id is a site's id too (both tables start at 1), must not count for sites.
    await post('tenancy/contact-assignments', { content_type: 'dcim.device', object_id: device.id, contact: bob.id, role: admin.id });
  });

  test('by contact id, repeated values OR, __n none of them', async () => {
    expect(await ids('dcim/sites', `contact=${alice.id}`)).toEqual(sorted([site.id, site2.id]));
    expect(await ids('dcim/sites', `contact=${bob.id}`)).toEqual([site2.id]);
    expect(await ids('dcim/sites', `contact__n=${bob.id}`)).toEqual(sorted([site.id, site3.id]));
    expect(await ids('dcim/devices', `contact=${bob.id}`)).toEqual([device.id]);
    expect(await ids('dcim/devices', `contact=${alice.id}`)).toEqual([]);
  });

  test('by role, and by group with its descendants (NetBox TreeNodeMultipleChoiceFilter)', async () => {
    expect(device.id).toBe(site.id);
    expect(await ids('dcim/sites', `contact_role=${admin.id}`)).toEqual([site.id]);
    expect(await ids('dcim/sites', `contact=${bob.id}&contact_role=${admin.id}`)).toEqual([]);
    expect(await ids('dcim/sites', `contact_role=${tech.id}`)).toEqual([site2.id]);
    expect(await ids('dcim/sites', `contact_group=${parent.id}`)).toEqual([site2.id]);
  });

  test('an id that is no contact is a 400, as NetBox', async () => {
    expect(await refused('dcim/sites', 'contact=999999')).toEqual({ contact: ['Select a valid choice. 999999 is not one of the available choices.'] });
  });
});

describe('l2vpn and l2vpn_id, through the L2VPN terminations pointing at the object', () => {
  test('VLANs and interfaces by the L2VPN id and by its identifier', async () => {
    const vpn = await post('vpn/l2vpns', { name: 'V', slug: 'v', type: 'vxlan', identifier: 5000 });
    const other = await post('vpn/l2vpns', { name: 'W', slug: 'w', type: 'vxlan', identifier: 6000 });
    const v1 = await post('ipam/vlans', { vid: 10, name: 'v10' });
    const v2 = await post('ipam/vlans', { vid: 20, name: 'v20' });
    const i1 = await iface();
    await post('vpn/l2vpn-terminations', { l2vpn: vpn.id, assigned_object_type: 'ipam.vlan', assigned_object_id: v1.id });
    await post('vpn/l2vpn-terminations', { l2vpn: other.id, assigned_object_type: 'dcim.interface', assigned_object_id: i1.id });
    expect(await ids('ipam/vlans', `l2vpn_id=${vpn.id}`)).toEqual([v1.id]);
    expect(await ids('ipam/vlans', 'l2vpn=5000')).toEqual([v1.id]);
    expect(await ids('ipam/vlans', 'l2vpn__n=5000')).toEqual([v2.id]);
    expect(await ids('dcim/interfaces', 'l2vpn=6000')).toEqual([i1.id]);
    expect(await ids('dcim/interfaces', `l2vpn_id=${vpn.id}`)).toEqual([]);
  });
});

describe('created_by_request, updated_by_request, modified_by_request, from the change log', () => {
  test('objects created, updated, or either, by the request with that X-Request-ID', async () => {
    const x = await post('tenancy/tenants', { name: 'X', slug: 'x' });
    const y = await post('tenancy/tenants', { name: 'Y', slug: 'y' });
    const res = await t.api.patch(`/api/tenancy/tenants/${y.id}/`).set(t.auth).send({ description: 'changed' });
    expect(res.status).toBe(200);
    const made = x.requestId as string;
    const changed = res.headers['x-request-id'] as string;
    expect([typeof made, typeof changed, made === changed]).toEqual(['string', 'string', false]);
    expect(await ids('tenancy/tenants', `created_by_request=${made}`)).toEqual([x.id]);
    expect(await ids('tenancy/tenants', `created_by_request=${changed}`)).toEqual([]);
    expect(await ids('tenancy/tenants', `updated_by_request=${changed}`)).toEqual([y.id]);
    expect(await ids('tenancy/tenants', `modified_by_request=${made}&modified_by_request=${changed}`)).toEqual(sorted([x.id, y.id]));
    // The same request id on another type's change does not count here.
    expect(await ids('dcim/sites', `created_by_request=${made}`)).toEqual([]);
  });
});
