import type { FkField, ResolvedModel } from '../definitions/registry-types';
import { ident, sql } from '../sql/fragment';
import { runRows } from '../database/run';
import type { Db } from '../database/db';
import type { WriteMode } from './prepare-write';

/** A `filled_from` foreign key: the model's foreign key it reads through, and the target's foreign key it copies. */
interface FillRoute {
  field: FkField;
  via: FkField;
  from: FkField;
}

/** The route of a field's `filled_from` ("cluster.site"), checked at startup: two foreign keys ending on the field's own target. */
export function fillRoute(model: ResolvedModel, field: FkField): FillRoute | null {
  const path = field.def.type === 'fk' ? field.def.filled_from : undefined;
  if (!path) return null;
  const [first, second] = path.split('.') as [string, string];
  const via = model.fields.get(first);
  if (via?.kind !== 'fk') throw new Error(`${model.label}.${field.name}: filled_from ${path}: ${first} is not a foreign key of ${model.label}`);
  const from = via.target.fields.get(second);
  if (from?.kind !== 'fk' || from.target !== field.target) throw new Error(`${model.label}.${field.name}: filled_from ${path}: ${second} is not a foreign key of ${via.target.label} to ${field.target.label}`);
  return { field, via, from };
}

/**
 * NetBox's save() filling a foreign key from a related object when the write leaves it unset (a virtual
 * machine's site from its cluster). Read in the write's transaction, FOR SHARE: the related row cannot
 * change before this write commits, so the value copied is the one the checks then judge.
 */
export async function fillFromRelated(db: Db, model: ResolvedModel, columns: Record<string, unknown>, mode: WriteMode, id: number | undefined): Promise<void> {
  for (const field of model.fieldList) {
    if (field.kind !== 'fk') continue;
    const route = fillRoute(model, field);
    if (!route) continue;
    const own = route.field.column;
    const through = route.via.column;
    // A change touching neither foreign key leaves the row as it was.
    if (mode !== 'create' && !(own in columns) && !(through in columns)) continue;
    const current = mode === 'create' || id === undefined
      ? undefined
      : (await runRows<{ own: number | null; through: number | null }>(db, sql`SELECT ${ident(own)} AS "own", ${ident(through)} AS "through" FROM ${ident(model.table)} WHERE "id" = ${id}::bigint`))[0];
    const ownValue = own in columns ? columns[own] : current?.own ?? null;
    const throughValue = through in columns ? columns[through] : current?.through ?? null;
    if (ownValue !== null && ownValue !== undefined) continue;
    if (throughValue === null || throughValue === undefined) continue;
    const [row] = await runRows<{ v: number | null }>(db, sql`SELECT ${ident(route.from.column)} AS "v" FROM ${ident(route.via.target.table)} WHERE "id" = ${Number(throughValue)}::bigint FOR SHARE`);
    if (row?.v !== null && row?.v !== undefined) columns[own] = row.v;
  }
}
