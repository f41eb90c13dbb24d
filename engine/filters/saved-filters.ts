import type { Registry, ResolvedModel } from '../definitions/registry-types';
import { ident, sql } from '../sql/fragment';
import { runRows } from '../database/run';
import type { FilterErrors } from './filter-errors';
import { parseValue } from './filter-values';
import type { Db } from '../database/db';

/**
 * NetBox's saved filters on lists (BaseFilterSet): `?filter=<slug>` and `?filter_id=<id>` add the stored
 * parameters of those saved filters (the model with the saved_filter role) to the query string's, a value
 * for a parameter already given joining its values. The parameters then go through the same filter
 * compiler as the query string's. One bounded statement finds them all.
 *
 * NetBox applies any saved filter it finds and ignores a name it does not. Patchbay applies those the
 * caller may use (enabled, and shared or their own) for this list's type, and refuses any other name
 * with a 400: a mistyped name would otherwise answer with the whole unfiltered list.
 */
export async function withSavedFilters(
  db: Db,
  registry: Registry,
  model: ResolvedModel,
  grouped: Map<string, string[]>,
  userId: number | null,
  errors: FilterErrors,
): Promise<void> {
  const slugs = grouped.get('filter') ?? [];
  const idTexts = grouped.get('filter_id') ?? [];
  grouped.delete('filter');
  grouped.delete('filter_id');
  if (!slugs.length && !idTexts.length) return;
  const saved = registry.roles.get('saved_filter');
  const ids: number[] = [];
  for (const text of idTexts) {
    const p = parseValue('integer', text);
    if (p.ok) ids.push(p.value as number);
    else errors.add('filter_id', p.message);
  }
  if (!saved || errors.has('filter_id')) return;
  const owner = saved.fields.get('user');
  const mine = owner?.kind === 'fk' && userId !== null ? sql`${ident(owner.column)} = ${userId}::bigint` : sql`FALSE`;
  const rows = await runRows<{ id: number | string; slug: string; parameters: unknown }>(db, sql`SELECT "id", "slug", "parameters" FROM ${ident(saved.table)}
      WHERE ("slug" = ANY(${slugs}::text[]) OR "id" = ANY(${ids}::bigint[])) AND "enabled" AND ("shared" OR ${mine}) AND ${model.label}::text = ANY("content_types")
      ORDER BY "id"`);
  for (const slug of slugs) if (!rows.some((r) => r.slug === slug)) errors.add('filter', `Select a valid choice. ${slug} is not one of the available choices.`);
  for (const id of ids) if (!rows.some((r) => Number(r.id) === id)) errors.add('filter_id', `Select a valid choice. ${id} is not one of the available choices.`);
  for (const row of rows) {
    const parameters = row.parameters !== null && typeof row.parameters === 'object' && !Array.isArray(row.parameters) ? (row.parameters as Record<string, unknown>) : {};
    for (const [key, value] of Object.entries(parameters)) {
      // A saved filter does not name other saved filters (NetBox applies them once, not recursively).
      if (key === 'filter' || key === 'filter_id') continue;
      const values = (Array.isArray(value) ? value : [value]).filter((v) => v !== null && typeof v !== 'object').map((v) => (typeof v === 'boolean' ? (v ? 'true' : 'false') : String(v)));
      const list = grouped.get(key);
      if (list) list.push(...values);
      else grouped.set(key, values);
    }
  }
}
