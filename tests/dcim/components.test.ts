import { readNetboxReference } from '../reference/netbox-reference-file';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * The DCIM types issue 12 adds, against NetBox 3.7.8's reference: the full key set of each endpoint
 * (exactly NetBox's), brief forms, defaults, and the cross-object rules NetBox's clean() keeps (a front
 * port's rear port on the same device and within its positions, a module in a bay of its own device).
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const REFERENCE = readNetboxReference<{ endpoints: Record<string, { fields: Record<string, unknown> }> }>();

let t: TestApp;
const made: Record<string, Json> = {};

async function post(p: string, body: unknown): Promise<Json> {
  const res = await t.api.post(`/api/${p}/`).set(t.auth).send(body as object);
  expect([p, res.status, res.status === 201 ? '' : res.text]).toEqual([p, 201, '']);
  return res.body as Json;
}

beforeAll(async () => {
  t = await startTestApp();
  const site = await post('dcim/sites', { name: 'S', slug: 's' });
  const role = await post('dcim/device-roles', { name: 'R', slug: 'r' });
  const mf = await post('dcim/manufacturers', { name: 'M', slug: 'm' });
  const dt = await post('dcim/device-types', { manufacturer: mf.id, model: 'T', slug: 't' });
  const dev = await post('dcim/devices', { name: 'd1', device_type: dt.id, role: role.id, site: site.id });
  const dev2 = await post('dcim/devices', { name: 'd2', device_type: dt.id, role: role.id, site: site.id });
  const rack = await post('dcim/racks', { name: 'rack1', site: site.id });
  made['dcim/console-ports'] = await post('dcim/console-ports', { device: dev.id, name: 'con0' });
  made['dcim/console-server-ports'] = await post('dcim/console-server-ports', { device: dev2.id, name: 'cs0', type: 'rj-45', speed: 9600 });
  made['dcim/power-ports'] = await post('dcim/power-ports', { device: dev.id, name: 'psu0' });
  made['dcim/power-outlets'] = await post('dcim/power-outlets', { device: dev.id, name: 'out0', power_port: made['dcim/power-ports'].id });
  made['dcim/rear-ports'] = await post('dcim/rear-ports', { device: dev.id, name: 'r0', type: 'lc', positions: 4 });
  made['dcim/front-ports'] = await post('dcim/front-ports', { device: dev.id, name: 'f0', type: 'lc', rear_port: made['dcim/rear-ports'].id, rear_port_position: 4 });
  made['dcim/device-bays'] = await post('dcim/device-bays', { device: dev.id, name: 'bay0' });
  made['dcim/module-bays'] = await post('dcim/module-bays', { device: dev.id, name: 'slot0', position: '3' });
  made['dcim/inventory-item-roles'] = await post('dcim/inventory-item-roles', { name: 'PSU', slug: 'psu' });
  made['dcim/inventory-items'] = await post('dcim/inventory-items', { device: dev.id, name: 'item0', role: made['dcim/inventory-item-roles'].id, component_type: 'dcim.powerport', component_id: made['dcim/power-ports'].id });
  made['dcim/module-types'] = await post('dcim/module-types', { manufacturer: mf.id, model: 'LC' });
  made['dcim/modules'] = await post('dcim/modules', { device: dev.id, module_bay: made['dcim/module-bays'].id, module_type: made['dcim/module-types'].id });
  const dtId = { device_type: dt.id };
  made['dcim/console-port-templates'] = await post('dcim/console-port-templates', { ...dtId, name: 'con0' });
  made['dcim/console-server-port-templates'] = await post('dcim/console-server-port-templates', { ...dtId, name: 'cs0' });
  made['dcim/power-port-templates'] = await post('dcim/power-port-templates', { ...dtId, name: 'psu0' });
  made['dcim/power-outlet-templates'] = await post('dcim/power-outlet-templates', { ...dtId, name: 'out0', power_port: made['dcim/power-port-templates'].id });
  made['dcim/interface-templates'] = await post('dcim/interface-templates', { ...dtId, name: 'eth0', type: '1000base-t' });
  made['dcim/rear-port-templates'] = await post('dcim/rear-port-templates', { ...dtId, name: 'r0', type: 'lc' });
  made['dcim/front-port-templates'] = await post('dcim/front-port-templates', { ...dtId, name: 'f0', type: 'lc', rear_port: made['dcim/rear-port-templates'].id });
  made['dcim/device-bay-templates'] = await post('dcim/device-bay-templates', { ...dtId, name: 'bay0' });
  made['dcim/module-bay-templates'] = await post('dcim/module-bay-templates', { ...dtId, name: 'slot0' });
  made['dcim/inventory-item-templates'] = await post('dcim/inventory-item-templates', { ...dtId, name: 'item0' });
  made['dcim/power-panels'] = await post('dcim/power-panels', { site: site.id, name: 'PP1' });
  made['dcim/power-feeds'] = await post('dcim/power-feeds', { power_panel: made['dcim/power-panels'].id, name: 'F1', rack: rack.id });
  const users = (await t.api.get('/api/users/users/').set(t.auth)).body.results as Json[];
  made['dcim/rack-reservations'] = await post('dcim/rack-reservations', { rack: rack.id, units: [1, 2], user: users[0]!.id, description: 'spare' });
  made['dcim/virtual-device-contexts'] = await post('dcim/virtual-device-contexts', { device: dev.id, name: 'vdc1', status: 'active', identifier: 1 });
  const vm = await post('virtualization/virtual-machines', { name: 'vm1', site: site.id });
  made['virtualization/virtual-disks'] = await post('virtualization/virtual-disks', { virtual_machine: vm.id, name: 'disk0', size: 20 });
});
afterAll(async () => {
  await t.close();
});

const ENDPOINTS = [
  'console-ports', 'console-server-ports', 'power-ports', 'power-outlets', 'front-ports', 'rear-ports', 'device-bays', 'module-bays', 'inventory-items', 'inventory-item-roles',
  'console-port-templates', 'console-server-port-templates', 'power-port-templates', 'power-outlet-templates', 'interface-templates', 'front-port-templates', 'rear-port-templates',
  'device-bay-templates', 'module-bay-templates', 'inventory-item-templates', 'modules', 'module-types', 'power-panels', 'power-feeds', 'rack-reservations', 'virtual-device-contexts',
].map((p) => `dcim/${p}`).concat(['virtualization/virtual-disks']);

test.each(ENDPOINTS)('%s: the full representation has exactly NetBox 3.7\'s keys', async (endpoint) => {
  const res = await t.api.get(`/api/${endpoint}/${made[endpoint]!.id}/`).set(t.auth);
  expect(res.status).toBe(200);
  expect(Object.keys(res.body as object).sort()).toEqual(Object.keys(REFERENCE.endpoints[endpoint]!.fields).sort());
});

test('devices, device types, interfaces, racks, manufacturers and VMs show the counts and links NetBox 3.7 has', async () => {
  for (const [endpoint, keys] of [
    ['dcim/devices', ['console_port_count', 'console_server_port_count', 'power_port_count', 'power_outlet_count', 'front_port_count', 'rear_port_count', 'device_bay_count', 'module_bay_count', 'inventory_item_count']],
    ['dcim/device-types', ['console_port_template_count', 'interface_template_count', 'front_port_template_count', 'inventory_item_template_count', 'module_bay_template_count']],
    ['dcim/interfaces', ['module', 'vdcs']],
    ['dcim/racks', ['powerfeed_count']],
    ['dcim/manufacturers', ['inventoryitem_count']],
    ['virtualization/virtual-machines', ['virtual_disk_count']],
  ] as const) {
    const list = await t.api.get(`/api/${endpoint}/?limit=1`).set(t.auth);
    const first = (list.body.results as Json[])[0];
    if (first) for (const k of keys) expect([endpoint, k, k in first]).toEqual([endpoint, k, true]);
  }
  const dev = (await t.api.get(`/api/dcim/devices/${made['dcim/console-ports']!.device.id}/`).set(t.auth)).body as Json;
  expect([dev.console_port_count, dev.power_port_count, dev.power_outlet_count, dev.front_port_count, dev.rear_port_count, dev.device_bay_count, dev.module_bay_count, dev.inventory_item_count]).toEqual([1, 1, 1, 1, 1, 1, 1, 1]);
  const mt = (await t.api.get(`/api/dcim/module-bays/${made['dcim/module-bays']!.id}/`).set(t.auth)).body as Json;
  expect(mt.installed_module.id).toBe(made['dcim/modules']!.id);
  const vm = (await t.api.get(`/api/virtualization/virtual-machines/${made['virtualization/virtual-disks']!.virtual_machine.id}/`).set(t.auth)).body as Json;
  expect(vm.virtual_disk_count).toBe(1);
});

test('a module shows as NetBox\'s Module: bay name, module type and id; a cable its label, else #id', async () => {
  const m = made['dcim/modules']!;
  expect(m.display).toBe(`slot0: LC (${m.id})`);
  const bay = (await t.api.get(`/api/dcim/module-bays/${made['dcim/module-bays']!.id}/`).set(t.auth)).body as Json;
  expect(bay.installed_module.display).toBe(`slot0: LC (${m.id})`);
  const a = made['dcim/console-ports']!;
  const b = made['dcim/console-server-ports']!;
  const labelled = await post('dcim/cables', { a_terminations: [{ object_type: 'dcim.consoleport', object_id: a.id }], b_terminations: [{ object_type: 'dcim.consoleserverport', object_id: b.id }], label: 'console-1' });
  expect(labelled.display).toBe('console-1');
  const plain = (await t.api.patch(`/api/dcim/cables/${labelled.id}/`).set(t.auth).send({ label: '' })).body as Json;
  expect(plain.display).toBe(`#${labelled.id}`);
  expect((await t.api.delete(`/api/dcim/cables/${labelled.id}/`).set(t.auth)).status).toBe(204);
});

test('NetBox\'s defaults and brief forms', async () => {
  // A blank choice reads as null, as NetBox's ChoiceField shows ''.
  const cp = made['dcim/console-ports']!;
  expect([cp.type, cp.speed, cp.mark_connected, cp.cable, cp._occupied, cp.link_peers, cp.link_peers_type, cp.connected_endpoints, cp.connected_endpoints_reachable]).toEqual([null, null, false, null, false, [], null, null, null]);
  const feed = made['dcim/power-feeds']!;
  expect([feed.status.value, feed.type.value, feed.supply.value, feed.phase.value, feed.voltage, feed.amperage, feed.max_utilization]).toEqual(['active', 'primary', 'ac', 'single-phase', 120, 20, 80]);
  expect(made['dcim/rear-ports']!.positions).toBe(4);
  expect(made['dcim/inventory-item-roles']!.color).toBe('9e9e9e');
  const brief = async (endpoint: string) => Object.keys(((await t.api.get(`/api/${endpoint}/?brief=1`).set(t.auth)).body.results as Json[])[0]!);
  expect(await brief('dcim/power-ports')).toEqual(['id', 'url', 'display', 'device', 'name', 'cable', '_occupied']);
  expect(await brief('dcim/module-bays')).toEqual(['id', 'url', 'display', 'installed_module', 'name']);
  expect(await brief('dcim/interface-templates')).toEqual(['id', 'url', 'display', 'name']);
  expect(await brief('dcim/module-types')).toEqual(['id', 'url', 'display', 'manufacturer', 'model']);
  expect(await brief('dcim/power-panels')).toEqual(['id', 'url', 'display', 'name']);
});

test('a cable between a console port and a console server port shows each as the other\'s link peer', async () => {
  const a = made['dcim/console-ports']!;
  const b = made['dcim/console-server-ports']!;
  await post('dcim/cables', { a_terminations: [{ object_type: 'dcim.consoleport', object_id: a.id }], b_terminations: [{ object_type: 'dcim.consoleserverport', object_id: b.id }] });
  const got = (await t.api.get(`/api/dcim/console-ports/${a.id}/`).set(t.auth)).body as Json;
  expect([got._occupied, got.cable_end, got.link_peers_type, got.link_peers.map((p: Json) => p.id)]).toEqual([true, 'A', 'dcim.consoleserverport', [b.id]]);
  const listed = await t.api.get(`/api/dcim/console-ports/?cabled=true&device_id=${a.device.id}`).set(t.auth);
  expect((listed.body.results as Json[]).map((x) => x.id)).toEqual([a.id]);
});

test('cross-object rules: a front port\'s rear port on its device and within its positions, a module in its device\'s bay, unique names', async () => {
  const fp = made['dcim/front-ports']!;
  const other = await post('dcim/rear-ports', { device: made['dcim/console-server-ports']!.device.id, name: 'r9', type: 'lc' });
  let res = await t.api.post('/api/dcim/front-ports/').set(t.auth).send({ device: fp.device.id, name: 'f9', type: 'lc', rear_port: other.id });
  expect([res.status, Object.keys(res.body as object)]).toEqual([400, ['rear_port']]);
  res = await t.api.post('/api/dcim/front-ports/').set(t.auth).send({ device: fp.device.id, name: 'f9', type: 'lc', rear_port: fp.rear_port.id, rear_port_position: 5 });
  expect([res.status, Object.keys(res.body as object)]).toEqual([400, ['rear_port_position']]);
  res = await t.api.post('/api/dcim/front-ports/').set(t.auth).send({ device: fp.device.id, name: 'f9', type: 'lc', rear_port: fp.rear_port.id, rear_port_position: 4 });
  expect([res.status, res.body]).toEqual([400, { non_field_errors: ['Front port with this Rear port and Rear port position already exists.'] }]);
  res = await t.api.post('/api/dcim/console-ports/').set(t.auth).send({ device: fp.device.id, name: 'con0' });
  expect([res.status, res.body]).toEqual([400, { non_field_errors: ['Console port with this Device and Name already exists.'] }]);
  const bay = await post('dcim/module-bays', { device: made['dcim/console-server-ports']!.device.id, name: 'slot9' });
  res = await t.api.post('/api/dcim/modules/').set(t.auth).send({ device: fp.device.id, module_bay: bay.id, module_type: made['dcim/module-types']!.id });
  expect([res.status, Object.keys(res.body as object)]).toEqual([400, ['module_bay']]);
  res = await t.api.post('/api/dcim/power-port-templates/').set(t.auth).send({ name: 'orphan' });
  expect([res.status, res.body]).toEqual([400, { non_field_errors: ['A component template must be associated with either a device type or a module type.'] }]);
});
