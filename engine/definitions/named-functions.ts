import crypto from 'node:crypto';

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
  /** The object's display string again, under another name (VLAN's display_name). */
  display: (row) => row.display ?? null,
};

const display: Record<string, (row: RowValues) => string> = {
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
  /** A token is shown by its last four characters only, as NetBox's partial key. */
  token_display: (row) => {
    const key = typeof row.key === 'string' ? row.key : '';
    return key ? `${'*'.repeat(Math.max(0, key.length - 4))}${key.slice(-4)}` : '';
  },
};

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

export function displayWith(name: string, row: RowValues): string {
  return display[name]!(row);
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
export const APP_VIEW_NAMES = ['installed_plugins', 'own_record', 'own_preferences'] as const;
/** The names schema/applications.json may use; engine/routes/app-views.ts must implement each (the type checks it). */
export type AppViewName = (typeof APP_VIEW_NAMES)[number];

export function hasAppView(name: string): name is AppViewName {
  return (APP_VIEW_NAMES as readonly string[]).includes(name);
}
