import type { ColumnField, ResolvedField, ResolvedModel } from '../definitions/registry-types';
import { column, sql, type Sql } from '../sql/fragment';

/** Timestamps as NetBox shows them: ISO 8601 in UTC with microseconds. */
const ISO_MICRO = 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"';

/**
 * A stored column's value as the API shows it, computed by PostgreSQL so that both back ends give the
 * same text: timestamps in UTC with microseconds, dates as YYYY-MM-DD, addresses with their mask,
 * MACs in upper case, decimals as numbers. JSON-typed where JSON has a type of its own (numbers,
 * booleans, arrays, objects); the rest as text.
 */
export function storedValue(field: ColumnField, alias: string): Sql {
  const c = column(alias, field.column);
  switch (field.kind) {
    case 'datetime':
      return sql`to_char(${c} AT TIME ZONE 'UTC', ${ISO_MICRO})`;
    case 'date':
      return sql`to_char(${c}, 'YYYY-MM-DD')`;
    case 'inet':
    case 'cidr':
      // text() keeps the mask even on a /32 host, as NetBox shows it.
      return field.array ? sql`${c}::text[]` : sql`text(${c})`;
    case 'mac':
      return sql`upper(${c}::text)`;
    case 'decimal':
      return sql`${c}::float8`;
    default:
      return c;
  }
}

/** The same value as text (NULL stays NULL), for display strings. */
export function storedText(field: ColumnField, alias: string): Sql {
  return sql`(${storedValue(field, alias)})::text`;
}

/** `created` and `last_updated` as the model shows them. */
export function timestampValue(model: ResolvedModel, name: 'created' | 'last_updated', alias: string): Sql {
  const c = column(alias, name);
  if (name === 'created' && model.timestamps === 'date') return sql`to_char(${c} AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;
  return sql`to_char(${c} AT TIME ZONE 'UTC', ${ISO_MICRO})`;
}
