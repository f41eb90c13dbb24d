import ipaddr from 'ipaddr.js';
import type { Request } from 'express';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** Parses an address, unwrapping an IPv4-mapped IPv6 one (::ffff:a.b.c.d) to its IPv4 form. */
export function parseAddress(text: string | undefined): Address | null {
  if (!text) return null;
  const t = text.trim().replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!ipaddr.isValid(t)) return null;
  const a = ipaddr.parse(t);
  return a.kind() === 'ipv6' && (a as ipaddr.IPv6).isIPv4MappedAddress() ? (a as ipaddr.IPv6).toIPv4Address() : a;
}

/** Whether an address lies in any of the networks (CIDR strings; a bare address is a host). */
export function inNetworks(addr: Address, networks: readonly string[]): boolean {
  for (const n of networks) {
    try {
      const [net, len] = n.includes('/') ? ipaddr.parseCIDR(n) : [ipaddr.parse(n), n.includes(':') ? 128 : 32];
      const network = net.kind() === 'ipv6' && (net as ipaddr.IPv6).isIPv4MappedAddress() ? (net as ipaddr.IPv6).toIPv4Address() : net;
      const bits = network.kind() === 'ipv4' && net.kind() === 'ipv6' ? Math.max(0, len - 96) : len;
      if (network.kind() === addr.kind() && addr.match(network, bits)) return true;
    } catch {
      // A malformed entry matches nothing.
    }
  }
  return false;
}

/**
 * The client's address: the socket peer, or — only when that peer is a trusted proxy — the nearest
 * untrusted address in X-Forwarded-For, so a client cannot claim any address it likes.
 */
export function clientAddress(req: Request, trustedProxies: readonly string[]): Address | null {
  let addr = parseAddress(req.socket.remoteAddress);
  if (!addr || !trustedProxies.length || !inNetworks(addr, trustedProxies)) return addr;
  const header = req.headers['x-forwarded-for'];
  const hops = (Array.isArray(header) ? header.join(',') : header ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = parseAddress(hops[i]);
    if (!hop) return addr;
    addr = hop;
    if (!inNetworks(hop, trustedProxies)) return hop;
  }
  return addr;
}
