import { startTestApp, type TestApp } from '../support/test-app';

/**
 * A device comes with the components of its type's templates, and an installed module with those of its
 * module type, {module} replaced by the bay's position (docs/model-authors.md, "Instantiation"): names,
 * types, labels, front to rear port mappings, inventory items under their parents, all in the write's
 * transaction. A bulk create of 250 devices of a 48-port type is one request, one transaction.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let t: TestApp;
let site: number;
let role: number;
let manufacturer: number;

beforeAll(async () => {
  t = await startTestApp();
  site = await post('/api/dcim/sites/', { name: 'S1', slug: 's1' });
  role = await post('/api/dcim/device-roles/', { name: 'R1', slug: 'r1' });
  manufacturer = await post('/api/dcim/manufacturers/', { name: 'M1', slug: 'm1' });
});
afterAll(async () => {
  await t.close();
});

async function post(path: string, body: unknown): Promise<number> {
  const res = await t.api.post(path).set(t.auth).send(body as object);
  expect([path, res.status, res.status === 201 ? '' : res.text]).toEqual([path, 201, '']);
  return (res.body as { id: number }).id;
}

async function list(path: string): Promise<Json[]> {
  const res = await t.api.get(`${path}${path.includes('?') ? '&' : '?'}limit=1000`).set(t.auth);
  expect(res.status).toBe(200);
  return (res.body as { results: Json[] }).results;
}

async function deviceType(slug: string): Promise<number> {
  return post('/api/dcim/device-types/', { manufacturer, model: slug, slug });
}

test('a new device gets every component of its type, with names, types, labels and mappings', async () => {
  const dt = await deviceType('panel-24');
  await post('/api/dcim/console-port-templates/', { device_type: dt, name: 'Console', type: 'rj-45', label: 'CON' });
  await post('/api/dcim/console-server-port-templates/', { device_type: dt, name: 'CS1', type: 'rj-45' });
  const psu = await post('/api/dcim/power-port-templates/', { device_type: dt, name: 'PSU1', type: 'iec-60320-c14', maximum_draw: 500, allocated_draw: 300 });
  await post('/api/dcim/power-outlet-templates/', { device_type: dt, name: 'Out1', type: 'iec-60320-c13', power_port: psu, feed_leg: 'A' });
  const br = await post('/api/dcim/interface-templates/', { device_type: dt, name: 'br0', type: 'bridge' });
  await post('/api/dcim/interface-templates/', { device_type: dt, name: 'eth0', type: '1000base-t', mgmt_only: true, bridge: br });
  const rear = await post('/api/dcim/rear-port-templates/', { device_type: dt, name: 'Rear1', type: 'lc', positions: 2 });
  await post('/api/dcim/front-port-templates/', [
    { device_type: dt, name: 'Front1', type: 'lc', rear_port: rear, rear_port_position: 1 },
    { device_type: dt, name: 'Front2', type: 'lc', rear_port: rear, rear_port_position: 2 },
  ]);
  await post('/api/dcim/device-bay-templates/', { device_type: dt, name: 'Bay1' });
  await post('/api/dcim/module-bay-templates/', { device_type: dt, name: 'Slot1', position: '1' });
  const chassis = await post('/api/dcim/inventory-item-templates/', { device_type: dt, name: 'Chassis' });
  await post('/api/dcim/inventory-item-templates/', { device_type: dt, name: 'Fan', parent: chassis, part_id: 'F-1' });

  const typeRep = (await t.api.get(`/api/dcim/device-types/${dt}/`).set(t.auth)).body as Json;
  expect([typeRep.console_port_template_count, typeRep.interface_template_count, typeRep.front_port_template_count, typeRep.inventory_item_template_count]).toEqual([1, 2, 2, 2]);

  const dev = await post('/api/dcim/devices/', { name: 'pp1', device_type: dt, role, site });
  const d = `?device_id=${dev}`;
  const cp = await list(`/api/dcim/console-ports/${d}`);
  expect(cp.map((x) => [x.name, x.type.value, x.label, x.device.id])).toEqual([['Console', 'rj-45', 'CON', dev]]);
  expect((await list(`/api/dcim/console-server-ports/${d}`)).map((x) => x.name)).toEqual(['CS1']);
  const pp = await list(`/api/dcim/power-ports/${d}`);
  expect(pp.map((x) => [x.name, x.maximum_draw, x.allocated_draw])).toEqual([['PSU1', 500, 300]]);
  const po = await list(`/api/dcim/power-outlets/${d}`);
  expect(po.map((x) => [x.name, x.power_port.id, x.feed_leg.value])).toEqual([['Out1', pp[0]!.id, 'A']]);
  const ifs = await list(`/api/dcim/interfaces/${d}`);
  const byName = Object.fromEntries(ifs.map((x) => [x.name, x]));
  expect([byName.eth0.mgmt_only, byName.eth0.bridge.id, byName.br0.bridge]).toEqual([true, byName.br0.id, null]);
  const rp = await list(`/api/dcim/rear-ports/${d}`);
  expect(rp.map((x) => [x.name, x.positions])).toEqual([['Rear1', 2]]);
  const fp = await list(`/api/dcim/front-ports/${d}`);
  expect(fp.map((x) => [x.name, x.rear_port.id, x.rear_port_position])).toEqual([['Front1', rp[0]!.id, 1], ['Front2', rp[0]!.id, 2]]);
  expect((await list(`/api/dcim/device-bays/${d}`)).map((x) => x.name)).toEqual(['Bay1']);
  expect((await list(`/api/dcim/module-bays/${d}`)).map((x) => [x.name, x.position])).toEqual([['Slot1', '1']]);
  const inv = await list(`/api/dcim/inventory-items/${d}`);
  const chassisItem = inv.find((x) => x.name === 'Chassis')!;
  expect(inv.map((x) => [x.name, x.parent, x._depth, x.part_id])).toEqual([['Chassis', null, 0, ''], ['Fan', chassisItem.id, 1, 'F-1']]);

  const devRep = (await t.api.get(`/api/dcim/devices/${dev}/`).set(t.auth)).body as Json;
  expect([devRep.console_port_count, devRep.console_server_port_count, devRep.power_port_count, devRep.power_outlet_count, devRep.interface_count, devRep.front_port_count, devRep.rear_port_count, devRep.device_bay_count, devRep.module_bay_count, devRep.inventory_item_count]).toEqual([1, 1, 1, 1, 2, 2, 1, 1, 1, 2]);
});

test('a device refused by its own rules leaves no components behind', async () => {
  const dt = await deviceType('refused');
  await post('/api/dcim/interface-templates/', { device_type: dt, name: 'eth0', type: '1000base-t' });
  await post('/api/dcim/devices/', { name: 'dup', device_type: dt, role, site });
  const before = (await list('/api/dcim/interfaces/?device_type_id=' + dt)).length;
  const res = await t.api.post('/api/dcim/devices/').set(t.auth).send([{ name: 'ok-one', device_type: dt, role, site }, { name: 'dup', device_type: dt, role, site }]);
  expect(res.status).toBe(400);
  expect((await list('/api/dcim/interfaces/?device_type_id=' + dt)).length).toBe(before);
});

test('installing a module creates its module type\'s components with {module} replaced by the bay position, and refuses a name collision', async () => {
  const dt = await deviceType('chassis');
  await post('/api/dcim/module-bay-templates/', [{ device_type: dt, name: 'Slot 1', position: '1' }, { device_type: dt, name: 'Slot 2', position: '2' }]);
  await post('/api/dcim/interface-templates/', { device_type: dt, name: 'Gi2/0/1', type: '1000base-t' });
  const mt = await post('/api/dcim/module-types/', { manufacturer, model: 'LC-24' });
  await post('/api/dcim/interface-templates/', [
    { module_type: mt, name: 'Gi{module}/0/1', type: '1000base-t', label: 'port {module}' },
    { module_type: mt, name: 'Gi{module}/0/2', type: '1000base-t' },
  ]);
  const rear = await post('/api/dcim/rear-port-templates/', { module_type: mt, name: 'R{module}', type: 'lc' });
  await post('/api/dcim/front-port-templates/', { module_type: mt, name: 'F{module}', type: 'lc', rear_port: rear });
  const dev = await post('/api/dcim/devices/', { name: 'sw1', device_type: dt, role, site });
  const bays = await list(`/api/dcim/module-bays/?device_id=${dev}`);
  const slot1 = bays.find((b) => b.name === 'Slot 1')!.id;
  const slot2 = bays.find((b) => b.name === 'Slot 2')!.id;

  const mod = await post('/api/dcim/modules/', { device: dev, module_bay: slot1, module_type: mt });
  const ifs = await list(`/api/dcim/interfaces/?module_id=${mod}`);
  expect(ifs.map((x) => [x.name, x.label, x.device.id, x.module.id])).toEqual([['Gi1/0/1', 'port 1', dev, mod], ['Gi1/0/2', '', dev, mod]]);
  const fp = await list(`/api/dcim/front-ports/?module_id=${mod}`);
  const rp = await list(`/api/dcim/rear-ports/?module_id=${mod}`);
  expect(fp.map((x) => [x.name, x.rear_port.id])).toEqual([['F1', rp[0]!.id]]);
  expect((await t.api.get(`/api/dcim/module-bays/${slot1}/`).set(t.auth)).body.installed_module.id).toBe(mod);

  // Slot 2's module would make Gi2/0/1, which the device has already: refused, and nothing of it is kept.
  const res = await t.api.post('/api/dcim/modules/').set(t.auth).send({ device: dev, module_bay: slot2, module_type: mt });
  expect(res.status).toBe(400);
  expect(Object.keys(res.body as object)).toEqual(['non_field_errors']);
  expect((await list(`/api/dcim/modules/?device_id=${dev}`)).length).toBe(1);
  expect((await list(`/api/dcim/interfaces/?device_id=${dev}`)).map((x) => x.name).sort()).toEqual(['Gi1/0/1', 'Gi1/0/2', 'Gi2/0/1']);

  // Removing the module removes its components.
  expect((await t.api.delete(`/api/dcim/modules/${mod}/`).set(t.auth)).status).toBe(204);
  expect((await list(`/api/dcim/interfaces/?device_id=${dev}`)).map((x) => x.name)).toEqual(['Gi2/0/1']);
});

test('250 devices of a 48-port type in one bulk request: one transaction, every port made', async () => {
  const dt = await deviceType('switch-48');
  await post('/api/dcim/interface-templates/', Array.from({ length: 48 }, (_, i) => ({ device_type: dt, name: `ge-0/0/${i}`, type: '1000base-t' })));
  await post('/api/dcim/console-port-templates/', { device_type: dt, name: 'con' });
  await post('/api/dcim/power-port-templates/', [{ device_type: dt, name: 'PSU1' }, { device_type: dt, name: 'PSU2' }]);
  const started = process.hrtime.bigint();
  const res = await t.api.post('/api/dcim/devices/').set(t.auth).send(Array.from({ length: 250 }, (_, i) => ({ name: `leaf-${i}`, device_type: dt, role, site })));
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  expect(res.status).toBe(201);
  // The figure the closing note quotes (in-process, this machine).
  console.log(`bulk create of 250 devices x 51 components: ${ms.toFixed(0)} ms`);
  const count = await t.knex.raw(`SELECT count(*)::int AS n, count(DISTINCT "device_id")::int AS d FROM "dcim_interface" WHERE "device_id" = ANY(?)`, [(res.body as Json[]).map((d) => d.id)]);
  expect(count.rows[0]).toEqual({ n: 250 * 48, d: 250 });
  const leaf = (res.body as Json[])[249]!;
  expect([leaf.interface_count, leaf.console_port_count, leaf.power_port_count]).toEqual([48, 1, 2]);
});
