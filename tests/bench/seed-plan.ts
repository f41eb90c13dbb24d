import type { JsonObject, JsonValue } from './http-client';
import {
  containerPrefixes, deviceName, dnsName, ipAddress, ipTagIndexes, prefix24, type DataShape,
} from './data-shape';

/** What a seed step can see: the shape, the endpoints the server has, and the ids the earlier steps created. */
export interface SeedContext {
  shape: DataShape;
  /** Ids created by an earlier step, in creation order ([] when it did not run). */
  ids(endpoint: string): number[];
}

/** One row of the baseline's Seeding table: objects of one type, POSTed (or PATCHed) in batches of 250. */
export interface SeedStep {
  /** The name in the report ("regions", "devices.primary_ip4"). */
  type: string;
  /** `<app>/<path>` of the list endpoint written to. */
  endpoint: string;
  op: 'create' | 'bulk PATCH';
  /** Endpoints whose objects this step cannot do without (beyond its own). */
  needs: string[];
  /** Bulk PATCH steps write 100 per request as the baseline does; creates 250. */
  batch: number;
  build(ctx: SeedContext): JsonObject[];
}

const EP = {
  regions: 'dcim/regions',
  tenantGroups: 'tenancy/tenant-groups',
  tenants: 'tenancy/tenants',
  sites: 'dcim/sites',
  tags: 'extras/tags',
  manufacturers: 'dcim/manufacturers',
  deviceTypes: 'dcim/device-types',
  deviceRoles: 'dcim/device-roles',
  platforms: 'dcim/platforms',
  configContexts: 'extras/config-contexts',
  racks: 'dcim/racks',
  devices: 'dcim/devices',
  interfaces: 'dcim/interfaces',
  prefixes: 'ipam/prefixes',
  ipAddresses: 'ipam/ip-addresses',
  vlanGroups: 'ipam/vlan-groups',
  vlans: 'ipam/vlans',
} as const;
export const ENDPOINTS = EP;

/** The id at position i (cycling), or undefined when that type was not seeded. */
function pick(ctx: SeedContext, endpoint: string, i: number): number | undefined {
  const ids = ctx.ids(endpoint);
  return ids.length ? ids[i % ids.length] : undefined;
}

/** An object without the keys whose value is undefined (an optional relation whose type does not exist yet). */
function obj(fields: Record<string, JsonValue | undefined>): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) out[k] = v;
  return out;
}

const times = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));

const CONTEXT_DATA: JsonObject = { ntp_servers: ['10.0.0.1', '10.0.0.2'], syslog: { server: '10.0.0.3', port: 514 } };

function deviceSite(ctx: SeedContext, i: number): { rack: number | undefined; site: number | undefined } {
  const racks = ctx.ids(EP.racks);
  if (racks.length) {
    const r = i % racks.length;
    return { rack: racks[r], site: pick(ctx, EP.sites, r) };
  }
  return { rack: undefined, site: pick(ctx, EP.sites, i) };
}

/** The baseline's seeding order. */
export const SEED_STEPS: SeedStep[] = [
  {
    type: 'regions', endpoint: EP.regions, op: 'create', needs: [], batch: 250,
    build: (c) => times(c.shape.regions, (i) => ({ name: `Region ${i + 1}`, slug: `region-${i + 1}` })),
  },
  {
    type: 'tenant-groups', endpoint: EP.tenantGroups, op: 'create', needs: [], batch: 250,
    build: (c) => times(c.shape.tenantGroups, (i) => ({ name: `Tenant group ${i + 1}`, slug: `tenant-group-${i + 1}` })),
  },
  {
    type: 'tenants', endpoint: EP.tenants, op: 'create', needs: [], batch: 250,
    build: (c) => times(c.shape.tenants, (i) => obj({ name: `Tenant ${i + 1}`, slug: `tenant-${i + 1}`, group: pick(c, EP.tenantGroups, i) })),
  },
  {
    type: 'sites', endpoint: EP.sites, op: 'create', needs: [], batch: 250,
    build: (c) => times(c.shape.sites, (i) => obj({
      name: `Site ${i + 1}`, slug: `site-${i + 1}`, status: 'active',
      region: pick(c, EP.regions, i), tenant: pick(c, EP.tenants, i), facility: `DC${i + 1}`, time_zone: 'UTC',
    })),
  },
  {
    type: 'tags', endpoint: EP.tags, op: 'create', needs: [], batch: 250,
    build: (c) => times(c.shape.tags, (i) => ({ name: `Tag ${i + 1}`, slug: `tag-${i + 1}` })),
  },
  {
    type: 'manufacturers', endpoint: EP.manufacturers, op: 'create', needs: [], batch: 250,
    build: (c) => times(c.shape.manufacturers, (i) => ({ name: `Manufacturer ${i + 1}`, slug: `manufacturer-${i + 1}` })),
  },
  {
    type: 'device-types', endpoint: EP.deviceTypes, op: 'create', needs: [EP.manufacturers], batch: 250,
    build: (c) => times(c.shape.deviceTypes, (i) => obj({
      manufacturer: pick(c, EP.manufacturers, i), model: `Model ${i + 1}`, slug: `model-${i + 1}`, u_height: 1,
    })),
  },
  {
    type: 'device-roles', endpoint: EP.deviceRoles, op: 'create', needs: [], batch: 250,
    build: (c) => times(c.shape.deviceRoles, (i) => ({ name: `Role ${i + 1}`, slug: `role-${i + 1}`, color: '2196f3' })),
  },
  {
    type: 'platforms', endpoint: EP.platforms, op: 'create', needs: [], batch: 250,
    build: (c) => times(c.shape.platforms, (i) => obj({ name: `Platform ${i + 1}`, slug: `platform-${i + 1}`, manufacturer: pick(c, EP.manufacturers, i) })),
  },
  {
    type: 'config-contexts', endpoint: EP.configContexts, op: 'create', needs: [], batch: 250,
    build: (c) => {
      const out: JsonObject[] = [{ name: 'global', weight: 1000, data: CONTEXT_DATA }];
      const region = pick(c, EP.regions, 0);
      if (region !== undefined) out.push({ name: 'region-1', weight: 2000, regions: [region], data: { dns: ['10.0.0.53'] } });
      const role = pick(c, EP.deviceRoles, 0);
      if (role !== undefined) out.push({ name: 'role-1', weight: 3000, roles: [role], data: { snmp: { community: 'bench' } } });
      return out;
    },
  },
  {
    type: 'racks', endpoint: EP.racks, op: 'create', needs: [EP.sites], batch: 250,
    build: (c) => times(c.shape.racks, (i) => obj({ name: `Rack ${i + 1}`, site: pick(c, EP.sites, i), status: 'active' })),
  },
  {
    type: 'devices', endpoint: EP.devices, op: 'create', needs: [EP.deviceTypes, EP.deviceRoles, EP.sites], batch: 250,
    build: (c) => times(c.shape.devices, (i) => {
      const { rack, site } = deviceSite(c, i);
      return obj({
        name: deviceName(i), device_type: pick(c, EP.deviceTypes, i), role: pick(c, EP.deviceRoles, i),
        site, rack, platform: pick(c, EP.platforms, i), tenant: pick(c, EP.tenants, i), status: 'active',
      });
    }),
  },
  {
    type: 'interfaces', endpoint: EP.interfaces, op: 'create', needs: [EP.devices], batch: 250,
    build: (c) => c.ids(EP.devices).flatMap((device) =>
      times(c.shape.interfacesPerDevice, (k) => ({ device, name: `eth${k}`, type: '1000base-t' }))),
  },
  {
    type: 'prefixes', endpoint: EP.prefixes, op: 'create', needs: [], batch: 250,
    build: (c) => [
      ...containerPrefixes(c.shape).map((prefix) => ({ prefix, status: 'container' })),
      ...times(c.shape.prefixes24, (i) => obj({ prefix: prefix24(i).cidr, status: 'active', site: pick(c, EP.sites, i) })),
    ],
  },
  {
    type: 'ip-addresses', endpoint: EP.ipAddresses, op: 'create', needs: [], batch: 250,
    build: (c) => times(c.shape.ipAddresses, (i) => {
      const iface = pick(c, EP.interfaces, i);
      const tagIds = c.ids(EP.tags);
      const tags = ipTagIndexes(i, tagIds.length).map((k) => tagIds[k]!);
      return obj({
        address: ipAddress(c.shape, i), status: 'active', dns_name: dnsName(i) || undefined,
        tenant: i % 5 === 0 ? pick(c, EP.tenants, i / 5) : undefined,
        tags: tags.length ? tags : undefined,
        assigned_object_type: iface === undefined ? undefined : 'dcim.interface',
        assigned_object_id: iface,
      });
    }),
  },
  {
    type: 'devices.primary_ip4', endpoint: EP.devices, op: 'bulk PATCH', needs: [EP.devices, EP.interfaces, EP.ipAddresses], batch: 100,
    build: (c) => {
      const ips = c.ids(EP.ipAddresses);
      const nIfaces = c.ids(EP.interfaces).length;
      // Address i sits on interface i % nIfaces; a device's first interface is number d * interfacesPerDevice.
      return c.ids(EP.devices).flatMap((id, d) => {
        const ip = d * c.shape.interfacesPerDevice;
        return ip < ips.length && ip < nIfaces ? [{ id, primary_ip4: ips[ip]! }] : [];
      });
    },
  },
  {
    type: 'vlan-groups', endpoint: EP.vlanGroups, op: 'create', needs: [], batch: 250,
    build: (c) => times(c.shape.vlanGroups, (g) => ({ name: `VLAN group ${g + 1}`, slug: `vlan-group-${g + 1}` })),
  },
  {
    type: 'vlans', endpoint: EP.vlans, op: 'create', needs: [EP.vlanGroups], batch: 250,
    build: (c) => c.ids(EP.vlanGroups).flatMap((group, g) =>
      times(c.shape.vlansPerGroup, (v) => ({ group, vid: v + 1, name: `vlan-${g + 1}-${v + 1}`, status: 'active' }))),
  },
];
