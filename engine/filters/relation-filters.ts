import type { Knex } from 'knex';
import type { ResolvedField, ResolvedModel } from '../definitions/registry-types';
import type { Condition } from '../query/conditions';
import { quoteIdent } from '../storage/identifiers';
import type { FilterContext } from './filter-context';
import type { FilterDef } from './filter-table';
import { parseAll } from './filter-values';
import { treeWalk } from '../query/tree-walk';

/** The field other models' filters use to name an object of this model (site=<slug>, vrf=<rd>). */
export function naturalKey(model: ResolvedModel): ResolvedField | undefined {
  const name = model.def.natural_key ?? (model.fields.has('slug') ? 'slug' : model.fields.has('name') ? 'name' : undefined);
  const f = name ? model.fields.get(name) : undefined;
  return f?.column ? f : undefined;
}

const isNull = (v: string) => v === 'null';

/**
 * Ids of the target objects named by the values (by id or by natural key), checked to exist as NetBox
 * does (an unknown one is a 400). One query per parameter, whatever the page size.
 */
export async function resolveTargets(target: ResolvedModel, by: 'id' | ResolvedField, values: string[], param: string, ctx: FilterContext): Promise<{ ids: number[]; wantsNull: boolean } | null> {
  const wantsNull = values.some(isNull);
  const named = values.filter((v) => !isNull(v));
  if (!named.length) return { ids: [], wantsNull };
  let keys: unknown[];
  if (by === 'id') {
    const parsed = parseAll('integer', named, param, ctx);
    if (!parsed) return null;
    keys = parsed;
  } else keys = named;
  const col = by === 'id' ? '"id"' : quoteIdent(by.column!);
  const result = await ctx.db.raw(`SELECT "id", ${col}::text AS "k" FROM ${quoteIdent(target.table)} WHERE ${col}${by === 'id' ? '' : '::text'} = ANY(?)`, [(by === 'id' ? keys : keys.map(String)) as Knex.RawBinding]);
  const rows = result.rows as Array<{ id: number; k: string }>;
  const found = new Set(rows.map((r) => r.k));
  for (const v of named) {
    const k = by === 'id' ? String(Number(v)) : v;
    if (!found.has(k)) {
      ctx.errors.add(param, `Select a valid choice. ${v} is not one of the available choices.`);
      return null;
    }
  }
  return { ids: rows.map((r) => r.id), wantsNull };
}

/** The ids and all their descendants, for filters on a tree (region_id matches sites of child regions). */
function withDescendants(target: ResolvedModel, placeholder: string): string {
  return `(WITH RECURSIVE ${treeWalk('d', target.table, `"id" = ANY(${placeholder})`, 'down')} SELECT "id" FROM "d")`;
}

/** A condition "column refers to one of the targets", optionally through the target tree, with null meaning unset. */
export function refersTo(col: string, target: ResolvedModel, ids: number[], wantsNull: boolean, descend: boolean): Condition {
  const parts: string[] = [];
  const bindings: unknown[] = [];
  if (ids.length) {
    parts.push(descend && target.tree ? `${col} IN ${withDescendants(target, '?')}` : `${col} = ANY(?)`);
    bindings.push(ids);
  }
  if (wantsNull) parts.push(`${col} IS NULL`);
  return { sql: parts.map((p) => `(${p})`).join(' OR ') || 'FALSE', bindings };
}

/**
 * Filters on a relation (fk, m2m, tags, generic): `<name>_id` and `<name>` by the target's natural
 * key for foreign keys and many-to-many links, `tag` for tags (repeats mean AND), `<name>_type` and
 * `<name>_id` for generic relations.
 */
export function relationFilters(model: ResolvedModel, field: ResolvedField): FilterDef[] {
  if (field.kind === 'fk') return fkFilters(model, field, `"t".${quoteIdent(field.column!)}`, field.name);
  if (field.kind === 'tags') return [tagFilter(field)];
  if (field.kind === 'm2m') return m2mFilters(field);
  if (field.kind === 'generic_fk') return genericFilters(field);
  return [];
}

/** `<name>_id` and `<name>` filters for a column holding a target id (also used by declared path filters). */
export function fkFilters(model: ResolvedModel, field: ResolvedField, col: string, name: string): FilterDef[] {
  const target = field.target!;
  // The tree's own parent filter is direct; any other relation to a tree includes descendants, as NetBox.
  const descend = target.tree && !(target === model && field.name === 'parent');
  const make = (filterName: string, by: 'id' | ResolvedField): FilterDef => ({
    name: filterName,
    lookups: ['exact', 'n'],
    field,
    kind: 'relation',
    async compile(lookup, values, param, ctx) {
      const r = await resolveTargets(target, by, values, param, ctx);
      if (!r) return null;
      const c = refersTo(col, target, r.ids, r.wantsNull, descend);
      if (lookup !== 'n') return c;
      // __n keeps rows with no relation unless null itself is excluded.
      return { sql: r.wantsNull ? `NOT (${c.sql})` : `(${col} IS NULL OR NOT (${c.sql}))`, bindings: c.bindings };
    },
  });
  const out = [make(`${name}_id`, 'id')];
  const key = naturalKey(target);
  if (key) out.push(make(name, key));
  return out;
}

/** The holder links to one of `ids`. */
function linkExists(field: ResolvedField, ids: unknown[], holderId = '"t"."id"'): Condition {
  return {
    sql: `EXISTS (SELECT 1 FROM ${quoteIdent(field.joinTable!)} "j" WHERE "j"."source_id" = ${holderId} AND "j"."target_id" = ANY(?))`,
    bindings: [ids],
  };
}

/** `<name>_id` and `<name>` of a many-to-many field held by the row whose id is `holderId` (declared path filters pass their own). */
export function m2mFilters(field: ResolvedField, holderId = '"t"."id"', name = field.name): FilterDef[] {
  const target = field.target!;
  const make = (name: string, by: 'id' | ResolvedField): FilterDef => ({
    name,
    lookups: ['exact', 'n'],
    field,
    kind: 'relation',
    async compile(lookup, values, param, ctx) {
      const r = await resolveTargets(target, by, values, param, ctx);
      if (!r) return null;
      const c = linkExists(field, r.ids, holderId);
      return lookup === 'n' ? { sql: `NOT ${c.sql}`, bindings: c.bindings } : c;
    },
  });
  const out = [make(`${name}_id`, 'id')];
  const key = naturalKey(target);
  if (key) out.push(make(name, key));
  return out;
}

/** `tag=<slug>`: repeated values must all be present (AND); `tag__n`: none of them. */
function tagFilter(field: ResolvedField): FilterDef {
  const target = field.target!;
  return {
    name: 'tag',
    lookups: ['exact', 'n'],
    field,
    kind: 'tags',
    async compile(lookup, values, param, ctx) {
      const key = naturalKey(target)!;
      const r = await resolveTargets(target, key, values, param, ctx);
      if (!r) return null;
      if (lookup === 'n') {
        const c = linkExists(field, r.ids);
        return { sql: `NOT ${c.sql}`, bindings: c.bindings };
      }
      const each = r.ids.map((id) => linkExists(field, [id]));
      return { sql: each.map((c) => c.sql).join(' AND ') || 'TRUE', bindings: each.flatMap((c) => c.bindings) };
    },
  };
}

/** `<name>_type` and `<name>_id` of a generic relation; `at` overrides the column expressions (declared path filters). */
export function genericFilters(field: ResolvedField, at?: { type: string; id: string }): FilterDef[] {
  const typeCol = at?.type ?? `"t".${quoteIdent(field.typeColumn!)}`;
  const idCol = at?.id ?? `"t".${quoteIdent(field.idColumn!)}`;
  return [
    {
      name: field.typeColumn!,
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
        const c = { sql: `${typeCol} = ANY(?)`, bindings: [values] };
        return lookup === 'n' ? { sql: `(${typeCol} IS NULL OR NOT (${c.sql}))`, bindings: c.bindings } : c;
      },
    },
    {
      name: field.idColumn!,
      lookups: ['exact', 'n'],
      field,
      kind: 'integer',
      async compile(lookup, values, param, ctx) {
        const ids = parseAll('integer', values, param, ctx);
        if (!ids) return null;
        const c = { sql: `${idCol} = ANY(?)`, bindings: [ids] };
        return lookup === 'n' ? { sql: `(${idCol} IS NULL OR NOT (${c.sql}))`, bindings: c.bindings } : c;
      },
    },
  ];
}

