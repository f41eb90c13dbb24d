import ipaddr from 'ipaddr.js';

/**
 * Addresses as integers (BigInt, so IPv6 works the same) for walking free space: the gaps PostgreSQL
 * finds are cut into addresses or aligned networks here, only as far as an answer needs.
 */

export interface Addr {
  family: 4 | 6;
  value: bigint;
}

const bits = (family: 4 | 6): number => (family === 4 ? 32 : 128);

export function parseAddr(text: string): Addr {
  const ip = ipaddr.parse(text.split('/')[0]!);
  const family = ip.kind() === 'ipv4' ? 4 : 6;
  return { family, value: ip.toByteArray().reduce((n, b) => (n << 8n) | BigInt(b), 0n) };
}

export function formatAddr(a: Addr): string {
  const bytes: number[] = [];
  let v = a.value;
  for (let i = 0; i < bits(a.family) / 8; i++) {
    bytes.unshift(Number(v & 255n));
    v >>= 8n;
  }
  // RFC 5952 text, as netaddr (and so NetBox) prints IPv6.
  return a.family === 4 ? ipaddr.fromByteArray(bytes).toString() : (ipaddr.fromByteArray(bytes) as ipaddr.IPv6).toRFC5952String();
}

/** Up to `n` addresses from the gaps, in order. */
export function* addressesIn(gaps: Iterable<{ start: string; end: string }>): Generator<Addr> {
  for (const g of gaps) {
    const a = parseAddr(g.start);
    const end = parseAddr(g.end).value;
    for (let v = a.value; v <= end; v++) yield { family: a.family, value: v };
  }
}

export interface Cidr {
  family: 4 | 6;
  network: bigint;
  length: number;
}

export function formatCidr(c: Cidr): string {
  return `${formatAddr({ family: c.family, value: c.network })}/${c.length}`;
}

/** The largest aligned networks covering [start, end] exactly, in order (netaddr's iter_cidrs of a range). */
export function cidrsOf(family: 4 | 6, start: bigint, end: bigint): Cidr[] {
  const width = bits(family);
  const out: Cidr[] = [];
  let cur = start;
  while (cur <= end) {
    let size = 0;
    // Grow while aligned and still inside the range.
    while (size < width && (cur & ((1n << BigInt(size + 1)) - 1n)) === 0n && cur + (1n << BigInt(size + 1)) - 1n <= end) size++;
    out.push({ family, network: cur, length: width - size });
    cur += 1n << BigInt(size);
  }
  return out;
}

/**
 * Takes the first free network of `length` from the free networks (in order), as NetBox's
 * get_next_available_prefix: the first free network at least that large gives its first subnet of that
 * length, and what remains of it stays free. Null when none is large enough.
 */
export function takePrefix(free: Cidr[], length: number): Cidr | null {
  const i = free.findIndex((c) => c.length <= length);
  if (i < 0) return null;
  const block = free[i]!;
  const width = bits(block.family);
  const taken: Cidr = { family: block.family, network: block.network, length };
  const blockEnd = block.network + (1n << BigInt(width - block.length)) - 1n;
  const rest = cidrsOf(block.family, block.network + (1n << BigInt(width - length)), blockEnd);
  free.splice(i, 1, ...rest);
  return taken;
}
