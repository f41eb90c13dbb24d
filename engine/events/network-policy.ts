import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where webhook deliveries may connect: allow and deny lists of networks (PATCHBAY_WEBHOOK_ALLOW_NETWORKS,
 * PATCHBAY_WEBHOOK_DENY_NETWORKS), judged on the address actually connected to — after DNS resolution,
 * through the lookup the request itself uses, so a name that resolves differently the second time (DNS
 * rebinding) cannot slip past a check made earlier. IPv4-mapped IPv6 addresses (::ffff:169.254.169.254)
 * are judged as the IPv4 address they carry.
 *
 * The most specific network naming an address decides (a deny wins a tie); an address no network names is
 * allowed when the allow list is empty, refused otherwise. By default link-local networks and the cloud
 * metadata services' addresses are denied; loopback and private networks are not (local receivers are
 * common) — an administrator denies them by listing them.
 */

/** Link-local (AWS, GCP, Azure, OpenStack, DigitalOcean, Oracle... serve metadata at 169.254.169.254; ECS at 169.254.170.2), and the metadata addresses outside it. */
export const DEFAULT_DENY_NETWORKS = [
  '169.254.0.0/16',
  'fe80::/10',
  // AWS's IPv6 instance metadata service.
  'fd00:ec2::254/128',
  // Oracle Cloud's IPv6 instance metadata service.
  'fd00:c1::a9fe:a9fe/128',
  // Alibaba Cloud's metadata service.
  '100.100.100.200/32',
  // Azure's WireServer (the host's agent endpoint).
  '168.63.129.16/32',
];

type Network = [ipaddr.IPv4 | ipaddr.IPv6, number];

export interface NetworkPolicy {
  allow: Network[];
  deny: Network[];
}

/** An IPv4-mapped IPv6 address as the IPv4 address it carries; anything else as it is. */
function unmapped(addr: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  return addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress() ? (addr as ipaddr.IPv6).toIPv4Address() : addr;
}

function parseNetwork(text: string): Network {
  const [addr, bits] = text.includes('/') ? ipaddr.parseCIDR(text) : ((a) => [a, a.kind() === 'ipv4' ? 32 : 128] as Network)(ipaddr.parse(text));
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) return [(addr as ipaddr.IPv6).toIPv4Address(), bits - 96];
  return [addr, bits];
}

/** The networks of a setting (CIDRs or addresses, separated by commas or spaces; "none": none); throws naming the setting. */
export function parseNetworks(setting: string, raw: string | undefined, fallback: readonly string[]): string[] {
  if (raw === undefined || raw.trim() === '') return [...fallback];
  if (raw.trim().toLowerCase() === 'none') return [];
  const items = raw.split(/[\s,]+/).filter(Boolean);
  for (const item of items) {
    try {
      parseNetwork(item);
    } catch {
      throw new Error(`${setting}: "${item}" is not a network (CIDR such as 10.0.0.0/8 or fd00::/8, or an address)`);
    }
  }
  return items;
}

export function networkPolicy(allow: readonly string[], deny: readonly string[]): NetworkPolicy {
  return { allow: allow.map(parseNetwork), deny: deny.map(parseNetwork) };
}

function longestMatch(addr: ipaddr.IPv4 | ipaddr.IPv6, nets: Network[]): number {
  let best = -1;
  for (const [net, bits] of nets) {
    if (net.kind() === addr.kind() && bits > best && addr.match(net, bits)) best = bits;
  }
  return best;
}

/** Whether a delivery may connect to this address (an unparsable one may not). */
export function addressAllowed(address: string, policy: NetworkPolicy): boolean {
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = unmapped(ipaddr.parse(address));
  } catch {
    return false;
  }
  const allow = longestMatch(addr, policy.allow);
  const deny = longestMatch(addr, policy.deny);
  if (deny >= 0 && deny >= allow) return false;
  return allow >= 0 || policy.allow.length === 0;
}

/** The reason told when every address of a destination is refused. */
export const REFUSED_DESTINATION = 'the destination address is not allowed by the network policy (PATCHBAY_WEBHOOK_ALLOW_NETWORKS, PATCHBAY_WEBHOOK_DENY_NETWORKS)';

export class RefusedDestination extends Error {
  readonly code = 'EPATCHBAYPOLICY';
  constructor() {
    super(REFUSED_DESTINATION);
  }
}

/** A `lookup` for http/https requests: resolves as dns.lookup does and keeps only the addresses the policy allows. */
export function guardedLookup(policy: NetworkPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const allowed = addresses.filter((a) => addressAllowed(a.address, policy));
      if (!allowed.length) return callback(new RefusedDestination(), '', 0);
      if (options.all) return callback(null, allowed);
      return callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  };
}
