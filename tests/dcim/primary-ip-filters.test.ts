import { startTestApp, type TestApp } from '../support/test-app';

/**
 * has_primary_ip (primary_ip4 or primary_ip6 set) on devices and virtual machines, and has_oob_ip on
 * devices, as NetBox 3.7's DeviceFilterSet and VirtualMachineFilterSet: the Ansible inventory plugin
 * sends device_query_filters such as has_primary_ip=true.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let t: TestApp;

async function post(p: string, body: unknown): Promise<Json> {
  const res = await t.api.post(`/api/${p}/`).set(t.auth).send(body as object);
  expect([p, res.status, res.status === 201 ? '' : res.text]).toEqual([p, 201, '']);
  return res.body as Json;
}
async function patch(p: string, id: number, body: unknown): Promise<void> {
  const res = await t.api.patch(`/api/${p}/${id}/`).set(t.auth).send(body as object);
  expect([p, res.status, res.status === 200 ? '' : res.text]).toEqual([p, 200, '']);
}
async function names(p: string, query: string): Promise<string[]> {
  const res = await t.api.get(`/api/${p}/?${query}&ordering=name`).set(t.auth);
  expect([query, res.status]).toEqual([query, 200]);
  return (res.body.results as Json[]).map((r) => r.name as string);
}

beforeAll(async () => {
  t = await startTestApp();
  const site = await post('dcim/sites', { name: 'S1', slug: 's1' });
  const role = await post('dcim/device-roles', { name: 'R', slug: 'r' });
  const mf = await post('dcim/manufacturers', { name: 'M', slug: 'm' });
  const type = await post('dcim/device-types', { manufacturer: mf.id, model: 'T', slug: 't' });
  // v4: primary IPv4 only; v6: primary IPv6 only; oob: out-of-band only; none: nothing.
  const plan: Array<[string, Array<[string, string]>]> = [
    ['v4', [['primary_ip4', '10.0.0.1/24']]],
    ['v6', [['primary_ip6', '2001:db8::1/64']]],
    ['oob', [['oob_ip', '10.9.0.1/24']]],
    ['none', []],
  ];
  for (const [name, ips] of plan) {
    const device = await post('dcim/devices', { name, device_type: type.id, role: role.id, site: site.id });
    const iface = await post('dcim/interfaces', { device: device.id, name: 'eth0', type: '1000base-t' });
    for (const [field, address] of ips) {
      const ip = await post('ipam/ip-addresses', { address, assigned_object_type: 'dcim.interface', assigned_object_id: iface.id });
      await patch('dcim/devices', device.id, { [field]: ip.id });
    }
  }
  const ctype = await post('virtualization/cluster-types', { name: 'CT', slug: 'ct' });
  const cluster = await post('virtualization/clusters', { name: 'C', type: ctype.id });
  for (const [name, address] of [['vm-v4', '10.1.0.1/24'], ['vm-v6', '2001:db8:1::1/64'], ['vm-none', null]] as const) {
    const vm = await post('virtualization/virtual-machines', { name, cluster: cluster.id });
    if (!address) continue;
    const iface = await post('virtualization/interfaces', { virtual_machine: vm.id, name: 'eth0' });
    const ip = await post('ipam/ip-addresses', { address, assigned_object_type: 'virtualization.vminterface', assigned_object_id: iface.id });
    await patch('virtualization/virtual-machines', vm.id, { [address.includes(':') ? 'primary_ip6' : 'primary_ip4']: ip.id });
  }
});
afterAll(async () => {
  await t?.close();
});

test('devices: has_primary_ip is either primary address set; has_oob_ip the out-of-band one', async () => {
  expect(await names('dcim/devices', 'has_primary_ip=true')).toEqual(['v4', 'v6']);
  expect(await names('dcim/devices', 'has_primary_ip=false')).toEqual(['none', 'oob']);
  expect(await names('dcim/devices', 'has_oob_ip=true')).toEqual(['oob']);
  expect(await names('dcim/devices', 'has_oob_ip=false')).toEqual(['none', 'v4', 'v6']);
  expect(await names('dcim/devices', 'has_primary_ip=true&has_oob_ip=false')).toEqual(['v4', 'v6']);
});

test('virtual machines: has_primary_ip', async () => {
  expect(await names('virtualization/virtual-machines', 'has_primary_ip=true')).toEqual(['vm-v4', 'vm-v6']);
  expect(await names('virtualization/virtual-machines', 'has_primary_ip=false')).toEqual(['vm-none']);
});

test('a value that is not a boolean is a 400 naming the parameter', async () => {
  const res = await t.api.get('/api/dcim/devices/?has_primary_ip=maybe').set(t.auth);
  expect(res.status).toBe(400);
  expect(Object.keys(res.body as object)).toEqual(['has_primary_ip']);
});
