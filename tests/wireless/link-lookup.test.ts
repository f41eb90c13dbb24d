import { startTestApp, type TestApp } from '../support/test-app';

/**
 * The netbox.netbox Ansible module finds a wireless link by its two interfaces' ids under the names
 * `interface_a` and `interface_b` (`?interface_a=2&interface_b=3`). NetBox 3.7 has no filters of those
 * names (it ignores them); Patchbay once derived them from the foreign keys, by the interface's name, and
 * answered 400 ("Select a valid choice. 2 is not..."). They take the ids, as interface_a_id and interface_b_id do.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let t: TestApp;

async function post(p: string, body: unknown): Promise<Json> {
  const res = await t.api.post(`/api/${p}/`).set(t.auth).send(body as object);
  expect([p, res.status, res.status === 201 ? '' : res.text]).toEqual([p, 201, '']);
  return res.body as Json;
}

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

test('a link is found by its interfaces\' ids under interface_a and interface_b', async () => {
  const site = await post('dcim/sites', { name: 'S1', slug: 's1' });
  const role = await post('dcim/device-roles', { name: 'R', slug: 'r' });
  const mf = await post('dcim/manufacturers', { name: 'M', slug: 'm' });
  const dt = await post('dcim/device-types', { manufacturer: mf.id, model: 'T', slug: 't' });
  const radios: Json[] = [];
  for (const name of ['ap1', 'ap2', 'ap3']) {
    const dev = await post('dcim/devices', { name, device_type: dt.id, role: role.id, site: site.id });
    radios.push(await post('dcim/interfaces', { device: dev.id, name: 'wlan0', type: 'ieee802.11ax' }));
  }
  const [a, b, c] = radios as [Json, Json, Json];
  const ab = await post('wireless/wireless-links', { interface_a: a.id, interface_b: b.id });
  await post('wireless/wireless-links', { interface_a: c.id, interface_b: (await post('dcim/interfaces', { device: c.device.id, name: 'wlan1', type: 'ieee802.11ax' })).id });
  const found = await t.api.get(`/api/wireless/wireless-links/?interface_a=${a.id}&interface_b=${b.id}`).set(t.auth);
  expect([found.status, found.body.results?.map((l: Json) => l.id)]).toEqual([200, [ab.id]]);
  const none = await t.api.get(`/api/wireless/wireless-links/?interface_a=${b.id}`).set(t.auth);
  expect([none.status, none.body.count]).toEqual([200, 0]);
});
