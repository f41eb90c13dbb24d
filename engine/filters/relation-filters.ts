import { hasColumn, type ColumnField, type FkField, type GenericField, type LinkField, type ResolvedField, type ResolvedModel } from '../definitions/registry-types';
import { column, ident, or, sql, type Sql } from '../sql/fragment';
import type { ExistenceCheck, FilterContext } from './filter-context';
import type { FilterDef } from './filter-table';
import { parseAll } from './filter-values';
import { emptyCondition, notMatching, ORDERED_LOOKUPS, scalarCondition } from './scalar-lookups';
import { treeWalk } from '../reads/tree-walk';
import { naturalKey } from '../definitions/natural-key';

export { naturalKey };

const isNull = (v: string) => v === 'null';

/**
 * The target objects a filter's values name, by id or by natural key. Whether they exist is not looked up
 * here: the check is deferred into the read's own statement (ctx.checks), so a filtered list is still one
 * round trip, and an unknown one is a 400 as NetBox gives it.
 */
export interface Targets {
  target: ResolvedModel;
  /** Ids given (`<name>_id=`), or null when the values are natural keys. */
  ids: number[] | null;
  /** The natural key column and its values (`site=<slug>`). */
  keys: { column: Sql; values: string[] } | null;
  /** `null` was among the values: "no object". */
  wantsNull: boolean;
}

export function resolveTargets(target: ResolvedModel, by: 'id' | ColumnField, values: string[], param: string, ctx: FilterContext): Targets | null {
  const wantsNull = values.some(isNull);
  const named = values.filter((v) => !isNull(v));
  if (!named.length) return { target, ids: [], keys: null, wantsNull };
  const table = ident(target.table);
  if (by === 'id') {
    const parsed = parseAll('integer', named, param, ctx);
    if (!parsed) return null;
    const ids = parsed as number[];
    addCheck(ctx, {
      param,
      values: named,
      firstMissing: sql`(SELECT min("u"."i") FROM unnest(${ids}::bigint[]) WITH ORDINALITY AS "u"("k", "i") WHERE NOT EXISTS (SELECT 1 FROM ${table} AS "x" WHERE "x"."id" = "u"."k"))`,
    });
    return { target, ids, keys: null, wantsNull };
  }
  const key = ident(by.column);
  addCheck(ctx, {
    param,
    values: named,
    firstMissing: sql`(SELECT min("u"."i") FROM unnest(${named}::text[]) WITH ORDINALITY AS "u"("k", "i") WHERE NOT EXISTS (SELECT 1 FROM ${table} AS "x" WHERE "x".${key}::text = "u"."k"))`,
  });
  return { target, ids: null, keys: { column: key, values: named }, wantsNull };
}

/** A filter reaching its targets by several paths names them once: one check per parameter. */
function addCheck(ctx: FilterContext, check: ExistenceCheck): void {
  if (!ctx.checks.some((c) => c.param === check.param)) ctx.checks.push(check);
}

/** "expr is one of the targets": `= ANY(ids)`, or a sub-select of the ids the keys name. */
function amongTargets(expr: Sql, t: Targets): Sql {
  if (t.ids) return sql`${expr} = ANY(${t.ids})`;
  const keys = t.keys!;
  return sql`${expr} IN (SELECT "id" FROM ${ident(t.target.table)} WHERE ${keys.column}::text = ANY(${keys.values}::text[]))`;
}

/**
 * The holder links to every one of the targets (tag=a&tag=b): it is among the holders with as many distinct
 * linked targets among them as there are distinct values. One uncorrelated sub-select, which PostgreSQL
 * hashes once, however many values: one EXISTS per value would have the planner join a thousand relations.
 */
function linksAll(field: LinkField, t: Targets, holderId: Sql = column('t', 'id')): Sql {
  const wanted = t.ids ? new Set(t.ids).size : new Set(t.keys!.values).size;
  const among = amongTargets(column('j', 'target_id'), t);
  return sql`${holderId} IN (SELECT "j"."source_id" FROM ${ident(field.joinTable)} AS "j" WHERE ${among} GROUP BY "j"."source_id" HAVING count(DISTINCT "j"."target_id") = ${wanted})`;
}

const hasNamed = (t: Targets): boolean => (t.ids ? t.ids.length > 0 : t.keys!.values.length > 0);

/** The targets and all their descendants, for filters on a tree (region_id matches sites of child regions). */
function withDescendants(t: Targets): Sql {
  return sql`(WITH RECURSIVE ${treeWalk('d', t.target.table, amongTargets(ident('id'), t), 'down')} SELECT "id" FROM "d")`;
}

/** A condition "column refers to one of the targets", optionally through the target tree, with null meaning unset. */
export function refersTo(col: Sql, t: Targets, descend: boolean): Sql {
  const parts: Sql[] = [];
  if (hasNamed(t)) parts.push(descend && t.target.tree ? sql`${col} IN ${withDescendants(t)}` : amongTargets(col, t));
  if (t.wantsNull) parts.push(sql`${col} IS NULL`);
  return or(parts);
}

/**
 * Filters on a relation (fk, m2m, tags, generic): `<name>_id` and `<name>` by the target's natural
 * key for foreign keys and many-to-many links, `tag` for tags (repeats mean AND), `<name>_type` and
 * `<name>_id` for generic relations.
 */
export function relationFilters(model: ResolvedModel, field: ResolvedField): FilterDef[] {
  if (field.kind === 'fk') return fkFilters(model, field, column('t', field.column), field.name);
  if (field.kind === 'tags') return [tagFilter(field)];
  // A many-to-many field may take NetBox's singular filter names (a config context's `site`, not `sites`).
  if (field.kind === 'm2m') return m2mFilters(field, column('t', 'id'), field.def.filter_name ?? field.name);
  if (field.kind === 'generic_fk') return genericFilters(field);
  return [];
}

/** `<name>_id` and `<name>` filters for a column holding a target id (also used by declared path filters). */
export function fkFilters(model: ResolvedModel, field: FkField, col: Sql, name: string): FilterDef[] {
  const target = field.target;
  // The tree's own parent filter is direct; any other relation to a tree includes descendants, as NetBox.
  const descend = target.tree && !(target === model && field.name === 'parent');
  const make = (filterName: string, by: 'id' | ColumnField): FilterDef => ({
    name: filterName,
    lookups: ['exact', 'n'],
    field,
    kind: 'relation',
    async compile(lookup, values, param, ctx) {
      const r = resolveTargets(target, by, values, param, ctx);
      if (!r) return null;
      const c = refersTo(col, r, descend);
      if (lookup !== 'n') return c;
      // __n keeps rows with no relation unless null itself is excluded.
      return r.wantsNull ? sql`NOT (${c})` : sql`(${col} IS NULL OR NOT (${c}))`;
    },
  });
  const out = [make(`${name}_id`, 'id')];
  const key = naturalKey(target);
  if (key) out.push(make(name, key));
  return out;
}

/** The holder links to one of the targets. */
function linkExists(field: LinkField, t: Targets, holderId: Sql = column('t', 'id')): Sql {
  const among = amongTargets(column('j', 'target_id'), t);
  return sql`EXISTS (SELECT 1 FROM ${ident(field.joinTable)} AS "j" WHERE "j"."source_id" = ${holderId} AND ${among})`;
}

/** `<name>_id` and `<name>` of a many-to-many field held by the row whose id is `holderId` (declared path filters pass their own). */
export function m2mFilters(field: LinkField, holderId: Sql = column('t', 'id'), name = field.name): FilterDef[] {
  const target = field.target;
  const make = (name: string, by: 'id' | ColumnField): FilterDef => ({
    name,
    lookups: ['exact', 'n'],
    field,
    kind: 'relation',
    async compile(lookup, values, param, ctx) {
      const r = resolveTargets(target, by, values, param, ctx);
      if (!r) return null;
      const c = linkExists(field, r, holderId);
      return lookup === 'n' ? sql`NOT ${c}` : c;
    },
  });
  const out = [make(`${name}_id`, 'id')];
  const key = naturalKey(target);
  if (key) out.push(make(name, key));
  return out;
}

/** `tag=<slug>`: repeated values must all be present (AND); `tag__n`: none of them. */
function tagFilter(field: LinkField): FilterDef {
  const target = field.target;
  return {
    name: 'tag',
    lookups: ['exact', 'n'],
    field,
    kind: 'tags',
    async compile(lookup, values, param, ctx) {
      const key = naturalKey(target)!;
      const r = resolveTargets(target, key, values, param, ctx);
      if (!r) return null;
      if (!hasNamed(r)) return sql`TRUE`;
      if (lookup === 'n') return sql`NOT ${linkExists(field, r)}`;
      return linksAll(field, r);
    },
  };
}

/** `<name>_type` and `<name>_id` of a generic relation; `at` overrides the column expressions (declared path filters). */
export function genericFilters(field: GenericField, at?: { type: Sql; id: Sql }): FilterDef[] {
  const typeCol = at?.type ?? column('t', field.typeColumn);
  const idCol = at?.id ?? column('t', field.idColumn);
  return [
    {
      name: field.typeColumn,
      lookups: ['exact', 'n'],
      field,
      kind: 'content_type',
      async compile(lookup, values, param, ctx) {
        const allowed = new Set((field.genericTargets ?? []).map((m) => m.label));
        for (const v of values) {
          if (!allowed.has(v)) {
            ctx.errors.add(param, `Select a valid choice. ${v} is not one of the available choices.`);
            return null;
          }
        }
        const c = sql`${typeCol} = ANY(${values})`;
        return lookup === 'n' ? notMatching(c, typeCol) : c;
      },
    },
    {
      // A plain number as NetBox filters it: every numeric lookup (object_id__gt=10, object_id__empty=true).
      name: field.idColumn,
      lookups: ORDERED_LOOKUPS,
      field,
      kind: 'integer',
      async compile(lookup, values, param, ctx) {
        if (lookup === 'empty') {
          const flags = parseAll('boolean', values, param, ctx);
          return flags ? emptyCondition(idCol, flags[0] === true, false) : null;
        }
        const ids = parseAll('integer', values, param, ctx);
        if (!ids) return null;
        if (lookup !== 'exact' && lookup !== 'n') return scalarCondition(idCol, lookup, ids, 'bigint');
        const c = sql`${idCol} = ANY(${ids})`;
        return lookup === 'n' ? notMatching(c, idCol) : c;
      },
    },
  ];
}

