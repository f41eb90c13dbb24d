/**
 * The baseline's data set (netbox-3.7.8-baseline.md), scaled: how many objects of each kind, and the
 * deterministic names and addresses the seed writes and the verifications expect.
 */

export interface DataShape {
  scale: number;
  regions: number;
  tenantGroups: number;
  tenants: number;
  sites: number;
  tags: number;
  manufacturers: number;
  deviceTypes: number;
  deviceRoles: number;
  platforms: number;
  racks: number;
  devices: number;
  interfacesPerDevice: number;
  /** 10.x.y.0/24 prefixes; containers (10.0.0.0/8 and one /16 per x used) come on top. */
  prefixes24: number;
  ipAddresses: number;
  vlanGroups: number;
  vlansPerGroup: number;
}

const scaled = (n: number, scale: number) => Math.max(1, Math.round(n * scale));

export function shapeFor(scale: number, overrides: { ipAddresses?: number; prefixes24?: number } = {}): DataShape {
  const shape: DataShape = {
    scale,
    regions: scaled(4, scale),
    tenantGroups: 1,
    tenants: scaled(10, scale),
    sites: scaled(20, scale),
    tags: scaled(10, scale),
    manufacturers: scaled(2, scale),
    deviceTypes: scaled(10, scale),
    deviceRoles: scaled(5, scale),
    platforms: scaled(2, scale),
    racks: scaled(100, scale),
    devices: scaled(1000, scale),
    interfacesPerDevice: 10,
    prefixes24: Math.min(256 * 250, scaled(1000, scale)),
    ipAddresses: Math.min(256 * 250 * 250, scaled(10_000, scale)),
    vlanGroups: scaled(20, scale),
    vlansPerGroup: 50,
  };
  if (overrides.ipAddresses) shape.ipAddresses = Math.min(256 * 250 * 250, overrides.ipAddresses);
  if (overrides.prefixes24) shape.prefixes24 = Math.min(256 * 250, overrides.prefixes24);
  return shape;
}

/**
 * The tags (by index into the seeded tags) the i-th IP address carries: every tenth one tag, every
 * twentieth a second one too, so ?tag=a&tag=b (AND) has a known, smaller answer than either tag.
 */
export function ipTagIndexes(i: number, tags: number): number[] {
  if (i % 10 !== 0 || tags < 1) return [];
  const k = i / 10;
  return i % 20 === 0 && tags > 1 ? [k % tags, (k + 1) % tags] : [k % tags];
}

/** How many seeded IP addresses carry both of two tags. */
export function ipsWithBothTags(shape: DataShape, a: number, b: number): number {
  let n = 0;
  for (let i = 0; i < shape.ipAddresses; i++) {
    const t = ipTagIndexes(i, shape.tags);
    if (t.includes(a) && t.includes(b)) n++;
  }
  return n;
}

/** The i-th /24: 10.x.y.0/24 with 250 per second octet. */
export function prefix24(i: number): { x: number; y: number; cidr: string } {
  const x = Math.floor(i / 250);
  const y = i % 250;
  return { x, y, cidr: `10.${x}.${y}.0/24` };
}

/** Container prefixes: 10.0.0.0/8 and 10.x.0.0/16 for every x the /24s use. */
export function containerPrefixes(shape: DataShape): string[] {
  const xs = prefix24(shape.prefixes24 - 1).x + 1;
  return ['10.0.0.0/8', ...Array.from({ length: xs }, (_, x) => `10.${x}.0.0/16`)];
}

export function prefixCount(shape: DataShape): number {
  return shape.prefixes24 + containerPrefixes(shape).length;
}

/** /24s strictly within 10.0.0.0/16 (what prefixes_within should count). */
export function prefixesWithin10_0(shape: DataShape): number {
  return Math.min(250, shape.prefixes24);
}

/** The i-th IP address: spread evenly over the /24s, hosts .1 upwards. */
export function ipAddress(shape: DataShape, i: number): string {
  const perPrefix = Math.ceil(shape.ipAddresses / shape.prefixes24);
  const { x, y } = prefix24(Math.floor(i / perPrefix));
  return `10.${x}.${y}.${(i % perPrefix) + 1}/24`;
}

/** Every other address has dns_name hostN. */
export function dnsName(i: number): string {
  return i % 2 === 0 ? `host${i}` : '';
}

/** How many seeded addresses dns_name__ic=<needle> should match. */
export function dnsNameMatches(shape: DataShape, needle: string): number {
  let n = 0;
  for (let i = 0; i < shape.ipAddresses; i++) if (dnsName(i).toLowerCase().includes(needle.toLowerCase())) n++;
  return n;
}

export function deviceName(i: number): string {
  return `dev${String(i + 1).padStart(4, '0')}`;
}

/** How many seeded devices ?q=<needle> should match (by name). */
export function deviceNameMatches(shape: DataShape, needle: string): number {
  let n = 0;
  for (let i = 0; i < shape.devices; i++) if (deviceName(i).includes(needle)) n++;
  return n;
}
