import { startTestApp, type TestApp } from '../support/test-app';

/**
 * GET /api/dcim/racks/{id}/elevation/ as NetBox 3.7 answers it (RackViewSet.elevation, Rack.get_rack_units),
 * against units worked out by hand: a 42U rack counts 84 half units from U42.5 down to U1; devices of 1U,
 * 2U and ½U on the front, one on the rear, a full-depth one on both faces, a 0U one nowhere.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let t: TestApp;
let site: Json;
let role: Json;
const dt: Record<string, Json> = {};
let rack: Json;
const dev: Record<string, Json> = {};

async function post(p: string, body: unknown): Promise<Json> {
  const res = await t.api.post(`/api/${p}/`).set(t.auth).send(body as object);
  expect([p, res.status, res.status === 201 ? '' : res.text]).toEqual([p, 201, '']);
  return res.body as Json;
}
async function elevation(id: number, query = '', auth: Record<string, string> = t.auth): Promise<Json> {
  const res = await t.api.get(`/api/dcim/racks/${id}/elevation/${query}`).set(auth);
  expect([res.status, res.status === 200 ? '' : res.text]).toEqual([200, '']);
  return res.body as Json;
}
/** NetBox's NestedDeviceSerializer; supertest serves each request on a port of its own, so the URL is matched by its path. */
const nested = (d: Json) => ({ id: d.id, url: expect.stringMatching(new RegExp(`^http://[^/]+/api/dcim/devices/${d.id}/$`)), display: d.display, name: d.name });
/** The units holding something, top-down, as [name, device name or null]. */
const occupied = (page: Json) => (page.results as Json[]).filter((u) => u.occupied).map((u) => [u.name, u.device ? u.device.name : null]);

beforeAll(async () => {
  t = await startTestApp();
  site = await post('dcim/sites', { name: 'S1', slug: 's1' });
  role = await post('dcim/device-roles', { name: 'R', slug: 'r' });
  const mf = await post('dcim/manufacturers', { name: 'M', slug: 'm' });
  for (const [slug, u_height, is_full_depth] of [['one', 1, false], ['two', 2, false], ['half', 0.5, false], ['full', 1, true], ['zero', 0, false]] as const) {
    dt[slug] = await post('dcim/device-types', { manufacturer: mf.id, model: slug, slug, u_height, is_full_depth });
  }
  rack = await post('dcim/racks', { name: 'R42', site: site.id });
  const place = async (name: string, type: string, position: number | null, face: string | null) =>
    (dev[name] = await post('dcim/devices', { name, device_type: dt[type]!.id, role: role.id, site: site.id, rack: rack.id, position, face }));
  await place('a', 'one', 1, 'front');
  await place('h', 'half', 5.5, 'front');
  await place('b', 'two', 10, 'front');
  await place('c', 'one', 10, 'rear');
  await place('d', 'full', 20, 'front');
  await place('z', 'zero', null, null);
  await place('loose', 'one', null, null);
});
afterAll(async () => {
  await t.close();
});

test('the front face: 84 half units from U42.5 down, each as NetBox\'s RackUnitSerializer', async () => {
  const page = await elevation(rack.id, '?limit=100');
  expect(page.count).toBe(84);
  expect([page.next, page.previous]).toEqual([null, null]);
  const units = page.results as Json[];
  expect(units.slice(0, 3)).toEqual([
    { id: 42.5, name: 'U42.5', face: { value: 'front', label: 'Front' }, device: null, occupied: false, display: 'U42.5' },
    { id: 42, name: 'U42', face: { value: 'front', label: 'Front' }, device: null, occupied: false, display: 'U42' },
    { id: 41.5, name: 'U41.5', face: { value: 'front', label: 'Front' }, device: null, occupied: false, display: 'U41.5' },
  ]);
  expect(units.at(-1)).toEqual({ id: 1, name: 'U1', face: { value: 'front', label: 'Front' }, device: nested(dev.a!), occupied: true, display: 'U1' });
  // The full-depth d (U20) shows on the front; the rear-facing c does not; the 0U z and the unplaced device nowhere.
  expect(occupied(page)).toEqual([['U20.5', 'd'], ['U20', 'd'], ['U11.5', 'b'], ['U11', 'b'], ['U10.5', 'b'], ['U10', 'b'], ['U5.5', 'h'], ['U1.5', 'a'], ['U1', 'a']]);
});

test('the rear face: the rear device and the full-depth one', async () => {
  const page = await elevation(rack.id, '?face=rear&limit=0');
  expect(occupied(page)).toEqual([['U20.5', 'd'], ['U20', 'd'], ['U10.5', 'c'], ['U10', 'c']]);
  expect((page.results as Json[]).every((u) => u.face.value === 'rear' && u.face.label === 'Rear')).toBe(true);
});

test('exclude leaves a device out; expand_devices=false shows each device at its lowest unit only', async () => {
  expect(occupied(await elevation(rack.id, `?limit=0&exclude=${dev.b!.id}`))).toEqual([['U20.5', 'd'], ['U20', 'd'], ['U5.5', 'h'], ['U1.5', 'a'], ['U1', 'a']]);
  expect(occupied(await elevation(rack.id, '?limit=0&expand_devices=false'))).toEqual([['U20', 'd'], ['U10', 'b'], ['U5.5', 'h'], ['U1', 'a']]);
  // An id no device has (beyond a bigint too) excludes nothing.
  expect(occupied(await elevation(rack.id, '?limit=0&exclude=99999999999999999999999'))).toHaveLength(9);
});

test('paginated as lists: 50 units by default, next and previous links', async () => {
  const first = await elevation(rack.id);
  expect([first.count, first.results.length, first.previous]).toEqual([84, 50, null]);
  expect(first.next).toMatch(/\/api\/dcim\/racks\/\d+\/elevation\/\?limit=50&offset=50$/);
  expect(first.results[49].name).toBe('U18');
  const second = await elevation(rack.id, '?limit=50&offset=50');
  expect([second.count, second.results.length, second.next, second.results[0].name]).toEqual([84, 34, null, 'U17.5']);
  expect(second.previous).toMatch(/\?limit=50&offset=0$/);
});

test('q keeps the units whose id or name holds the text', async () => {
  const page = await elevation(rack.id, '?q=U4');
  expect((page.results as Json[]).map((u) => u.name)).toEqual(['U42.5', 'U42', 'U41.5', 'U41', 'U40.5', 'U40', 'U4.5', 'U4']);
  // str(Decimal) of an ascending rack's unit is "41.0": ".0" finds every whole unit.
  expect((await elevation(rack.id, '?q=.0&limit=0')).count).toBe(42);
});

test('descending units: from the starting unit up; a starting unit moves the numbers', async () => {
  const down = await post('dcim/racks', { name: 'R4d', site: site.id, u_height: 4, desc_units: true });
  await post('dcim/devices', { name: 'e', device_type: dt.two!.id, role: role.id, site: site.id, rack: down.id, position: 2, face: 'front' });
  const page = await elevation(down.id);
  expect((page.results as Json[]).map((u) => [u.id, u.name, u.device?.name ?? null])).toEqual([
    [1, 'U1', null], [1.5, 'U1.5', null], [2, 'U2', 'e'], [2.5, 'U2.5', 'e'], [3, 'U3', 'e'], [3.5, 'U3.5', 'e'], [4, 'U4', null], [4.5, 'U4.5', null],
  ]);
  // The first unit of a descending rack is str(Decimal(1)), "1": no ".0".
  expect((await elevation(down.id, '?q=.0')).results.map((u: Json) => u.name)).toEqual(['U2', 'U3', 'U4']);
  const high = await post('dcim/racks', { name: 'R2s', site: site.id, u_height: 2, starting_unit: 5 });
  expect((await elevation(high.id)).results.map((u: Json) => u.name)).toEqual(['U6.5', 'U6', 'U5.5', 'U5']);
});

test('devices the caller may not view: their units are occupied, the device is not shown', async () => {
  const token = await t.makeToken({ username: 'rackviewer' });
  const auth = { Authorization: `Token ${token}` };
  expect((await t.api.get(`/api/dcim/racks/${rack.id}/elevation/`).set(auth)).status).toBe(403);
  const userId = (await t.knex.raw(`SELECT "user_id" FROM "users_token" WHERE "key" = ?`, [token])).rows[0].user_id as number;
  expect((await t.api.post('/api/users/permissions/').set(t.auth).send({ name: 'racks', object_types: ['dcim.rack'], actions: ['view'], users: [userId] })).status).toBe(201);
  expect(occupied(await elevation(rack.id, '?limit=0', auth))).toEqual([['U20.5', null], ['U20', null], ['U11.5', null], ['U11', null], ['U10.5', null], ['U10', null], ['U5.5', null], ['U1.5', null], ['U1', null]]);
  expect((await t.api.post('/api/users/permissions/').set(t.auth).send({ name: 'device a', object_types: ['dcim.device'], actions: ['view'], users: [userId], constraints: { name: 'a' } })).status).toBe(201);
  expect(occupied(await elevation(rack.id, '?limit=0', auth)).filter(([, d]) => d)).toEqual([['U1.5', 'a'], ['U1', 'a']]);
});

test('bad input is a 400 naming the parameter; an unknown rack a 404; only GET', async () => {
  const bad = async (query: string) => {
    const res = await t.api.get(`/api/dcim/racks/${rack.id}/elevation/${query}`).set(t.auth);
    return [res.status, res.body];
  };
  expect(await bad('?face=side')).toEqual([400, { face: ['"side" is not a valid choice.'] }]);
  expect(await bad('?exclude=abc&expand_devices=maybe')).toEqual([400, { exclude: ['A valid integer is required.'], expand_devices: ['Must be a valid boolean.'] }]);
  expect(await bad('?unit_width=1e400')).toEqual([400, { unit_width: ['A valid integer is required.'] }]);
  expect(await bad('?q=')).toEqual([400, { q: ['This field may not be blank.'] }]);
  expect((await bad('?q=%00'))[0]).toBe(400);
  expect((await bad('?render=svg'))[0]).toBe(400);
  expect(Object.keys((await bad('?render=svg'))[1] as object)).toEqual(['render']);
  expect((await t.api.get('/api/dcim/racks/999999/elevation/').set(t.auth)).status).toBe(404);
  expect((await t.api.get('/api/dcim/racks/999999/elevation/?face=side').set(t.auth)).status).toBe(404);
  expect((await t.api.post(`/api/dcim/racks/${rack.id}/elevation/`).set(t.auth).send({})).status).toBe(405);
});

test('an elevation costs a constant number of queries, however many devices', async () => {
  t.queries.reset();
  await elevation(rack.id, '?limit=0');
  const few = t.queries.count;
  for (let i = 30; i < 40; i++) await post('dcim/devices', { name: `x${i}`, device_type: dt.one!.id, role: role.id, site: site.id, rack: rack.id, position: i, face: 'front' });
  t.queries.reset();
  await elevation(rack.id, '?limit=0');
  expect(t.queries.count).toBe(few);
});
