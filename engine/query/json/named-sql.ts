import { sql, type Sql } from '../../sql/fragment';

/**
 * The SQL twins of the named functions in engine/definitions/named-functions.ts: what a definition
 * names by "fn" is computed by PostgreSQL when a read is compiled to one statement. Each takes the
 * values its definition lists in "from", as text (NULL when unset), and must give what its JavaScript
 * twin gives (tests/query/named-sql.test.ts compares them).
 */
type NamedSql = (from: readonly Sql[]) => Sql;

const at = (from: readonly Sql[], i: number): Sql => from[i] ?? sql`NULL::text`;

/** computed fields: the value, as JSON-ready SQL (a number, a string or NULL). */
export const COMPUTED_SQL: Record<string, NamedSql> = {
  ip_family: (from) => sql`family(${at(from, 0)}::inet)`,
  json_array_length: (from) => sql`coalesce(jsonb_array_length(CASE WHEN jsonb_typeof(${at(from, 0)}::jsonb) = 'array' THEN ${at(from, 0)}::jsonb END), 0)`,
  custom_field_data_type: (from) =>
    sql`CASE ${at(from, 0)} WHEN 'integer' THEN 'integer' WHEN 'decimal' THEN 'decimal' WHEN 'boolean' THEN 'boolean' WHEN 'json' THEN 'object' WHEN 'object' THEN 'object' WHEN 'multiselect' THEN 'array' WHEN 'multiobject' THEN 'array' WHEN NULL THEN NULL ELSE 'string' END`,
};

/** display functions: the display string (never NULL). */
export const DISPLAY_SQL: Record<string, NamedSql> = {
  cable_termination_display: (from) => sql`concat(${at(from, 0)}, ': ', ${at(from, 1)}, ':', ${at(from, 2)})`,
  label_or_name: (from) =>
    sql`CASE WHEN coalesce(${at(from, 0)}, '') <> '' THEN ${at(from, 0)} ELSE concat(upper(left(replace(coalesce(${at(from, 1)}, ''), '_', ' '), 1)), substr(replace(coalesce(${at(from, 1)}, ''), '_', ' '), 2)) END`,
  name_or_file: (from) => sql`CASE WHEN coalesce(${at(from, 0)}, '') <> '' THEN ${at(from, 0)} ELSE regexp_replace(coalesce(${at(from, 1)}, ''), '^.*/', '') END`,
  vrf_display: (from) => sql`CASE WHEN coalesce(${at(from, 1)}, '') <> '' THEN concat(${at(from, 0)}, ' (', ${at(from, 1)}, ')') ELSE coalesce(${at(from, 0)}, '') END`,
  token_display: (from) => sql`CASE WHEN coalesce(${at(from, 0)}, '') = '' THEN '' ELSE concat(repeat('*', greatest(length(${at(from, 0)}) - 4, 0)), right(${at(from, 0)}, 4)) END`,
};

export function hasComputedSql(name: string): boolean {
  return Object.prototype.hasOwnProperty.call(COMPUTED_SQL, name) || name === 'display';
}
