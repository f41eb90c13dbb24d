import crypto from 'node:crypto';
import ipaddr from 'ipaddr.js';

/**
 * What a definition cannot say declaratively is a small named function, referenced from the JSON by name.
 * Each takes the object's stored values (column name -> value, as rendered) and returns one value.
 */
export type RowValues = Readonly<Record<string, unknown>>;

const computed: Record<string, (row: RowValues, from: readonly string[]) => unknown> = {
  /** 4 or 6, from an address or network string. */
  ip_family: (row, from) => {
    const v = row[from[0] ?? ''];
    return typeof v === 'string' ? (v.includes(':') ? 6 : 4) : null;
  },
  /** The JSON type a custom field's values have, from its type (NetBox's data_type). */
  custom_field_data_type: (row, from) => {
    const type = row[from[0] ?? ''];
    const byType: Record<string, string> = { integer: 'integer', decimal: 'decimal', boolean: 'boolean', json: 'object', object: 'object', multiselect: 'array', multiobject: 'array' };
    return typeof type === 'string' ? (byType[type] ?? 'string') : null;
  },
  /** How many elements a JSON list holds, 0 when it is not a list (a choice set's choices_count). */
  json_array_length: (row, from) => {
    const v = row[from[0] ?? ''];
    const list: unknown = typeof v === 'string' ? JSON.parse(v) : v;
    return Array.isArray(list) ? list.length : 0;
  },
  /** How many addresses lie from the first `from` address to the second, both included (an IP range's size). */
  ip_range_size: (row, from) => {
    const a = row[from[0] ?? ''];
    const b = row[from[1] ?? ''];
    if (typeof a !== 'string' || typeof b !== 'string' || a.includes(':') !== b.includes(':')) return null;
    const size = addressValue(b) - addressValue(a) + 1n;
    // As the SQL twin: none when the ends differ in their first 65 bits (an IPv6 range too wide for a bigint).
    return a.includes(':') && addressValue(a) >> 63n !== addressValue(b) >> 63n ? null : Number(size);
  },
  /** The first value as a percentage of the span from the second to the third, both included, to two places, as text (a VLAN group's utilization). */
  percent_of_span: (row, from) => {
    const [n, lo, hi] = from.map((f) => Number(row[f]));
    return ((Math.round((n! * 10000) / (hi! - lo! + 1)) / 100).toFixed(2));
  },
  /** The object's display string again, under another name (VLAN's display_name). */
  display: (row) => row.display ?? null,
};

const display: Record<string, (row: RowValues) => string> = {
  /** A change log row as NetBox shows it: "dcim | site Site 1 created by admin". */
  object_change_display: (row) => {
    const past: Record<string, string> = { create: 'created', update: 'updated', delete: 'deleted' };
    return `${String(row.changed_object_type ?? '').replace('.', ' | ')} ${String(row.object_repr ?? '')} ${past[String(row.action)] ?? ''} by ${String(row.user_name ?? '')}`;
  },
  /** A cable end as NetBox shows it: the end and the object it attaches. */
  cable_termination_display: (row) => `${String(row.cable_end ?? '')}: ${String(row.termination_type ?? '')}:${String(row.termination_id ?? '')}`,
  /** The label when there is one, else the name made readable (NetBox's custom field display). */
  label_or_name: (row) => {
    if (row.label) return String(row.label);
    const name = String(row.name ?? '').replace(/_/g, ' ');
    return name.charAt(0).toUpperCase() + name.slice(1);
  },
  /** The name when there is one, else the stored file's name without its folder (an image attachment's display). */
  name_or_file: (row) => (row.name ? String(row.name) : String(row.image ?? '').replace(/^.*\//, '')),
  /** NetBox shows a VRF with its route distinguisher when it has one. */
  vrf_display: (row) => (row.rd ? `${String(row.name)} (${String(row.rd)})` : String(row.name ?? '')),
  /** An AS number as NetBox shows it: AS65000, and a 32-bit one with its ASDOT form, AS4200000000 (64086.59904). */
  asn_display: (row) => {
    const asn = Number(row.asn);
    return asn > 65535 ? `AS${asn} (${Math.floor(asn / 65536)}.${asn % 65536})` : `AS${asn}`;
  },
  /** A service as NetBox shows it: its name, protocol and ports in runs, SSH (TCP/22), web (TCP/80-81, 443). */
  service_display: (row) => `${String(row.name ?? '')} (${String(row.protocol ?? '').toUpperCase()}/${integerRuns(parseList(row.ports))})`,
  /** An FHRP group as NetBox names it: its name if any, the protocol's label and the group id (VRRPv2: 10). */
  fhrp_group_display: (row) => `${row.name ? `${String(row.name)} ` : ''}${FHRP_PROTOCOL_LABELS[String(row.protocol)] ?? String(row.protocol ?? '')}: ${String(row.group_id ?? '')}`,
  /**
   * An IP range as NetBox's IPRange.name: the pieces both ends share (compared piece by piece, as NetBox
   * zips them), then the rest of each end, and the mask: 10.0.0.1-100/24.
   */
  ip_range_display: (row) => {
    const start = String(row.start_address ?? '');
    const end = String(row.end_address ?? '');
    if (!start || !end) return '';
    const sep = start.includes(':') ? ':' : '.';
    const a = start.split('/')[0]!.split(sep);
    const b = end.split('/')[0]!.split(sep);
    const base = a.filter((x, i) => i < b.length && x === b[i]);
    return `${base.join(sep)}${sep}${a.slice(base.length).join(sep)}-${b.slice(base.length).join(sep)}/${start.split('/')[1] ?? ''}`;
  },
  /** A cable as NetBox's Cable.__str__: its label, else #id. */
  cable_display: (row) => (row.label ? String(row.label) : `#${String(row.id ?? '')}`),
  /** A token is shown by its last four characters only, as NetBox's partial key. */
  token_display: (row) => {
    const key = typeof row.key === 'string' ? row.key : '';
    return key ? `${'*'.repeat(Math.max(0, key.length - 4))}${key.slice(-4)}` : '';
  },
};

/** An address (mask ignored) as an integer, for arithmetic on IPv4 and IPv6 alike. */
function addressValue(text: string): bigint {
  return BigInt(ipaddr.parse(text.split('/')[0]!).toByteArray().reduce((n, b) => n * 256n + BigInt(b), 0n));
}

/** A list of integers as NetBox's array_to_string: runs of consecutive values as "first-last", joined by ", ". */
function integerRuns(values: readonly number[]): string {
  const out: string[] = [];
  for (let i = 0; i < values.length; ) {
    let j = i;
    while (j + 1 < values.length && values[j + 1] === values[j]! + 1) j++;
    out.push(i === j ? String(values[i]) : `${values[i]}-${values[j]}`);
    i = j + 1;
  }
  return out.join(', ');
}

/** NetBox's FHRP protocol labels (FHRPGroupProtocolChoices), which its display shows. */
const FHRP_PROTOCOL_LABELS: Record<string, string> = { vrrp2: 'VRRPv2', vrrp3: 'VRRPv3', carp: 'CARP', clusterxl: 'ClusterXL', hsrp: 'HSRP', glbp: 'GLBP', other: 'Other' };

const parseList = (v: unknown): number[] => (Array.isArray(v) ? v.map(Number) : typeof v === 'string' ? v.replace(/[{}]/g, '').split(',').filter(Boolean).map(Number) : []);

const defaults: Record<string, () => unknown> = {
  /** 160 random bits as 40 hex characters. */
  token_key: () => crypto.randomBytes(20).toString('hex'),
  now: () => new Date().toISOString(),
};

const tables = { computed, display, default: defaults } as const;
export type NamedFunctionKind = keyof typeof tables;

export function hasNamedFunction(kind: NamedFunctionKind, name: string): boolean {
  return Object.prototype.hasOwnProperty.call(tables[kind], name);
}

export function computeField(name: string, row: RowValues, from: readonly string[]): unknown {
  return computed[name]!(row, from);
}

export function defaultWith(name: string): unknown {
  return defaults[name]!();
}

/** Extra list endpoints a definition may name (implemented in engine/routes/list-actions.ts). */
export const LIST_ACTION_NAMES = ['provision_token'] as const;
/** The names a definition's list_actions may use; engine/routes/list-actions.ts must implement each (the type checks it). */
export type ListActionName = (typeof LIST_ACTION_NAMES)[number];

export function hasListAction(name: string): name is ListActionName {
  return (LIST_ACTION_NAMES as readonly string[]).includes(name);
}

/** Endpoints of an application that are not object types (implemented in engine/routes/app-views.ts). */
export const APP_VIEW_NAMES = ['installed_plugins', 'own_record', 'own_preferences', 'connected_device'] as const;
/** The names schema/applications.json may use; engine/routes/app-views.ts must implement each (the type checks it). */
export type AppViewName = (typeof APP_VIEW_NAMES)[number];

export function hasAppView(name: string): name is AppViewName {
  return (APP_VIEW_NAMES as readonly string[]).includes(name);
}
