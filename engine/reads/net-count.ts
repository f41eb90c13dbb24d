import type { NetCountField } from '../definitions/registry-types';
import { and, column, ident, sql, type Sql } from '../sql/fragment';

/**
 * A net_count field's value for the row `alias`: the networks of the same model inside its network
 * (children) or around it (depth), among rows sharing the `same` fields, counted in `other`. Shared by
 * the read (the field's value) and the filters over it (children__gt=0), so both count alike.
 */
export function netCountSql(f: NetCountField, alias: string, other: string): Sql {
  const { net, same, direction } = f.netCount;
  const mine = column(alias, net.column);
  const theirs = column(other, net.column);
  const conditions = [direction === 'children' ? sql`${theirs} << ${mine}` : sql`${theirs} >> ${mine}`];
  for (const s of same) if (s.column) conditions.push(sql`${column(other, s.column)} IS NOT DISTINCT FROM ${column(alias, s.column)}`);
  return sql`(SELECT count(*)::int FROM ${ident(f.model.table)} AS ${ident(other)} WHERE ${and(conditions)})`;
}
