import type { TestApp } from '../../support/test-app';
import { end, SeedClient } from './seed-client';
import type { SeedIds } from './seed-ids';

/** What `import --sync` must find after sourceChanges: per type, at least this many of each. */
export type ExpectedTallies = Record<string, { created?: number; updated?: number; deleted?: number }>;

/**
 * Changes made on the source after a first import, for `--sync` to carry: objects changed, deleted (a
 * cable, whose path goes with it; a picture, whose file goes with it; a tag, taken off what it was on) and
 * created (a site with a device whose components are instantiated, a cable on a port the deleted cable
 * freed, an address set as the new device's primary IP). Returns the smallest tallies the report must show.
 */
export async function sourceChanges(t: TestApp, ids: SeedIds): Promise<ExpectedTallies> {
  const c = new SeedClient(t);
  // Updates.
  await c.patch('dcim/sites', ids.sites.fra1.id, { description: 'Frankfurt primary (renovated)', custom_fields: { floor_count: 4, service_tier: 'bronze' } });
  await c.patch('dcim/devices', ids.devices.leafB.id, { serial: 'SN-B-0002-RMA', tags: [ids.tags.core.id, ids.tags.monitored.id] });
  await c.patch('extras/tags', ids.tags.core.id, { color: '000000', description: 'Core network (all sites)' });
  await c.patch('ipam/ip-addresses', ids.primaryIp4.id, { dns_name: 'leaf-a.fra1.example.com' });

  // Deletions.
  await c.delete('dcim/cables', ids.directCable.id);
  await c.delete('extras/image-attachments', ids.rackImage.id);
  await c.delete('extras/tags', ids.tags.legacy.id);
  const outage = await c.one(`extras/journal-entries/?assigned_object_type=circuits.circuit&assigned_object_id=${ids.circuit.id}`);
  await c.delete('extras/journal-entries', outage.id);

  // Creations.
  const ams1 = await c.post('dcim/sites', { name: 'AMS1', slug: 'ams1', region: ids.regions.europe.id, tags: [ids.tags.monitored.id], custom_fields: { asset_owner: 'Edge Team', monitored: true, owner_tenant: ids.tenant.id } });
  const leafC = await c.post('dcim/devices', { name: 'leaf-c', device_type: ids.deviceTypes.leaf.id, role: ids.roles.leaf.id, site: ams1.id, status: 'planned' });
  const iface = (device: number, name: string) => c.one(`dcim/interfaces/?device_id=${device}&name=${encodeURIComponent(name)}`);
  await c.post('dcim/cables', { a_terminations: end('dcim.interface', await iface(leafC.id, 'et-0/0/0')), b_terminations: end('dcim.interface', await iface(ids.devices.leafA.id, 'et-0/0/2')), type: 'smf', label: 'FRA1-AMS1' });
  const ip = await c.post('ipam/ip-addresses', { address: '10.2.0.1/24', assigned_object_type: 'dcim.interface', assigned_object_id: (await iface(leafC.id, 'em0')).id });
  await c.patch('dcim/devices', leafC.id, { primary_ip4: ip.id });
  await c.post('extras/journal-entries', { assigned_object_type: 'dcim.device', assigned_object_id: leafC.id, comments: 'Shipped to AMS1' });
  await c.upload('extras/image-attachments', { content_type: 'dcim.site', object_id: ams1.id, name: 'AMS1 cage' }, 'image', [5, 5], 'ams1.png');

  return {
    'dcim.site': { created: 1, updated: 1 },
    'dcim.device': { created: 1, updated: 1 },
    // leaf-c's four et- ports and em0, instantiated from its type.
    'dcim.interface': { created: 5 },
    'dcim.cable': { created: 1, deleted: 1 },
    'extras.tag': { updated: 1, deleted: 1 },
    'ipam.ipaddress': { created: 1, updated: 1 },
    'extras.journalentry': { created: 1, deleted: 1 },
    'extras.imageattachment': { created: 1, deleted: 1 },
  };
}
