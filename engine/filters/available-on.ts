import type { ResolvedModel } from '../definitions/registry-types';
import type { Filter } from '../definitions/generated/model-definition';
import { and, column, ident, or, sql, type Sql } from '../sql/fragment';
import type { FilterDef } from './filter-table';
import { resolvePath } from './filter-paths';
import { resolveTargets } from './relation-filters';
import { treeWalk } from '../reads/tree-walk';

/** What the named object reaches through one of its paths: the target model, and that object's id given the named object's. */
interface Reach {
  target: ResolvedModel;
  idOf(objectId: number): Sql;
}

function reach(of: ResolvedModel, path: string): Reach {
  if (path === 'self') return { target: of, idOf: (id) => sql`${id}::bigint` };
  const route = resolvePath(of, path);
  const f = route.field;
  if (f.kind !== 'fk' || !f.target || route.multiValued || route.narrowed) throw new Error(`${path} on ${of.label} must end on a foreign key`);
  const value = route.value(f.column);
  // The path's value read from the named object's own row (the subquery's "t" shadows the list's).
  return { target: f.target, idOf: (id) => sql`(SELECT ${value} FROM ${ident(of.table)} AS "t" WHERE "t"."id" = ${id}::bigint)` };
}

/** The ids a reach stands for: the object, and on a tree its ancestors too (a VLAN group scoped to a parent region serves the child's sites). */
function idsOf(r: Reach, objectId: number): Sql {
  if (!r.target.tree) return sql`(${r.idOf(objectId)})`;
  return sql`(WITH RECURSIVE ${treeWalk('up', r.target.table, sql`"id" = ${r.idOf(objectId)}`, 'up')} SELECT "id" FROM "up")`;
}

/**
 * `available_on`: the rows usable on one object (VLANs on a device): those whose `match` paths point
 * at what the object reaches (its site, its site's region and ancestors, its rack...), and those
 * with every `unscoped` path unset (global ones). The value names the object by id (400 if unknown).
 */
export function availableOnFilter(model: ResolvedModel, name: string, spec: Filter): FilterDef {
  const fail = (why: string) => new Error(`${model.label}: filter ${name}: ${why}`);
  const of = model.modelByLabel(spec.of ?? '');
  if (!of) throw fail(`"of" names no model (${spec.of ?? ''})`);
  /** One condition per matched path, for the named object's id. */
  const terms: Array<(objectId: number) => Sql> = [];
  for (const [rowPath, objectPaths] of Object.entries(spec.match ?? {})) {
    const route = resolvePath(model, rowPath);
    const f = route.field;
    for (const op of objectPaths) {
      let r: Reach;
      try {
        r = reach(of, op);
      } catch (e) {
        throw fail((e as Error).message);
      }
      const target = r;
      if (f.kind === 'generic_fk') {
        if (!f.genericTargets?.includes(target.target)) throw fail(`${rowPath} cannot point at ${target.target.label}`);
        const typeCol = f.typeColumn;
        const idCol = f.idColumn;
        terms.push((id) => route.wrap((a) => sql`${column(a, typeCol)} = ${target.target.label}::text AND ${column(a, idCol)} IN ${idsOf(target, id)}`));
      } else if (f.kind === 'fk' && f.target === target.target) {
        const col = f.column;
        terms.push((id) => route.wrap((a) => sql`${column(a, col)} IN ${idsOf(target, id)}`));
      } else throw fail(`${rowPath} is not a relation to ${target.target.label}`);
    }
  }
  const unscoped = (spec.unscoped ?? []).map((p) => {
    const route = resolvePath(model, p);
    const f = route.field;
    const col = f.kind === 'generic_fk' ? f.typeColumn : f.column;
    if (!col) throw fail(`${p} is not stored`);
    return sql`NOT COALESCE((${route.wrap((a) => sql`${column(a, col)} IS NOT NULL`)}), FALSE)`;
  });
  if (!terms.length && !unscoped.length) throw fail('needs "match" or "unscoped"');
  const perObject = (id: number): Sql => or([...terms.map((t) => t(id)), ...(unscoped.length ? [and(unscoped)] : [])]);
  return {
    name,
    lookups: ['exact'],
    kind: 'integer',
    async compile(_lookup, values, param, ctx) {
      const r = resolveTargets(of, 'id', values.filter((v) => v !== 'null'), param, ctx);
      if (!r) return null;
      return or((r.ids ?? []).map(perObject));
    },
  };
}
