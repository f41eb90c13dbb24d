import ipaddr from 'ipaddr.js';

export type IpParse = { ok: true; value: string } | { ok: false; message: string };

function parseAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  // A zone index (fe80::1%eth0) parses in ipaddr.js but neither inet nor cidr stores one: refuse it here.
  if (text.includes(':') && !text.includes('%') && ipaddr.IPv6.isValid(text)) return ipaddr.IPv6.parse(text);
  return null;
}

function split(text: string): { addr: ipaddr.IPv4 | ipaddr.IPv6; len: number } | null {
  const slash = text.indexOf('/');
  const addrText = slash < 0 ? text : text.slice(0, slash);
  const addr = parseAddress(addrText.trim());
  if (!addr) return null;
  const bits = addr.kind() === 'ipv4' ? 32 : 128;
  if (slash < 0) return { addr, len: bits };
  const lenText = text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(lenText)) return null;
  const len = Number(lenText);
  if (len > bits) return null;
  return { addr, len };
}

/** An address with its mask (NetBox's IPAddress.address): host bits kept; no mask means a host (/32, /128). */
export function normalizeInet(text: string): IpParse {
  const p = split(text);
  if (!p) return { ok: false, message: `Invalid IP address format: ${text}` };
  return { ok: true, value: `${p.addr.toString()}/${p.len}` };
}

/** A network (NetBox's Prefix.prefix): host bits cleared, or refused when `reject`. */
export function normalizeCidr(text: string, hostBits: 'clear' | 'reject' = 'clear'): IpParse {
  const p = split(text);
  if (!p) return { ok: false, message: `Invalid IP prefix format: ${text}` };
  const network = p.addr.kind() === 'ipv4'
    ? ipaddr.IPv4.networkAddressFromCIDR(`${p.addr.toString()}/${p.len}`)
    : ipaddr.IPv6.networkAddressFromCIDR(`${p.addr.toString()}/${p.len}`);
  if (hostBits === 'reject' && network.toString() !== p.addr.toString()) {
    return { ok: false, message: `${text} is not a network: host bits are set (did you mean ${network.toString()}/${p.len}?)` };
  }
  return { ok: true, value: `${network.toString()}/${p.len}` };
}

/** MAC address in any of the usual notations, normalised to upper-case colon form as NetBox shows it. */
export function normalizeMac(text: string): IpParse {
  const hex = text.replace(/[:\-.\s]/g, '');
  if (!/^[0-9a-fA-F]{12}$/.test(hex) || !/^([0-9a-fA-F]{2}([:-]?)){5}[0-9a-fA-F]{2}$|^([0-9a-fA-F]{4}\.){2}[0-9a-fA-F]{4}$|^[0-9a-fA-F]{12}$/.test(text)) {
    return { ok: false, message: `Invalid MAC address format: ${text}` };
  }
  return { ok: true, value: hex.toUpperCase().match(/../g)!.join(':') };
}
