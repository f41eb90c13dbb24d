import type { SeedClient } from './seed-client';
import type { SeedIds } from './seed-ids';

/**
 * Where things are: a tenant, nested regions and site groups, two sites, a three-level location tree
 * and two racks (one reserved). Trees matter to an importer: a child's parent must exist first.
 */
export async function seedPlaces(c: SeedClient, ids: SeedIds): Promise<void> {
  const tenantGroup = await c.post('tenancy/tenant-groups', { name: 'Customers', slug: 'customers' });
  ids.tenant = await c.post('tenancy/tenants', { name: 'Acme Corp', slug: 'acme', group: tenantGroup.id, tags: [ids.tags.core.id] });
  const europe = await c.post('dcim/regions', { name: 'Europe', slug: 'europe' });
  const germany = await c.post('dcim/regions', { name: 'Germany', slug: 'de', parent: europe.id });
  ids.regions = { europe, germany };
  const production = await c.post('dcim/site-groups', { name: 'Production', slug: 'production' });
  ids.siteGroup = await c.post('dcim/site-groups', { name: 'Core sites', slug: 'core-sites', parent: production.id });
  const fra1 = await c.post('dcim/sites', {
    name: 'FRA1', slug: 'fra1', status: 'active', region: germany.id, group: ids.siteGroup.id, tenant: ids.tenant.id,
    facility: 'Equinix FR5', time_zone: 'Europe/Berlin', physical_address: 'Kruppstrasse 121, Frankfurt', latitude: 50.1109, longitude: 8.6821,
    tags: [ids.tags.core.id, ids.tags.monitored.id],
    custom_fields: { asset_owner: 'Network Team', floor_count: 3, monitored: true, service_tier: 'gold', owner_tenant: ids.tenant.id },
  });
  const ber1 = await c.post('dcim/sites', { name: 'BER1', slug: 'ber1', status: 'planned', region: germany.id, description: 'Berlin edge' });
  ids.sites = { fra1, ber1 };
  const building = await c.post('dcim/locations', { name: 'Building A', slug: 'building-a', site: fra1.id });
  const floor = await c.post('dcim/locations', { name: 'Floor 1', slug: 'floor-1', site: fra1.id, parent: building.id });
  const room = await c.post('dcim/locations', { name: 'Room 101', slug: 'room-101', site: fra1.id, parent: floor.id, tenant: ids.tenant.id, status: 'active' });
  ids.locations = { building, floor, room };
  const rackRole = await c.post('dcim/rack-roles', { name: 'Network', slug: 'network', color: '2196f3' });
  const rack = (name: string) => c.post('dcim/racks', { name, site: fra1.id, location: room.id, role: rackRole.id, status: 'active', u_height: 42, width: 19, type: '4-post-cabinet', tags: [ids.tags.core.id] });
  ids.racks = { r1: await rack('R1'), r2: await rack('R2') };
  ids.admin = await c.one('users/users/?username=admin');
  await c.post('dcim/rack-reservations', { rack: ids.racks.r1.id, units: [1, 2, 3], user: ids.admin.id, tenant: ids.tenant.id, description: 'Reserved for the firewall pair' });
}
