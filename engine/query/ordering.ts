import type { OrderTerm, ResolvedModel } from '../definitions/registry-types';
import { quoteIdent } from '../storage/identifiers';

export interface OrderPlan {
  joins: string[];
  orderBy: string[];
}

/**
 * ORDER BY for a model: stored fields by column, a foreign key by the related model's own ordering
 * (through a LEFT JOIN), timestamps and id directly; always ending in id so pages never overlap.
 */
export function planOrdering(model: ResolvedModel, terms: readonly OrderTerm[]): OrderPlan {
  const joins: string[] = [];
  const orderBy: string[] = [];
  for (const term of terms) {
    const dir = term.descending ? ' DESC' : '';
    if (term.field === 'id' || term.field === 'created' || term.field === 'last_updated') {
      orderBy.push(`"t".${quoteIdent(term.field)}${dir}`);
      continue;
    }
    const f = model.fields.get(term.field);
    if (!f) continue;
    if (f.kind === 'fk' && f.target) {
      const alias = quoteIdent(`o_${f.name}`);
      joins.push(`LEFT JOIN ${quoteIdent(f.target.table)} AS ${alias} ON ${alias}."id" = "t".${quoteIdent(f.column!)}`);
      // NetBox puts the empty relation first (e.g. the global VRF before any VRF).
      const nulls = term.descending ? ' NULLS LAST' : ' NULLS FIRST';
      const targetTerms = f.target.ordering.length ? f.target.ordering : [{ field: 'id', descending: false }];
      for (const t of targetTerms) {
        const tf = f.target.fields.get(t.field);
        const col = tf?.column ?? (t.field === 'id' || t.field === 'created' ? t.field : null);
        if (!col) continue;
        const d = t.descending !== term.descending ? ' DESC' : '';
        orderBy.push(`${alias}.${quoteIdent(col)}${d}${nulls}`);
      }
      continue;
    }
    if (f.column) orderBy.push(`"t".${quoteIdent(f.column)}${dir}`);
    else if (f.kind === 'computed' && f.def.sql && f.def.from?.[0]) {
      const src = model.fields.get(f.def.from[0]);
      if (src?.column) orderBy.push(`${f.def.sql}("t".${quoteIdent(src.column)})${dir}`);
    }
  }
  const last = terms.length ? terms[terms.length - 1] : undefined;
  if (!(last && last.field === 'id')) orderBy.push('"t"."id"');
  return { joins, orderBy };
}
