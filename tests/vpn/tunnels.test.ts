import { startTestApp, type TestApp } from '../support/test-app';

/**
 * NetBox 3.7's tunnel groups, tunnels and tunnel terminations, written as definitions only: NetBox's fields
 * in its order, the group's tunnel count, a termination's generic `termination` (an interface or a VM
 * interface, each in at most one tunnel) and its `outside_ip`, its display "<tunnel>: Termination <id>",
 * and the filters of vpn/filtersets.py.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let t: TestApp;
let iface: Json;
let vmIface: Json;
let ip: Json;
let tenant: Json;

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
async function list(query: string): Promise<Json[]> {
  const res = await t.api.get(`/api/${query}`).set(t.auth);
  expect([query, res.status, res.status === 200 ? '' : res.text]).toEqual([query, 200, '']);
  return norm(res.body.results) as Json[];
}
const stamps = (o: Json) => ({ created: o.created, last_updated: o.last_updated });

beforeAll(async () => {
  t = await startTestApp();
  const site = await post('dcim/sites', { name: 'S1', slug: 's1' });
  const role = await post('dcim/device-roles', { name: 'R', slug: 'r' });
  const mf = await post('dcim/manufacturers', { name: 'M', slug: 'm' });
  const dt = await post('dcim/device-types', { manufacturer: mf.id, model: 'T', slug: 't' });
  const dev = await post('dcim/devices', { name: 'edge1', device_type: dt.id, role: role.id, site: site.id });
  iface = await post('dcim/interfaces', { device: dev.id, name: 'tun0', type: 'virtual' });
  const vm = await post('virtualization/virtual-machines', { name: 'vm1', site: site.id });
  vmIface = await post('virtualization/interfaces', { virtual_machine: vm.id, name: 'wg0' });
  ip = await post('ipam/ip-addresses', { address: '198.51.100.1/32' });
  const tg = await post('tenancy/tenant-groups', { name: 'TG', slug: 'tg' });
  tenant = await post('tenancy/tenants', { name: 'Acme', slug: 'acme', group: tg.id });
});
afterAll(async () => {
  await t.close();
});

test('a tunnel group counts its tunnels; a tunnel shows NetBox\'s fields, with the group\'s brief form', async () => {
  const g = await post('vpn/tunnel-groups', { name: 'Mesh', slug: 'mesh' });
  expect(g).toEqual({ id: g.id, url: `/api/vpn/tunnel-groups/${g.id}/`, display: 'Mesh', name: 'Mesh', slug: 'mesh', description: '', tags: [], custom_fields: {}, tunnel_count: 0, ...stamps(g) });
  const made = await post('vpn/tunnels', { name: 'T1', encapsulation: 'gre', group: g.id, tenant: tenant.id, tunnel_id: 4294967296 });
  const tun = norm((await t.api.get(`/api/vpn/tunnels/${made.id}/`).set(t.auth)).body) as Json;
  expect(tun).toEqual({
    id: tun.id, url: `/api/vpn/tunnels/${tun.id}/`, display: 'T1', name: 'T1',
    status: { value: 'active', label: 'Active' },
    group: { id: g.id, url: `/api/vpn/tunnel-groups/${g.id}/`, display: 'Mesh', name: 'Mesh', slug: 'mesh', tunnel_count: 1 },
    encapsulation: { value: 'gre', label: 'GRE' },
    ipsec_profile: null,
    tenant: { id: tenant.id, url: `/api/tenancy/tenants/${tenant.id}/`, display: 'Acme', name: 'Acme', slug: 'acme' },
    tunnel_id: 4294967296, description: '', comments: '', tags: [], custom_fields: {}, ...stamps(tun),
  });
  const brief = await t.api.get(`/api/vpn/tunnels/${tun.id}/?brief=1`).set(t.auth);
  expect(norm(brief.body)).toEqual({ id: tun.id, url: `/api/vpn/tunnels/${tun.id}/`, display: 'T1', name: 'T1' });
  const dup = await t.api.post('/api/vpn/tunnels/').set(t.auth).send({ name: 'T1', encapsulation: 'ip-ip' });
  expect([dup.status, dup.body]).toEqual([400, { name: ['tunnel with this name already exists.'] }]);
  const bad = await t.api.post('/api/vpn/tunnels/').set(t.auth).send({ name: 'T9', status: 'up' });
  expect([bad.status, bad.body]).toEqual([400, { status: ['"up" is not a valid choice.'], encapsulation: ['This field is required.'] }]);
  await post('vpn/tunnels', { name: 'T2', encapsulation: 'ipsec-tunnel', status: 'planned' });
  const named = async (q: string) => (await list(`vpn/tunnels/?${q}`)).map((x) => x.name);
  expect(await named('group=mesh')).toEqual(['T1']);
  expect(await named(`group_id=${g.id}`)).toEqual(['T1']);
  expect(await named('status=planned')).toEqual(['T2']);
  expect(await named('encapsulation=gre&encapsulation=ipsec-tunnel')).toEqual(['T1', 'T2']);
  expect(await named('tenant=acme')).toEqual(['T1']);
  expect(await named('tenant_group=tg')).toEqual(['T1']);
  expect(await named('tunnel_id=4294967296')).toEqual(['T1']);
  expect(await named('q=t2')).toEqual(['T2']);
});

test('a termination on an interface, its display, nested termination and outside IP; one tunnel per interface', async () => {
  const tun = await post('vpn/tunnels', { name: 'Hub', encapsulation: 'ipsec-transport' });
  const a = await post('vpn/tunnel-terminations', { tunnel: tun.id, role: 'hub', termination_type: 'dcim.interface', termination_id: iface.id, outside_ip: ip.id });
  expect(a).toEqual({
    id: a.id, url: `/api/vpn/tunnel-terminations/${a.id}/`, display: `Hub: Termination ${a.id}`,
    tunnel: { id: tun.id, url: `/api/vpn/tunnels/${tun.id}/`, display: 'Hub', name: 'Hub' },
    role: { value: 'hub', label: 'Hub' },
    termination_type: 'dcim.interface', termination_id: iface.id,
    termination: expect.objectContaining({ id: iface.id, url: `/api/dcim/interfaces/${iface.id}/`, display: 'tun0', name: 'tun0' }),
    outside_ip: { id: ip.id, url: `/api/ipam/ip-addresses/${ip.id}/`, display: '198.51.100.1/32', family: 4, address: '198.51.100.1/32' },
    tags: [], custom_fields: {}, ...stamps(a),
  });
  const b = await post('vpn/tunnel-terminations', { tunnel: tun.id, termination_type: 'virtualization.vminterface', termination_id: vmIface.id });
  expect([b.role, b.termination_type, b.termination.name, b.outside_ip]).toEqual([{ value: 'peer', label: 'Peer' }, 'virtualization.vminterface', 'wg0', null]);
  const again = await t.api.post('/api/vpn/tunnel-terminations/').set(t.auth).send({ tunnel: tun.id, termination_type: 'dcim.interface', termination_id: iface.id });
  expect([again.status, again.body]).toEqual([400, { termination: ['An object may be terminated to only one tunnel at a time.'] }]);
  const site = await t.api.post('/api/vpn/tunnel-terminations/').set(t.auth).send({ tunnel: tun.id, termination_type: 'dcim.site', termination_id: 1 });
  expect([site.status, Object.keys(site.body)]).toEqual([400, ['termination_type']]);
  const brief = await list(`vpn/tunnel-terminations/?brief=1&tunnel_id=${tun.id}`);
  expect(brief).toEqual([{ id: a.id, url: `/api/vpn/tunnel-terminations/${a.id}/`, display: `Hub: Termination ${a.id}` }, { id: b.id, url: `/api/vpn/tunnel-terminations/${b.id}/`, display: `Hub: Termination ${b.id}` }]);
  const ids = async (q: string) => (await list(`vpn/tunnel-terminations/?${q}`)).map((x) => x.id);
  expect(await ids('tunnel=Hub&role=hub')).toEqual([a.id]);
  expect(await ids('termination_type=virtualization.vminterface')).toEqual([b.id]);
  expect(await ids(`interface_id=${iface.id}`)).toEqual([a.id]);
  expect(await ids('interface=tun0')).toEqual([a.id]);
  expect(await ids(`vminterface_id=${vmIface.id}`)).toEqual([b.id]);
  expect(await ids('vminterface=wg0')).toEqual([b.id]);
  expect(await ids(`outside_ip_id=${ip.id}`)).toEqual([a.id]);
  // The outside address is protected while a termination uses it; deleting the tunnel removes its terminations.
  expect((await t.api.delete(`/api/ipam/ip-addresses/${ip.id}/`).set(t.auth)).status).toBe(409);
  expect((await t.api.delete(`/api/vpn/tunnels/${tun.id}/`).set(t.auth)).status).toBe(204);
  expect(await ids(`interface_id=${iface.id}`)).toEqual([]);
});
