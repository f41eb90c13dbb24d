import type { Registry, ResolvedField, ResolvedModel } from '../../definitions/registry-types';
import { and, column, ident, sql, type Sql } from '../../sql/fragment';
import { treeWalk } from '../../reads/tree-walk';

/**
 * The ids a path (site.region, tags) reaches from the row aliased `alias`, as a sub-select of one column
 * "v"; for a tree target its ancestors too, as a context assigned to a parent region applies to sites in
 * its children.
 */
function pathValues(model: ResolvedModel, alias: string, path: string, n: () => string): Sql {
  let current = model;
  let set: Sql | null = null;
  for (const part of path.split('.')) {
    const f = current.fields.get(part);
    const x = n();
    if (f?.kind === 'fk') {
      set = set === null
        ? sql`SELECT ${column(alias, f.column)} AS "v"`
        : sql`SELECT ${column(x, f.column)} AS "v" FROM ${ident(current.table)} AS ${ident(x)} WHERE ${column(x, 'id')} IN (${set})`;
    } else if (f?.kind === 'm2m' || f?.kind === 'tags') {
      const from: Sql = set === null ? sql`SELECT ${column(alias, 'id')}` : set;
      set = sql`SELECT ${column(x, 'target_id')} AS "v" FROM ${ident(f.joinTable)} AS ${ident(x)} WHERE ${column(x, 'source_id')} IN (${from})`;
    } else throw new Error(`${model.label}: config context path ${path} steps through ${part}, not a relation`);
    current = f.target;
  }
  if (current.tree && set) {
    const w = n();
    return sql`WITH RECURSIVE ${treeWalk(w, current.table, sql`"id" IN (${set})`, 'up')} SELECT "id" AS "v" FROM ${ident(w)}`;
  }
  return set ?? sql`SELECT NULL::bigint AS "v"`;
}

/**
 * A config_context field: the deep merge, in weight then name order, of every active config context
 * whose assignments match the object on every kind it has (no assignment of a kind matches everything),
 * with the object's local context data merged last — NetBox's get_config_context, computed by
 * PostgreSQL (patchbay_jsonb_deep_merge and its aggregate are shipped in a migration).
 */
export function configContextJson(registry: Registry, field: ResolvedField, alias: string): Sql {
  const cc = registry.roles.get('config_context')!;
  const model = field.model;
  let count = 0;
  const n = () => `cc${++count}`;
  const c = n();
  const matches: Sql[] = [column(c, 'is_active')];
  for (const [assign, path] of Object.entries(field.def.match ?? {})) {
    const link = cc.fields.get(assign);
    if (link?.kind !== 'm2m') throw new Error(`${cc.label}.${assign} is not a many-to-many field`);
    const j = n();
    const assigned = sql`SELECT 1 FROM ${ident(link.joinTable)} AS ${ident(j)} WHERE ${column(j, 'source_id')} = ${column(c, 'id')}`;
    matches.push(sql`NOT EXISTS (${assigned}) OR EXISTS (${assigned} AND ${column(j, 'target_id')} IN (${pathValues(model, alias, path, n)}))`);
  }
  const dataColumn = cc.fields.get('data')?.column;
  if (!dataColumn) throw new Error(`${cc.label} has no stored data field`);
  const data = column(c, dataColumn);
  const merged = sql`coalesce((SELECT patchbay_jsonb_deep_merge_agg(${data} ORDER BY ${column(c, 'weight')}, ${column(c, 'name')}, ${column(c, 'id')}) FROM ${ident(cc.table)} AS ${ident(c)} WHERE ${and(matches)}), '{}'::jsonb)`;
  const local = field.def.local ? model.fields.get(field.def.local) : undefined;
  if (!local?.column) return merged;
  const own = column(alias, local.column);
  return sql`patchbay_jsonb_deep_merge(${merged}, CASE WHEN jsonb_typeof(${own}) = 'object' THEN ${own} ELSE '{}'::jsonb END)`;
}
