import { startTestApp, type TestApp } from '../support/test-app';
import { creatableModels } from '../support/valid-objects';
import { seedSource, type SeedSummary } from './seed-source';

/**
 * The import round trip's source data set (tests/import/seed-source.ts) is what it claims: every type a
 * client can create is there, the cable path runs through both patch panels, and the relation cycle
 * (a device's primary IP on its own interface) is closed.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let t: TestApp;
let seed: SeedSummary;

beforeAll(async () => {
  t = await startTestApp();
  seed = await seedSource(t);
}, 300_000);
afterAll(async () => {
  await t?.close();
});

test('every creatable served type has at least one object', () => {
  const empty = creatableModels(t.registry).map((m) => m.label).filter((label) => !(seed.counts[label]! > 0));
  expect(empty).toEqual([]);
});

test('the change log holds creations, updates and deletions', async () => {
  for (const action of ['create', 'update', 'delete']) {
    const res = await t.api.get(`/api/extras/object-changes/?action=${action}&limit=1`).set(t.auth);
    expect([action, res.status, (res.body as Json).count > 0]).toEqual([action, 200, true]);
  }
});

test('the trace from device A\'s interface runs through both patch panels to device B\'s interface', async () => {
  const { start, end, cables } = seed.ids.path;
  const res = await t.api.get(`/api/dcim/interfaces/${start.id}/trace/`).set(t.auth);
  expect(res.status).toBe(200);
  const segments = (res.body as Json[][]).map(([near, cable, far]) => [
    (near as Json[]).map((o) => `${o.device.name as string}:${o.name as string}`),
    (cable as Json).id,
    (far as Json[]).map((o) => `${o.device.name as string}:${o.name as string}`),
  ]);
  expect(segments).toEqual([
    [['leaf-a:et-0/0/0'], cables[0]!.id, ['panel-1:front1']],
    [['panel-1:rear1'], cables[1]!.id, ['panel-2:rear1']],
    [['panel-2:front1'], cables[2]!.id, ['leaf-b:et-0/0/0']],
  ]);
  const a = await t.api.get(`/api/dcim/interfaces/${start.id}/`).set(t.auth);
  expect([a.body.connected_endpoints.map((e: Json) => e.id), a.body.connected_endpoints_reachable]).toEqual([[end.id], true]);
});

test('device A\'s primary IPv4 and IPv6 are set, on its own interface; its config context merges several', async () => {
  const res = await t.api.get(`/api/dcim/devices/${seed.ids.devices.leafA.id}/`).set(t.auth);
  expect(res.status).toBe(200);
  const d = res.body as Json;
  expect([d.primary_ip4?.id, d.primary_ip6?.id, d.primary_ip?.id]).toEqual([seed.ids.primaryIp4.id, seed.ids.primaryIp6.id, seed.ids.primaryIp6.id]);
  const ip = await t.api.get(`/api/ipam/ip-addresses/${seed.ids.primaryIp4.id}/`).set(t.auth);
  expect([ip.body.assigned_object_type, ip.body.assigned_object.device.id]).toEqual(['dcim.interface', d.id]);
  expect(d.config_context).toMatchObject({ ntp_servers: ['192.0.2.123', '192.0.2.124'], dns_servers: ['192.0.2.53'], syslog: { level: 'debug' }, snmp: { community: 'public-ro' } });
  expect(d.config_context).not.toHaveProperty('never');
});

test('custom fields, tags, images and journal entries are on the objects', async () => {
  const site = (await t.api.get(`/api/dcim/sites/${seed.ids.sites.fra1.id}/`).set(t.auth)).body as Json;
  expect(site.custom_fields).toMatchObject({ asset_owner: 'Network Team', floor_count: 3, monitored: true, service_tier: 'gold' });
  // An object field's value is shown by id here (or nested, as NetBox 3.7 shows it): either names the object.
  const idOf = (v: unknown) => (typeof v === 'number' ? v : (v as Json | null)?.id);
  expect(idOf(site.custom_fields.owner_tenant)).toBe(seed.ids.tenant.id);
  expect((site.custom_fields.served_vlans as unknown[]).map(idOf)).toEqual([seed.ids.vlans.users.id, seed.ids.vlans.servers.id]);
  expect(site.tags.map((x: Json) => x.slug).sort()).toEqual(['core', 'monitored']);
  const images = await t.api.get(`/api/extras/image-attachments/?content_type=dcim.site&object_id=${site.id}`).set(t.auth);
  expect(images.body.results.map((i: Json) => [i.name, i.image_width, i.image_height])).toEqual([['Entrance', 9, 6]]);
  expect(seed.ids.deviceTypes.leaf.front_image).toMatch(/\/media\/devicetype-images\/.+\.png$/);
  expect(seed.counts['extras.journalentry']).toBeGreaterThanOrEqual(3);
});
