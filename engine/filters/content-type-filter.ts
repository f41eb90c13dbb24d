import { ident, or, sql, type Sql } from '../sql/fragment';
import type { ResolvedField } from '../definitions/registry-types';
import type { FilterDef } from './filter-table';
import { parseAll } from './filter-values';

/** The lookups a content_type_id filter can take besides exact and n (NetBox's number filter on content_types__id). */
export const CONTENT_TYPE_ID_LOOKUPS = ['lt', 'lte', 'gt', 'gte', 'empty'] as const;

/**
 * NetBox's content_type_id filters (a custom field's content_type_id, a bookmark's object_type_id): the
 * field holds `app.model` labels (a names_type list or value, or a generic relation's type), and the
 * query names content types by id, the ids of the content-types table (the content_type role), whose
 * rows migrations keep. A row matches when a type it holds has a content type the value selects: by id
 * (exact, n), by comparing ids (lt, lte, gt, gte, as NetBox's number lookups do), or, with empty, when
 * it holds none. `emptyMatchesAll`: a row holding no type matches every type (a tag without object
 * types may be applied to any: NetBox's for_object_type_id).
 */
export function contentTypeIdFilter(name: string, col: Sql, field: ResolvedField, lookups: readonly string[], emptyMatchesAll: boolean): FilterDef {
  const many = field.array;
  const none = many ? sql`coalesce(cardinality(${col}), 0) = 0` : sql`coalesce(${col}, '') = ''`;
  return {
    name,
    lookups: ['exact', 'n', ...lookups],
    field,
    kind: 'integer',
    async compile(lookup, values, param, ctx) {
      if (lookup === 'empty') {
        const flags = parseAll('boolean', values, param, ctx);
        if (!flags) return null;
        return flags[0] ? none : sql`NOT (${none})`;
      }
      const ids = parseAll('integer', values, param, ctx) as number[] | null;
      if (!ids) return null;
      const types = ctx.registry.roles.get('content_type');
      if (!types) throw new Error(`${name}: content_type_id needs a model with "role": "content_type"`);
      const label = sql`("ct"."app_label" || '.' || "ct"."model")`;
      const held = many ? sql`${label} = ANY(${col})` : sql`${label} = ${col}`;
      const op = { exact: sql`=`, n: sql`=`, lt: sql`<`, lte: sql`<=`, gt: sql`>`, gte: sql`>=` }[lookup];
      if (!op) throw new Error(`${name}: unknown lookup ${lookup}`);
      const chosen = or(ids.map((id) => sql`"ct"."id" ${op} ${id}::bigint`));
      let c = sql`EXISTS (SELECT 1 FROM ${ident(types.table)} AS "ct" WHERE (${chosen}) AND ${held})`;
      if (emptyMatchesAll) c = sql`(${c} OR ${none})`;
      // __n keeps every row not matched, those holding no type included (NetBox's exclude()).
      return lookup === 'n' ? sql`NOT ${c}` : c;
    },
  };
}
