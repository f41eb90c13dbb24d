import type { Registry, ResolvedField, ResolvedModel } from '../definitions/registry-types';
import { ident, sql } from '../sql/fragment';
import { runRows } from '../database/run';
import type { Db } from '../database/db';
import type { FieldErrors } from '../validation/field-errors';
import type { WriteMode } from './prepare-write';

/** A `sum_of` field: the column kept, and the rows (their foreign key here, their column summed) it totals. */
export interface SumRoute {
  parent: ResolvedModel;
  field: string;
  column: string;
  child: ResolvedModel;
  via: string;
  summed: string;
  message: string;
}

/**
 * The route of a field's `sum_of`, checked at startup: a nullable single integer field here (null is the
 * sum of no rows), a model of the registry, its foreign key to this model, and an integer field of it.
 */
export function sumRoute(registry: Registry, model: ResolvedModel, field: ResolvedField): SumRoute | null {
  const spec = field.def.sum_of;
  if (!spec) return null;
  const where = `${model.label}.${field.name}: sum_of`;
  if (!field.column || field.array || !field.nullable || !['integer', 'positive_integer'].includes(field.kind)) throw new Error(`${where}: only a single integer field that may be null holds a sum (null when no row is left)`);
  const child = registry.models.get(spec.of);
  if (!child) throw new Error(`${where}: unknown model ${spec.of}`);
  const via = child.fields.get(spec.via);
  if (via?.kind !== 'fk' || via.target !== model) throw new Error(`${where}: ${spec.via} is not a foreign key of ${child.label} to ${model.label}`);
  const summed = child.fields.get(spec.field);
  if (!summed?.column || summed.array || !['integer', 'positive_integer'].includes(summed.kind)) throw new Error(`${where}: ${spec.field} is not a single integer field of ${child.label}`);
  return { parent: model, field: field.name, column: field.column, child, via: via.column, summed: summed.column, message: spec.message };
}

/** Every `sum_of` of the definitions. */
export function sumRoutes(registry: Registry): SumRoute[] {
  return [...registry.models.values()].flatMap((m) => m.fieldList.flatMap((f) => {
    const r = sumRoute(registry, m, f);
    return r ? [r] : [];
  }));
}

/**
 * NetBox's VirtualMachine.clean() for a kept sum: a change of an object that has rows to sum fills the
 * field when it is written null, and refuses any other value than their total. The object's row is
 * locked first, so no row can be added to the total before this write commits (the trigger that keeps
 * the sum locks it too).
 */
export async function checkSums(db: Db, registry: Registry, model: ResolvedModel, columns: Record<string, unknown>, mode: WriteMode, id: number | undefined): Promise<FieldErrors | null> {
  if (mode === 'create' || id === undefined) return null;
  for (const field of model.fieldList) {
    const route = sumRoute(registry, model, field);
    if (!route || !(route.column in columns)) continue;
    await runRows(db, sql`SELECT 1 FROM ${ident(model.table)} WHERE "id" = ${id}::bigint FOR UPDATE`);
    const [row] = await runRows<{ total: string | number | null }>(db, sql`SELECT sum(${ident(route.summed)}) AS "total" FROM ${ident(route.child.table)} WHERE ${ident(route.via)} = ${id}::bigint`);
    const total = row?.total === null || row?.total === undefined ? 0 : Number(row.total);
    if (!total) continue;
    const value = columns[route.column];
    if (value === null || value === undefined) columns[route.column] = total;
    else if (Number(value) !== total) return { [field.name]: [route.message.replace('{value}', String(value)).replace('{total}', String(total))] };
  }
  return null;
}
