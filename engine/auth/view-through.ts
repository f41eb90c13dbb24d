import type { GenericField, ResolvedModel } from '../definitions/registry-types';
import { and, column, ident, or, sql, type Sql } from '../sql/fragment';
import type { Scope } from './permissions';

/**
 * Rows that carry another object's data (a change log entry's snapshots, an event's payload) are seen
 * only where that object may be: the model's `view_through` names the generic relation to it. NetBox
 * shows every change to whoever may view the change log; Patchbay narrows that to what the caller could
 * read anyway.
 */

/** The generic relation a model's rows are seen through, or null. */
export function viewThroughField(model: ResolvedModel): GenericField | null {
  const name = model.def.view_through;
  if (!name) return null;
  const f = model.fields.get(name);
  if (f?.kind !== 'generic_fk') throw new Error(`${model.label}: view_through names ${name}, which is not a generic relation`);
  return f;
}

/**
 * The condition on the row aliased "t": its relation names a type the caller may view whole, or an
 * object of a type they may view in part that lies within those conditions (so an object since deleted
 * shows only under an unconstrained view of its type). One condition, in the list's own statement:
 * the types viewed whole as one bound array, each constrained type as a semi-join on its table.
 */
export async function throughCondition(field: GenericField, scopeOf: (target: ResolvedModel) => Promise<Scope>): Promise<Sql> {
  const whole: string[] = [];
  const parts: Sql[] = [];
  const type = column('t', field.typeColumn);
  const id = column('t', field.idColumn);
  for (const target of field.genericTargets) {
    const scope = await scopeOf(target);
    if (!scope.allowed) continue;
    if (!scope.conditions.length) {
      whole.push(target.label);
      continue;
    }
    // The sub-select's own "t" is the target's row: the scope's conditions are written for that alias.
    parts.push(sql`${type} = ${target.label}::text AND ${id} IN (SELECT "t"."id" FROM ${ident(target.table)} AS "t" WHERE ${and(scope.conditions)})`);
  }
  if (whole.length) parts.unshift(sql`${type} = ANY(${whole}::text[])`);
  return or(parts);
}
