import { end, type ApiObject, type SeedClient } from './seed-client';
import type { SeedIds } from './seed-ids';

/**
 * Device types with component templates (so devices get their components by instantiation, rows no
 * client wrote one by one), four devices in racks, and a path through two patch panels:
 * leaf-a et-0/0/0 -> front1 of panel-1; panel-1 rear1 -> panel-2 rear1; panel-2 front1 -> leaf-b et-0/0/0.
 * Power and console cables too, so more than one cable kind and termination type is carried.
 */
export async function seedDevicesAndCables(c: SeedClient, ids: SeedIds): Promise<void> {
  const juniper = await c.post('dcim/manufacturers', { name: 'Juniper', slug: 'juniper' });
  const panduit = await c.post('dcim/manufacturers', { name: 'Panduit', slug: 'panduit' });
  ids.platform = await c.post('dcim/platforms', { name: 'Junos', slug: 'junos', manufacturer: juniper.id });
  // A device type with a picture of its front (a file the importer must copy).
  const leafType = await c.upload('dcim/device-types', { manufacturer: juniper.id, model: 'QFX5120-48Y', slug: 'qfx5120-48y', u_height: 1, part_number: 'QFX5120-48Y-AFO' }, 'front_image', [12, 2], 'qfx-front.png');
  const panelType = await c.post('dcim/device-types', { manufacturer: panduit.id, model: 'Patch panel 2-port', slug: 'pp-2', u_height: 1 });
  ids.deviceTypes = { leaf: leafType, panel: panelType };
  for (let i = 0; i < 4; i++) await c.post('dcim/interface-templates', { device_type: leafType.id, name: `et-0/0/${i}`, type: '10gbase-x-sfpp' });
  await c.post('dcim/interface-templates', { device_type: leafType.id, name: 'em0', type: '1000base-t', mgmt_only: true });
  await c.post('dcim/console-port-templates', { device_type: leafType.id, name: 'con', type: 'rj-45' });
  await c.post('dcim/power-port-templates', { device_type: leafType.id, name: 'PSU0', type: 'iec-60320-c14', maximum_draw: 350, allocated_draw: 200 });
  const rearT = await c.post('dcim/rear-port-templates', { device_type: panelType.id, name: 'rear1', type: 'lc', positions: 2 });
  for (const p of [1, 2]) await c.post('dcim/front-port-templates', { device_type: panelType.id, name: `front${p}`, type: 'lc', rear_port: rearT.id, rear_port_position: p });

  const leafRole = await c.post('dcim/device-roles', { name: 'Leaf', slug: 'leaf', color: '009688', vm_role: false });
  const panelRole = await c.post('dcim/device-roles', { name: 'Patch panel', slug: 'patch-panel', color: '9e9e9e' });
  ids.roles = { leaf: leafRole, panel: panelRole };
  const where = { site: ids.sites.fra1.id, location: ids.locations.room.id };
  const leaf = (name: string, rack: ApiObject, serial: string) =>
    c.post('dcim/devices', { name, device_type: leafType.id, role: leafRole.id, platform: ids.platform.id, tenant: ids.tenant.id, ...where, rack: rack.id, position: 10, face: 'front', status: 'active', serial, airflow: 'front-to-rear', tags: [ids.tags.core.id], custom_fields: { asset_owner: 'Network Team', service_tier: 'silver', commissioned: '2024-03-01' }, local_context_data: { snmp: { community: 'public-ro' } } });
  const panel = (name: string, rack: ApiObject) => c.post('dcim/devices', { name, device_type: panelType.id, role: panelRole.id, ...where, rack: rack.id, position: 40, face: 'front' });
  ids.devices = {
    leafA: await leaf('leaf-a', ids.racks.r1, 'SN-A-0001'),
    leafB: await leaf('leaf-b', ids.racks.r2, 'SN-B-0002'),
    panel1: await panel('panel-1', ids.racks.r1),
    panel2: await panel('panel-2', ids.racks.r2),
  };

  const one = (path: string, device: ApiObject, name: string) => c.one(`${path}/?device_id=${device.id}&name=${encodeURIComponent(name)}`);
  const start = await one('dcim/interfaces', ids.devices.leafA, 'et-0/0/0');
  const finish = await one('dcim/interfaces', ids.devices.leafB, 'et-0/0/0');
  const front1 = await one('dcim/front-ports', ids.devices.panel1, 'front1');
  const rear1 = await one('dcim/rear-ports', ids.devices.panel1, 'rear1');
  const rear2 = await one('dcim/rear-ports', ids.devices.panel2, 'rear1');
  const front2 = await one('dcim/front-ports', ids.devices.panel2, 'front1');
  const cables = [
    await c.post('dcim/cables', { a_terminations: end('dcim.interface', start), b_terminations: end('dcim.frontport', front1), type: 'smf', color: 'ffeb3b', length: 3, length_unit: 'm', label: 'A-P1' }),
    await c.post('dcim/cables', { a_terminations: end('dcim.rearport', rear1), b_terminations: end('dcim.rearport', rear2), type: 'smf', label: 'P1-P2 trunk', tenant: ids.tenant.id, tags: [ids.tags.core.id] }),
    await c.post('dcim/cables', { a_terminations: end('dcim.frontport', front2), b_terminations: end('dcim.interface', finish), type: 'smf', status: 'connected', label: 'P2-B' }),
  ];
  ids.path = { start, end: finish, cables };

  // A direct cable between the two leaves' second ports, and power from a feed.
  ids.directCable = await c.post('dcim/cables', { a_terminations: end('dcim.interface', await one('dcim/interfaces', ids.devices.leafA, 'et-0/0/2')), b_terminations: end('dcim.interface', await one('dcim/interfaces', ids.devices.leafB, 'et-0/0/2')), type: 'dac-passive' });
  const powerPanel = await c.post('dcim/power-panels', { site: ids.sites.fra1.id, location: ids.locations.room.id, name: 'PP-1' });
  const feed = await c.post('dcim/power-feeds', { power_panel: powerPanel.id, rack: ids.racks.r1.id, name: 'Feed A', voltage: 230, amperage: 16, phase: 'single-phase', supply: 'ac' });
  await c.post('dcim/cables', { a_terminations: end('dcim.powerport', await one('dcim/power-ports', ids.devices.leafA, 'PSU0')), b_terminations: end('dcim.powerfeed', feed), type: 'power' });
}
