import type { OrderTerm, ResolvedModel } from '../definitions/registry-types';
import { column, ident, sql, type Sql } from '../sql/fragment';

export interface OrderPlan {
  /** LEFT JOINs the terms need (a foreign key ordered by the related model's own ordering). */
  joins: Sql[];
  terms: Sql[];
}

/**
 * ORDER BY for a model's rows aliased "t": stored fields by column, a foreign key by the related model's
 * own ordering (through a LEFT JOIN, the empty relation first as NetBox has it), computed SQL, timestamps
 * and id directly; always ending in id so pages never overlap.
 */
export function orderPlan(model: ResolvedModel, terms: readonly OrderTerm[]): OrderPlan {
  const joins: Sql[] = [];
  const out: Sql[] = [];
  const dir = (descending: boolean) => (descending ? sql` DESC` : sql``);
  for (const term of terms) {
    if (term.field === 'id' || term.field === 'created' || term.field === 'last_updated') {
      out.push(sql`${column('t', term.field)}${dir(term.descending)}`);
      continue;
    }
    const f = model.fields.get(term.field);
    if (!f) continue;
    if (f.kind === 'fk' && f.target) {
      const alias = `o_${f.name}`;
      joins.push(sql`LEFT JOIN ${ident(f.target.table)} AS ${ident(alias)} ON ${column(alias, 'id')} = ${column('t', f.column)}`);
      const nulls = term.descending ? sql` NULLS LAST` : sql` NULLS FIRST`;
      const targetTerms = f.target.ordering.length ? f.target.ordering : [{ field: 'id', descending: false }];
      for (const tt of targetTerms) {
        const tf = f.target.fields.get(tt.field);
        const col = tf?.column ?? (tt.field === 'id' || tt.field === 'created' ? tt.field : null);
        if (!col) continue;
        out.push(sql`${column(alias, col)}${dir(tt.descending !== term.descending)}${nulls}`);
      }
      continue;
    }
    if (f.column) out.push(sql`${column('t', f.column)}${dir(term.descending)}`);
    else if (f.kind === 'computed' && f.def.sql && f.def.from?.[0]) {
      const src = model.fields.get(f.def.from[0]);
      // The computed field's SQL function, named by the definition: an identifier, never text.
      if (src?.column) out.push(sql`${ident(f.def.sql)}(${column('t', src.column)})${dir(term.descending)}`);
    }
  }
  const last = terms[terms.length - 1];
  if (!(last && last.field === 'id')) out.push(column('t', 'id'));
  return { joins, terms: out };
}
