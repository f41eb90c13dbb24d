import type { ResolvedModel } from '../definitions/registry-types';
import { quoteIdent } from '../storage/identifiers';

/** A stored row as the read path selects it: every value already in the form the API shows it. */
export type Row = Record<string, unknown> & { id: number };

const ISO_MICRO = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;

/**
 * SELECT list for a model's rows, aliased by column name. Dates, timestamps, addresses and MACs are
 * formatted by the database, so both back ends (pg and PGlite) yield identical strings.
 */
export function rowSelectList(model: ResolvedModel, alias: string): string {
  const a = quoteIdent(alias);
  const cols: string[] = [`${a}."id"`];
  for (const field of model.fieldList) {
    if (field.kind === 'generic_fk') {
      cols.push(`${a}.${quoteIdent(field.typeColumn!)}`, `${a}.${quoteIdent(field.idColumn!)}`);
      continue;
    }
    if (!field.column || field.kind === 'password') continue;
    const c = `${a}.${quoteIdent(field.column)}`;
    const as = quoteIdent(field.column);
    switch (field.kind) {
      case 'datetime':
        cols.push(`to_char(${c} AT TIME ZONE 'UTC', ${ISO_MICRO}) AS ${as}`);
        break;
      case 'date':
        cols.push(`to_char(${c}, 'YYYY-MM-DD') AS ${as}`);
        break;
      case 'inet':
      case 'cidr':
        // text() keeps the mask even on a /32 host, as NetBox shows it.
        cols.push(field.array ? `${c}::text[] AS ${as}` : `text(${c}) AS ${as}`);
        break;
      case 'mac':
        cols.push(`upper(${c}::text) AS ${as}`);
        break;
      case 'decimal':
        cols.push(`${c}::float8 AS ${as}`);
        break;
      default:
        cols.push(c);
    }
  }
  if (model.timestamps !== false) {
    cols.push(
      model.timestamps === 'date'
        ? `to_char(${a}."created" AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS "created"`
        : `to_char(${a}."created" AT TIME ZONE 'UTC', ${ISO_MICRO}) AS "created"`,
    );
    cols.push(`to_char(${a}."last_updated" AT TIME ZONE 'UTC', ${ISO_MICRO}) AS "last_updated"`);
  }
  return cols.join(', ');
}
