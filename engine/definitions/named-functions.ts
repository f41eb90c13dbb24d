import crypto from 'node:crypto';

/**
 * What a definition cannot say declaratively is a small named function, referenced from the JSON by name.
 * Computed fields and display strings are computed by PostgreSQL, inside the statement that reads the
 * rows: their functions are written in SQL (engine/reads/named-sql.ts, whose tables the types below
 * make complete). Defaults are given in the server when a row is written.
 */

/**
 * Computed fields' functions: ip_family (4 or 6), custom_field_data_type (a custom field's JSON type),
 * json_array_length (a choice set's choices_count), ip_range_size (an IP range's size), percent_of_span (a
 * VLAN group's utilization), display (the object's display again, as VLAN's display_name).
 */
export const COMPUTED_FUNCTION_NAMES = ['ip_family', 'custom_field_data_type', 'json_array_length', 'ip_range_size', 'percent_of_span', 'display'] as const;
export type ComputedFunctionName = (typeof COMPUTED_FUNCTION_NAMES)[number];

/** Display functions: what a template cannot say (a VRF with its route distinguisher, AS65000, SSH (TCP/22)...). */
export const DISPLAY_FUNCTION_NAMES = [
  'object_change_display',
  'cable_termination_display',
  'label_or_name',
  'name_or_file',
  'vrf_display',
  'asn_display',
  'service_display',
  'fhrp_group_display',
  'ip_range_display',
  'cable_display',
  'token_display',
] as const;
export type DisplayFunctionName = (typeof DISPLAY_FUNCTION_NAMES)[number];

const defaults: Record<string, () => unknown> = {
  /** 160 random bits as 40 hex characters. */
  token_key: () => crypto.randomBytes(20).toString('hex'),
  now: () => new Date().toISOString(),
};

export type NamedFunctionKind = 'computed' | 'display' | 'default';

export function hasNamedFunction(kind: NamedFunctionKind, name: string): boolean {
  if (kind === 'computed') return (COMPUTED_FUNCTION_NAMES as readonly string[]).includes(name);
  if (kind === 'display') return (DISPLAY_FUNCTION_NAMES as readonly string[]).includes(name);
  return Object.prototype.hasOwnProperty.call(defaults, name);
}

export function defaultWith(name: string): unknown {
  return defaults[name]!();
}

/** Extra list endpoints a definition may name (implemented in engine/http/list-actions.ts). */
export const LIST_ACTION_NAMES = ['provision_token'] as const;
/** The names a definition's list_actions may use; engine/http/list-actions.ts must implement each (the type checks it). */
export type ListActionName = (typeof LIST_ACTION_NAMES)[number];

export function hasListAction(name: string): name is ListActionName {
  return (LIST_ACTION_NAMES as readonly string[]).includes(name);
}

/** Endpoints of an application that are not object types (implemented in engine/http/app-views.ts). */
export const APP_VIEW_NAMES = ['installed_plugins', 'own_record', 'own_preferences', 'connected_device'] as const;
/** The names schema/applications.json may use; engine/http/app-views.ts must implement each (the type checks it). */
export type AppViewName = (typeof APP_VIEW_NAMES)[number];

export function hasAppView(name: string): name is AppViewName {
  return (APP_VIEW_NAMES as readonly string[]).includes(name);
}
