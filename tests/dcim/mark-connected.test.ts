import { startTestApp, type TestApp } from '../support/test-app';

/**
 * NetBox's CabledObjectModel.clean: a component with a cable attached cannot be marked connected
 * ("Cannot mark as connected with a cable attached.", on mark_connected); without a cable it can.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let t: TestApp;
let device: Json;
let n = 0;

async function post(p: string, body: unknown): Promise<Json> {
  const res = await t.api.post(`/api/${p}/`).set(t.auth).send(body as object);
  expect([p, res.status, res.status === 201 ? '' : res.text]).toEqual([p, 201, '']);
  return res.body as Json;
}
const REFUSED = { mark_connected: ['Cannot mark as connected with a cable attached.'] };

beforeAll(async () => {
  t = await startTestApp();
  const site = await post('dcim/sites', { name: 'S1', slug: 's1' });
  const role = await post('dcim/device-roles', { name: 'R', slug: 'r' });
  const mf = await post('dcim/manufacturers', { name: 'M', slug: 'm' });
  const dt = await post('dcim/device-types', { manufacturer: mf.id, model: 'T', slug: 't' });
  device = await post('dcim/devices', { name: 'd1', device_type: dt.id, role: role.id, site: site.id });
});
afterAll(async () => {
  await t.close();
});

const iface = () => post('dcim/interfaces', { device: device.id, name: `eth${++n}`, type: '1000base-t' });
const cable = (type: string, a: Json, b: Json) => post('dcim/cables', { a_terminations: [{ object_type: type, object_id: a.id }], b_terminations: [{ object_type: type, object_id: b.id }] });

test('a cabled interface cannot be marked connected; an uncabled one can', async () => {
  const [a, b, free] = [await iface(), await iface(), await iface()];
  await cable('dcim.interface', a, b);
  const refused = await t.api.patch(`/api/dcim/interfaces/${a.id}/`).set(t.auth).send({ mark_connected: true });
  expect([refused.status, refused.body]).toEqual([400, REFUSED]);
  expect((await t.api.get(`/api/dcim/interfaces/${a.id}/`).set(t.auth)).body.mark_connected).toBe(false);
  // Other changes of a cabled interface are fine while it is not marked.
  expect((await t.api.patch(`/api/dcim/interfaces/${a.id}/`).set(t.auth).send({ description: 'uplink' })).status).toBe(200);
  const marked = await t.api.patch(`/api/dcim/interfaces/${free.id}/`).set(t.auth).send({ mark_connected: true });
  expect([marked.status, marked.body.mark_connected]).toEqual([200, true]);
});

test('a bulk change that marks one cabled interface is refused whole', async () => {
  const [a, b, free] = [await iface(), await iface(), await iface()];
  await cable('dcim.interface', a, b);
  const res = await t.api.patch('/api/dcim/interfaces/').set(t.auth).send([{ id: free.id, mark_connected: true }, { id: b.id, mark_connected: true }]);
  expect(res.status).toBe(400);
  expect(JSON.stringify(res.body)).toContain('Cannot mark as connected with a cable attached.');
  expect((await t.api.get(`/api/dcim/interfaces/${free.id}/`).set(t.auth)).body.mark_connected).toBe(false);
});

test('the same rule holds for the other cabled components (console ports)', async () => {
  const [a, b] = [await post('dcim/console-ports', { device: device.id, name: 'con0' }), await post('dcim/console-server-ports', { device: device.id, name: 'cs0' })];
  await post('dcim/cables', { a_terminations: [{ object_type: 'dcim.consoleport', object_id: a.id }], b_terminations: [{ object_type: 'dcim.consoleserverport', object_id: b.id }] });
  const res = await t.api.patch(`/api/dcim/console-ports/${a.id}/`).set(t.auth).send({ mark_connected: true });
  expect([res.status, res.body]).toEqual([400, REFUSED]);
  const created = await t.api.post('/api/dcim/console-ports/').set(t.auth).send({ device: device.id, name: 'con1', mark_connected: true });
  expect([created.status, created.body.mark_connected]).toEqual([201, true]);
});
