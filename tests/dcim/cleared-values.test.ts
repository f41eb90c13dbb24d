/**
 * NetBox's save() clearing what means nothing alone (the `cleared_without` word): a cable's length unit
 * without a length, a rack's outer unit without an outer width or depth, an interface's untagged VLAN
 * without an 802.1Q mode (device and VM interfaces), on create and on change.
 */
import { startTestApp, type TestApp } from '../support/test-app';

type Json = Record<string, unknown>;
let t: TestApp;
let site: number;
let device: number;
let vlan: number;

async function made(path: string, body: Json): Promise<Json> {
  const res = await t.api.post(path).set(t.auth).send(body);
  if (res.status !== 201) throw new Error(`POST ${path} -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Json;
}
async function patched(path: string, body: Json): Promise<Json> {
  const res = await t.api.patch(path).set(t.auth).send(body);
  if (res.status !== 200) throw new Error(`PATCH ${path} -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Json;
}
const valueOf = (x: unknown) => (x === null ? null : (x as Json).value);

beforeAll(async () => {
  t = await startTestApp();
  site = (await made('/api/dcim/sites/', { name: 'S', slug: 's' })).id as number;
  const mfr = (await made('/api/dcim/manufacturers/', { name: 'M', slug: 'm' })).id;
  const type = (await made('/api/dcim/device-types/', { manufacturer: mfr, model: 'T', slug: 't' })).id;
  const role = (await made('/api/dcim/device-roles/', { name: 'R', slug: 'r' })).id;
  device = (await made('/api/dcim/devices/', { name: 'd', device_type: type, role, site })).id as number;
  vlan = (await made('/api/ipam/vlans/', { vid: 5, name: 'v' })).id as number;
});
afterAll(async () => {
  await t.close();
});

test('a cable\'s length unit without a length is cleared; with one it stays; removing the length clears it', async () => {
  let n = 0;
  const cable = async (extra: Json) => {
    const ends = [];
    for (let k = 0; k < 2; k++) ends.push((await made('/api/dcim/interfaces/', { device, name: `c${++n}${String(extra.length ?? '')}`, type: '1000base-t' })).id);
    return made('/api/dcim/cables/', { a_terminations: [{ object_type: 'dcim.interface', object_id: ends[0] }], b_terminations: [{ object_type: 'dcim.interface', object_id: ends[1] }], ...extra });
  };
  expect((await cable({ length_unit: 'm' })).length_unit).toBeNull();
  const measured = await cable({ length: 3, length_unit: 'm' });
  expect(valueOf(measured.length_unit)).toBe('m');
  const cut = await patched(`/api/dcim/cables/${String(measured.id)}/`, { length: null });
  expect([cut.length, cut.length_unit]).toEqual([null, null]);
});

test('a rack\'s outer unit needs an outer width or depth', async () => {
  expect((await made('/api/dcim/racks/', { name: 'R1', site, outer_unit: 'mm' })).outer_unit).toBeNull();
  const wide = await made('/api/dcim/racks/', { name: 'R2', site, outer_unit: 'mm', outer_width: 600 });
  expect(valueOf(wide.outer_unit)).toBe('mm');
  expect(valueOf((await patched(`/api/dcim/racks/${String(wide.id)}/`, { outer_depth: 800, outer_width: null })).outer_unit)).toBe('mm');
  expect((await patched(`/api/dcim/racks/${String(wide.id)}/`, { outer_depth: null })).outer_unit).toBeNull();
});

test('an untagged VLAN needs an 802.1Q mode, on device and VM interfaces', async () => {
  expect((await made('/api/dcim/interfaces/', { device, name: 'u1', type: '1000base-t', untagged_vlan: vlan })).untagged_vlan).toBeNull();
  const access = await made('/api/dcim/interfaces/', { device, name: 'u2', type: '1000base-t', mode: 'access', untagged_vlan: vlan });
  expect((access.untagged_vlan as Json).id).toBe(vlan);
  expect((await patched(`/api/dcim/interfaces/${String(access.id)}/`, { mode: null })).untagged_vlan).toBeNull();
  const ct = (await made('/api/virtualization/cluster-types/', { name: 'K', slug: 'k' })).id;
  const cluster = (await made('/api/virtualization/clusters/', { name: 'C', type: ct })).id;
  const vm = (await made('/api/virtualization/virtual-machines/', { name: 'vm', cluster })).id;
  expect((await made('/api/virtualization/interfaces/', { virtual_machine: vm, name: 'v1', untagged_vlan: vlan })).untagged_vlan).toBeNull();
});
