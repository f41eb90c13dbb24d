import type { ResolvedModel } from '../definitions/registry-types';
import { column, ident, join, sql, type Sql } from '../sql/fragment';

/** A stored row as the read path selects it: every value already in the form the API shows it. */
export type Row = Record<string, unknown> & { id: number };

/**
 * SELECT list for a model's rows, aliased by column name. Dates, timestamps, addresses and MACs are
 * formatted by the database, so both back ends (pg and PGlite) yield identical strings.
 */
export function rowSelectList(model: ResolvedModel, alias: string): Sql {
  const iso = (c: Sql) => sql`to_char(${c} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
  const cols: Sql[] = [column(alias, 'id')];
  for (const field of model.fieldList) {
    if (field.kind === 'generic_fk') {
      cols.push(column(alias, field.typeColumn), column(alias, field.idColumn));
      continue;
    }
    if (!field.column || field.kind === 'password') continue;
    const c = column(alias, field.column);
    const as = ident(field.column);
    switch (field.kind) {
      case 'datetime':
        cols.push(sql`${iso(c)} AS ${as}`);
        break;
      case 'date':
        cols.push(sql`to_char(${c}, 'YYYY-MM-DD') AS ${as}`);
        break;
      case 'inet':
      case 'cidr':
        // text() keeps the mask even on a /32 host, as NetBox shows it.
        cols.push(field.array ? sql`${c}::text[] AS ${as}` : sql`text(${c}) AS ${as}`);
        break;
      case 'mac':
        cols.push(sql`upper(${c}::text) AS ${as}`);
        break;
      case 'decimal':
        cols.push(sql`${c}::float8 AS ${as}`);
        break;
      default:
        cols.push(c);
    }
  }
  if (model.timestamps !== false) {
    const created = column(alias, 'created');
    cols.push(model.timestamps === 'date' ? sql`to_char(${created} AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS "created"` : sql`${iso(created)} AS "created"`);
  }
  if (model.lastUpdated) cols.push(sql`${iso(column(alias, 'last_updated'))} AS "last_updated"`);
  return join(cols);
}
