import type { Json } from './seed-client';

/**
 * The hand-made objects the seed's parts hand on to each other and the tests look up (a known device's
 * id on the target, the two ends of the traced path). Filled as the parts run, in order.
 */
export interface SeedIds {
  tags: { core: Json; monitored: Json; legacy: Json };
  tenant: Json;
  regions: { europe: Json; germany: Json };
  siteGroup: Json;
  sites: { fra1: Json; ber1: Json };
  locations: { building: Json; floor: Json; room: Json };
  racks: { r1: Json; r2: Json };
  admin: Json;
  platform: Json;
  deviceTypes: { leaf: Json; panel: Json };
  roles: { leaf: Json; panel: Json };
  devices: { leafA: Json; leafB: Json; panel1: Json; panel2: Json };
  /** The interface the traced path starts at (device A) and the one it ends at (device B). */
  path: { start: Json; end: Json; cables: Json[] };
  /** The cable between the two leaves' et-0/0/2 (no patch panel). */
  directCable: Json;
  /** The picture of rack R1's front. */
  rackImage: Json;
  circuit: Json;
  vrf: Json;
  vlans: { users: Json; servers: Json };
  primaryIp4: Json;
  primaryIp6: Json;
  configTemplate: Json;
  users: { alice: Json; bob: Json };
  group: Json;
  permission: Json;
}

/** The parts fill it in turn; reading a part before its writer ran is a seed bug, so it fails loudly. */
export function emptyIds(): SeedIds {
  return new Proxy({} as SeedIds, {
    get(target, key) {
      const v = (target as unknown as Record<string | symbol, unknown>)[key];
      if (v === undefined && typeof key === 'string' && key !== 'then' && key !== 'toJSON') throw new Error(`seed: ${key} read before the part that makes it ran`);
      return v;
    },
  });
}
