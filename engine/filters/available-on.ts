import type { ResolvedModel } from '../definitions/registry-types';
import type { Filter } from '../definitions/generated/model-definition';
import type { Condition } from '../query/conditions';
import { quoteIdent, sqlLiteral } from '../storage/identifiers';
import type { FilterDef } from './filter-table';
import { resolvePath } from './filter-paths';
import { resolveTargets } from './relation-filters';
import { treeWalk } from '../query/tree-walk';

/** What the named object reaches through one of its paths: the target model, and SQL for that object's id (one `?`: the named object's id). */
interface Reach {
  target: ResolvedModel;
  idSql: string;
}

function reach(of: ResolvedModel, path: string): Reach {
  if (path === 'self') return { target: of, idSql: '?' };
  const route = resolvePath(of, path);
  const f = route.field;
  if (f.kind !== 'fk' || !f.target || route.multiValued || route.narrowed) throw new Error(`${path} on ${of.label} must end on a foreign key`);
  // The path's value read from the named object's own row (the subquery's "t" shadows the list's).
  return { target: f.target, idSql: `(SELECT ${route.value(f.column!)} FROM ${quoteIdent(of.table)} AS "t" WHERE "t"."id" = ?)` };
}

/** The ids a reach stands for: the object, and on a tree its ancestors too (a VLAN group scoped to a parent region serves the child's sites). */
function idsOf(r: Reach): string {
  if (!r.target.tree) return `(${r.idSql})`;
  return `(WITH RECURSIVE ${treeWalk('up', r.target.table, `"id" = ${r.idSql}`, 'up')} SELECT "id" FROM "up")`;
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
  const terms: Array<{ sql: string }> = [];
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
      let cond: (alias: string) => string;
      if (f.kind === 'generic_fk') {
        const allowed = f.genericTargets?.includes(r.target);
        if (!allowed) throw fail(`${rowPath} cannot point at ${r.target.label}`);
        cond = (a) => `${a}.${quoteIdent(f.typeColumn!)} = ${sqlLiteral(r.target.label)} AND ${a}.${quoteIdent(f.idColumn!)} IN ${idsOf(r)}`;
      } else if (f.kind === 'fk' && f.target === r.target) {
        cond = (a) => `${a}.${quoteIdent(f.column!)} IN ${idsOf(r)}`;
      } else throw fail(`${rowPath} is not a relation to ${r.target.label}`);
      terms.push({ sql: route.wrap(cond) });
    }
  }
  const unscoped = (spec.unscoped ?? []).map((p) => {
    const route = resolvePath(model, p);
    const f = route.field;
    const col = f.kind === 'generic_fk' ? f.typeColumn : f.column;
    if (!col) throw fail(`${p} is not stored`);
    return `NOT COALESCE((${route.wrap((a) => `${a}.${quoteIdent(col)} IS NOT NULL`)}), FALSE)`;
  });
  if (!terms.length && !unscoped.length) throw fail('needs "match" or "unscoped"');
  // One id's condition; each term reads the named object once (one binding each).
  const perObject = [...terms.map((t) => `(${t.sql})`), ...(unscoped.length ? [`(${unscoped.join(' AND ')})`] : [])].join(' OR ');
  return {
    name,
    lookups: ['exact'],
    kind: 'integer',
    async compile(_lookup, values, param, ctx) {
      const r = resolveTargets(of, 'id', values.filter((v) => v !== 'null'), param, ctx);
      if (!r) return null;
      const each: Condition[] = (r.ids ?? []).map((id) => ({ sql: perObject, bindings: terms.map(() => id) }));
      return { sql: each.map((c) => `(${c.sql})`).join(' OR ') || 'FALSE', bindings: each.flatMap((c) => c.bindings) };
    },
  };
}
