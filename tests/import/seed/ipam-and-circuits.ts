import { end, type ApiObject, type SeedClient } from './seed-client';
import type { SeedIds } from './seed-ids';

/**
 * Addressing and transport: a VRF with route targets, an aggregate, nested prefixes, a VLAN group scoped
 * to the site, VLANs on an interface, addresses on interfaces set as a device's primary IPs (the relation
 * cycle device -> IP -> interface -> device an importer must break and close), and a circuit whose A end
 * is cabled to a device.
 */
export async function seedIpamAndCircuits(c: SeedClient, ids: SeedIds): Promise<void> {
  const rt1 = await c.post('ipam/route-targets', { name: '65000:100', tenant: ids.tenant.id });
  const rt2 = await c.post('ipam/route-targets', { name: '65000:200' });
  ids.vrf = await c.post('ipam/vrfs', { name: 'prod', rd: '65000:1', tenant: ids.tenant.id, enforce_unique: true, import_targets: [rt1.id, rt2.id], export_targets: [rt1.id] });
  const rir = await c.post('ipam/rirs', { name: 'RFC 1918', slug: 'rfc1918', is_private: true });
  await c.post('ipam/aggregates', { prefix: '10.0.0.0/8', rir: rir.id, date_added: '2020-01-15' });
  const role = await c.post('ipam/roles', { name: 'Servers', slug: 'servers', weight: 500 });
  const group = await c.post('ipam/vlan-groups', { name: 'FRA1 VLANs', slug: 'fra1-vlans', scope_type: 'dcim.site', scope_id: ids.sites.fra1.id, min_vid: 100, max_vid: 999 });
  ids.vlans = {
    users: await c.post('ipam/vlans', { vid: 100, name: 'users', group: group.id, status: 'active', tenant: ids.tenant.id }),
    servers: await c.post('ipam/vlans', { vid: 200, name: 'servers', group: group.id, role: role.id }),
  };
  await c.post('ipam/prefixes', { prefix: '10.1.0.0/16', status: 'container', site: ids.sites.fra1.id });
  await c.post('ipam/prefixes', { prefix: '10.1.1.0/24', vrf: ids.vrf.id, site: ids.sites.fra1.id, vlan: ids.vlans.servers.id, role: role.id, is_pool: false, tags: [ids.tags.legacy.id] });
  await c.post('ipam/prefixes', { prefix: '2001:db8:1::/48', status: 'active', site: ids.sites.fra1.id });
  await c.post('ipam/ip-ranges', { start_address: '10.1.1.100/24', end_address: '10.1.1.199/24', vrf: ids.vrf.id, description: 'DHCP pool' });

  const iface = (device: ApiObject, name: string) => c.one(`dcim/interfaces/?device_id=${device.id}&name=${encodeURIComponent(name)}`);
  const mgmt = await iface(ids.devices.leafA, 'em0');
  const access = await iface(ids.devices.leafA, 'et-0/0/3');
  await c.patch('dcim/interfaces', access.id, { mode: 'tagged', untagged_vlan: ids.vlans.users.id, tagged_vlans: [ids.vlans.servers.id], description: 'to server rack' });
  ids.primaryIp4 = await c.post('ipam/ip-addresses', { address: '10.1.1.1/24', vrf: ids.vrf.id, status: 'active', dns_name: 'leaf-a.fra1.example.net', assigned_object_type: 'dcim.interface', assigned_object_id: mgmt.id, tenant: ids.tenant.id });
  ids.primaryIp6 = await c.post('ipam/ip-addresses', { address: '2001:db8:1::1/64', assigned_object_type: 'dcim.interface', assigned_object_id: mgmt.id });
  // NAT: an outside address pointing at the inside one.
  await c.post('ipam/ip-addresses', { address: '192.0.2.10/32', nat_inside: ids.primaryIp4.id, role: 'vip' });
  await c.patch('dcim/devices', ids.devices.leafA.id, { primary_ip4: ids.primaryIp4.id, primary_ip6: ids.primaryIp6.id });
  const leafBMgmt = await iface(ids.devices.leafB, 'em0');
  const ipB = await c.post('ipam/ip-addresses', { address: '10.1.1.2/24', vrf: ids.vrf.id, assigned_object_type: 'dcim.interface', assigned_object_id: leafBMgmt.id });
  await c.patch('dcim/devices', ids.devices.leafB.id, { primary_ip4: ipB.id, oob_ip: ipB.id });

  const provider = await c.post('circuits/providers', { name: 'Lumen', slug: 'lumen' });
  await c.post('circuits/provider-accounts', { provider: provider.id, account: 'ACC-1001', name: 'Main account' });
  const network = await c.post('circuits/provider-networks', { provider: provider.id, name: 'Lumen MPLS' });
  const type = await c.post('circuits/circuit-types', { name: 'Transit', slug: 'transit' });
  ids.circuit = await c.post('circuits/circuits', { cid: 'LUM-0001', provider: provider.id, type: type.id, status: 'active', tenant: ids.tenant.id, commit_rate: 10000, install_date: '2023-06-01' });
  const termA = await c.post('circuits/circuit-terminations', { circuit: ids.circuit.id, term_side: 'A', site: ids.sites.fra1.id, port_speed: 10000, xconnect_id: 'XC-42' });
  await c.post('circuits/circuit-terminations', { circuit: ids.circuit.id, term_side: 'Z', provider_network: network.id });
  await c.post('dcim/cables', { a_terminations: end('circuits.circuittermination', termA), b_terminations: end('dcim.interface', await iface(ids.devices.leafA, 'et-0/0/1')), label: 'LUM-0001 xconnect' });
  // The VLANs the site serves: a multi-object custom field, written once the VLANs exist.
  await c.patch('dcim/sites', ids.sites.fra1.id, { custom_fields: { served_vlans: [ids.vlans.users.id, ids.vlans.servers.id] } });
}
