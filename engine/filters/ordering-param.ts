import type { OrderTerm, ResolvedModel } from '../definitions/registry-types';
import { isConcealed } from '../definitions/concealed-fields';

/** Whether a field can be ordered by: stored columns, foreign keys (by the related natural order), computed SQL. */
export function orderable(model: ResolvedModel, name: string): boolean {
  if (name === 'id' || (name === 'created' && model.timestamps !== false) || (name === 'last_updated' && model.lastUpdated)) return true;
  const f = model.fields.get(name);
  // A secret's order would tell its value a bit at a time.
  if (!f || f.writeOnly || f.array || isConcealed(f)) return false;
  return !!f.column || (f.kind === 'computed' && !!f.def.sql);
}

/**
 * `ordering=a,-b`: several fields, '-' for descending; unknown fields are ignored as NetBox ignores them.
 * Nothing usable means the model's default ordering.
 */
export function orderingOf(model: ResolvedModel, query: URLSearchParams): OrderTerm[] {
  const raw = query.getAll('ordering').flatMap((v) => v.split(','));
  const terms: OrderTerm[] = [];
  for (const part of raw) {
    const t = part.trim();
    if (!t) continue;
    const descending = t.startsWith('-');
    const field = descending ? t.slice(1) : t;
    if (orderable(model, field) && !terms.some((x) => x.field === field)) terms.push({ field, descending });
  }
  return terms.length ? terms : model.ordering;
}
