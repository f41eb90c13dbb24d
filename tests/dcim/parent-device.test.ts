import { startTestApp, type TestApp } from '../support/test-app';

/**
 * A device's parent_device as NetBox 3.7's DeviceSerializer.get_parent_device gives it: the device whose
 * bay it is installed in (NestedDeviceSerializer) with that bay under device_bay (NestedDeviceBaySerializer),
 * or null; read in the list's one statement, whatever the page size.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let t: TestApp;
let chassis: Json;
let blades: Json[];
const bays: Json[] = [];

async function post(p: string, body: unknown): Promise<Json> {
  const res = await t.api.post(`/api/${p}/`).set(t.auth).send(body as object);
  expect([p, res.status, res.status === 201 ? '' : res.text]).toEqual([p, 201, '']);
  return res.body as Json;
}
const url = (p: string, id: number) => expect.stringMatching(new RegExp(`^http://[^/]+/api/dcim/${p}/${id}/$`));
const nestedDevice = (d: Json) => ({ id: d.id, url: url('devices', d.id), display: d.display, name: d.name });

beforeAll(async () => {
  t = await startTestApp();
  const site = await post('dcim/sites', { name: 'S1', slug: 's1' });
  const role = await post('dcim/device-roles', { name: 'R', slug: 'r' });
  const mf = await post('dcim/manufacturers', { name: 'M', slug: 'm' });
  const parentType = await post('dcim/device-types', { manufacturer: mf.id, model: 'Chassis', slug: 'chassis', subdevice_role: 'parent' });
  const childType = await post('dcim/device-types', { manufacturer: mf.id, model: 'Blade', slug: 'blade', u_height: 0, subdevice_role: 'child' });
  chassis = await post('dcim/devices', { name: 'chassis1', device_type: parentType.id, role: role.id, site: site.id });
  blades = [];
  for (let i = 1; i <= 12; i++) {
    const blade = await post('dcim/devices', { name: `blade${i}`, device_type: childType.id, role: role.id, site: site.id });
    blades.push(blade);
    const bay = await post('dcim/device-bays', { device: chassis.id, name: `Bay ${i}` });
    if (i <= 10) bays.push((await t.api.patch(`/api/dcim/device-bays/${bay.id}/`).set(t.auth).send({ installed_device: blade.id })).body as Json);
  }
});
afterAll(async () => {
  await t.close();
});

test('an installed device names its parent and the bay; others have null', async () => {
  const res = await t.api.get(`/api/dcim/devices/${blades[0]!.id}/`).set(t.auth);
  expect(res.status).toBe(200);
  expect(res.body.parent_device).toEqual({
    ...nestedDevice(chassis),
    device_bay: { id: bays[0]!.id, url: url('device-bays', bays[0]!.id), display: 'Bay 1', device: nestedDevice(chassis), name: 'Bay 1' },
  });
  expect(Object.keys(res.body.parent_device as object)).toEqual(['id', 'url', 'display', 'name', 'device_bay']);
  // In NetBox's field order: after longitude, before status.
  const keys = Object.keys(res.body as object);
  expect(keys.slice(keys.indexOf('longitude'), keys.indexOf('longitude') + 3)).toEqual(['longitude', 'parent_device', 'status']);
  expect((await t.api.get(`/api/dcim/devices/${chassis.id}/`).set(t.auth)).body.parent_device).toBeNull();
  expect((await t.api.get(`/api/dcim/devices/${blades[11]!.id}/`).set(t.auth)).body.parent_device).toBeNull();
  // Brief forms leave it out, as NetBox's nested device.
  expect((await t.api.get(`/api/dcim/devices/${blades[0]!.id}/?brief=1`).set(t.auth)).body).toEqual(nestedDevice(blades[0]!));
});

test('removing the device from its bay clears it; it is read-only', async () => {
  const bay = bays[9]!;
  expect((await t.api.patch(`/api/dcim/device-bays/${bay.id}/`).set(t.auth).send({ installed_device: null })).status).toBe(200);
  expect((await t.api.get(`/api/dcim/devices/${blades[9]!.id}/`).set(t.auth)).body.parent_device).toBeNull();
  const written = await t.api.patch(`/api/dcim/devices/${blades[9]!.id}/`).set(t.auth).send({ parent_device: chassis.id });
  expect([written.status, written.body.parent_device]).toEqual([200, null]);
  expect((await t.api.patch(`/api/dcim/device-bays/${bay.id}/`).set(t.auth).send({ installed_device: blades[9]!.id })).status).toBe(200);
});

test('a list shows every parent in one statement, whatever the page size', async () => {
  const cost = async (limit: number) => {
    t.queries.reset();
    const res = await t.api.get(`/api/dcim/devices/?limit=${limit}&ordering=name`).set(t.auth);
    expect(res.status).toBe(200);
    return { n: t.queries.count, results: res.body.results as Json[] };
  };
  await cost(1);
  const one = await cost(1);
  const all = await cost(50);
  expect(all.n).toBe(one.n);
  const byName = new Map(all.results.map((d) => [d.name as string, d.parent_device as Json | null]));
  expect(byName.get('chassis1')).toBeNull();
  expect(byName.get('blade11')).toBeNull();
  for (let i = 1; i <= 10; i++) expect([i, byName.get(`blade${i}`)?.device_bay?.name]).toEqual([i, `Bay ${i}`]);
});
