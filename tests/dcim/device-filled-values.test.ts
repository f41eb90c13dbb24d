/**
 * NetBox's Device.save(): a new device without a platform or airflow takes its type's default platform and
 * airflow (on create only), and a device in a rack of a location takes the rack's location (the
 * `filled_from` word, with `filled_on_create`).
 */
import { startTestApp, type TestApp } from '../support/test-app';

type Json = Record<string, unknown>;
let t: TestApp;
const ids: Record<string, number> = {};

async function made(path: string, body: Json): Promise<Json> {
  const res = await t.api.post(path).set(t.auth).send(body);
  if (res.status !== 201) throw new Error(`POST ${path} -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Json;
}
const idOf = (x: unknown) => (x === null ? null : (x as Json).id);
const valueOf = (x: unknown) => (x === null ? null : (x as Json).value);

beforeAll(async () => {
  t = await startTestApp();
  ids.site = (await made('/api/dcim/sites/', { name: 'S', slug: 's' })).id as number;
  ids.location = (await made('/api/dcim/locations/', { name: 'L', slug: 'l', site: ids.site })).id as number;
  ids.rack = (await made('/api/dcim/racks/', { name: 'R', site: ids.site, location: ids.location })).id as number;
  ids.plain = (await made('/api/dcim/racks/', { name: 'R0', site: ids.site })).id as number;
  ids.platform = (await made('/api/dcim/platforms/', { name: 'EOS', slug: 'eos' })).id as number;
  ids.other = (await made('/api/dcim/platforms/', { name: 'NXOS', slug: 'nxos' })).id as number;
  const mfr = (await made('/api/dcim/manufacturers/', { name: 'M', slug: 'm' })).id;
  ids.type = (await made('/api/dcim/device-types/', { manufacturer: mfr, model: 'T', slug: 't', airflow: 'front-to-rear', default_platform: ids.platform })).id as number;
  ids.role = (await made('/api/dcim/device-roles/', { name: 'Role', slug: 'role' })).id as number;
});
afterAll(async () => {
  await t.close();
});

const device = (name: string, extra: Json = {}) => made('/api/dcim/devices/', { name, device_type: ids.type, role: ids.role, site: ids.site, ...extra });

test('a new device takes its type\'s default platform and airflow; given ones are kept', async () => {
  const d = await device('d1');
  expect([idOf(d.platform), valueOf(d.airflow)]).toEqual([ids.platform, 'front-to-rear']);
  const given = await device('d2', { platform: ids.other, airflow: 'rear-to-front' });
  expect([idOf(given.platform), valueOf(given.airflow)]).toEqual([ids.other, 'rear-to-front']);
});

test('clearing them later is kept: NetBox fills them on create only', async () => {
  const d = await device('d3');
  const res = await t.api.patch(`/api/dcim/devices/${String(d.id)}/`).set(t.auth).send({ platform: null, airflow: '' });
  expect(res.status).toBe(200);
  expect([(res.body as Json).platform, valueOf((res.body as Json).airflow)]).toEqual([null, null]);
});

test('a device placed in a rack of a location takes the location, on create and when moved there', async () => {
  expect(idOf((await device('d4', { rack: ids.rack })).location)).toBe(ids.location);
  const d = await device('d5', { rack: ids.plain });
  expect(d.location).toBeNull();
  const moved = await t.api.patch(`/api/dcim/devices/${String(d.id)}/`).set(t.auth).send({ rack: ids.rack });
  expect(moved.status).toBe(200);
  expect(idOf((moved.body as Json).location)).toBe(ids.location);
});
