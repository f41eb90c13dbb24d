import type { LinkField, Registry, ResolvedModel } from '../definitions/registry-types';
import { column, ident, or, sql, type Sql } from '../sql/fragment';
import type { FilterDef } from './filter-table';
import { parseAll } from './filter-values';

/** Every tags field in the registry that links to `tag` (one join table per taggable model), by model label. */
function taggings(registry: Registry, tag: ResolvedModel): Map<string, LinkField> {
  const out = new Map<string, LinkField>();
  for (const m of registry.models.values()) {
    for (const f of m.fieldList) if (f.kind === 'tags' && f.target === tag) out.set(m.label, f);
  }
  return out;
}

/** The tag row "t" is applied to some object of the model whose tags field this is. */
const appliedVia = (f: LinkField): Sql => sql`${column('t', 'id')} IN (SELECT "j"."target_id" FROM ${ident(f.joinTable)} AS "j")`;

/**
 * NetBox's tags content_type / content_type_id: the tags applied to some object of the named types,
 * derived from every taggable model's tags field (its join table) rather than a list of types. A label
 * or content type id of no taggable type matches nothing, as in NetBox.
 */
export function taggedTypeFilter(model: ResolvedModel, name: string, by: 'label' | 'id'): FilterDef {
  return {
    name,
    lookups: ['exact'],
    kind: by === 'label' ? 'content_type' : 'integer',
    async compile(_lookup, values, param, ctx) {
      const via = taggings(ctx.registry, model);
      if (by === 'label') {
        // Checked as any text (a NUL byte is a 400); a label of no taggable type matches nothing, as in NetBox.
        const labels = parseAll('text', values, param, ctx) as string[] | null;
        if (!labels) return null;
        return or(labels.flatMap((v) => (via.has(v) ? [appliedVia(via.get(v)!)] : [])));
      }
      const ids = parseAll('integer', values, param, ctx);
      if (!ids) return null;
      const types = ctx.registry.roles.get('content_type');
      if (!types) throw new Error(`${model.label}: filter ${name} needs a model with "role": "content_type"`);
      // The labels of the named content types, each tested against its model's join table.
      const named = (label: string) => sql`EXISTS (SELECT 1 FROM ${ident(types.table)} AS "ct" WHERE "ct"."id" = ANY(${ids}::bigint[]) AND "ct"."app_label" || '.' || "ct"."model" = ${label}::text)`;
      return or([...via].map(([label, f]) => sql`(${named(label)} AND ${appliedVia(f)})`));
    },
  };
}
