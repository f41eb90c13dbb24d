import type { ApiObject } from './seed-client';

/**
 * The hand-made objects the seed's parts hand on to each other and the tests look up (a known device's
 * id on the target, the two ends of the traced path). Filled as the parts run, in order.
 */
export interface SeedIds {
  tags: { core: ApiObject; monitored: ApiObject; legacy: ApiObject };
  tenant: ApiObject;
  regions: { europe: ApiObject; germany: ApiObject };
  siteGroup: ApiObject;
  sites: { fra1: ApiObject; ber1: ApiObject };
  locations: { building: ApiObject; floor: ApiObject; room: ApiObject };
  racks: { r1: ApiObject; r2: ApiObject };
  admin: ApiObject;
  platform: ApiObject;
  deviceTypes: { leaf: ApiObject; panel: ApiObject };
  roles: { leaf: ApiObject; panel: ApiObject };
  devices: { leafA: ApiObject; leafB: ApiObject; panel1: ApiObject; panel2: ApiObject };
  /** The interface the traced path starts at (device A) and the one it ends at (device B). */
  path: { start: ApiObject; end: ApiObject; cables: ApiObject[] };
  /** The cable between the two leaves' et-0/0/2 (no patch panel). */
  directCable: ApiObject;
  /** The picture of rack R1's front. */
  rackImage: ApiObject;
  circuit: ApiObject;
  vrf: ApiObject;
  vlans: { users: ApiObject; servers: ApiObject };
  primaryIp4: ApiObject;
  primaryIp6: ApiObject;
  configTemplate: ApiObject;
  users: { alice: ApiObject; bob: ApiObject };
  group: ApiObject;
  permission: ApiObject;
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
