import ipaddr from 'ipaddr.js';

/** An address or network as the tests reason about it: family, address bits, mask length. */
export interface Net {
  family: 4 | 6;
  bits: bigint;
  len: number;
}

const width = (family: 4 | 6) => (family === 4 ? 32 : 128);

/** Parses "10.0.0.1", "10.0.0.1/24", "2001:db8::/32" (host bits kept). */
export function parseNet(text: string): Net {
  const [addrText, lenText] = text.split('/');
  const addr = ipaddr.parse(addrText!);
  const family = addr.kind() === 'ipv4' ? 4 : 6;
  const bytes = addr.toByteArray();
  let bits = 0n;
  for (const b of bytes) bits = (bits << 8n) | BigInt(b);
  return { family, bits, len: lenText === undefined ? width(family) : Number(lenText) };
}

function prefixBits(n: Net, len: number): bigint {
  const shift = BigInt(width(n.family) - len);
  return n.bits >> shift;
}

/** Whether network `outer` contains address/network `inner` (inner's mask at least outer's). */
export function containsOrEquals(outer: Net, inner: Net): boolean {
  return outer.family === inner.family && inner.len >= outer.len && prefixBits(inner, outer.len) === prefixBits(outer, outer.len);
}

export function strictlyContains(outer: Net, inner: Net): boolean {
  return containsOrEquals(outer, inner) && inner.len > outer.len;
}

/** The host address of an interface address, as a /32 or /128. */
export function hostOf(n: Net): Net {
  return { ...n, len: width(n.family) };
}

export function sameNet(a: Net, b: Net): boolean {
  return a.family === b.family && a.len === b.len && a.bits === b.bits;
}

/** The network of an address with host bits cleared, as a Net. */
export function networkOf(n: Net): Net {
  const shift = BigInt(width(n.family) - n.len);
  return { ...n, bits: (n.bits >> shift) << shift };
}

/** Text of a Net: "10.0.0.1" (withLen false) or "10.0.0.1/24". */
export function formatNet(n: Net, withLen = true): string {
  const bytes: number[] = [];
  let b = n.bits;
  for (let i = 0; i < (n.family === 4 ? 4 : 16); i++) {
    bytes.unshift(Number(b & 255n));
    b >>= 8n;
  }
  const addr = ipaddr.fromByteArray(bytes).toString();
  return withLen ? `${addr}/${n.len}` : addr;
}
