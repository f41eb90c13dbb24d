import type { Registry, ResolvedModel } from '../definitions/registry-types';
import { ident, sql } from '../sql/fragment';
import { runRows } from '../database/run';
import { pathsWritten, writesRetracePaths } from '../domain/cables/cable-paths';
import { customFieldValueProblem, definitionColumns, type CustomFieldDef } from '../validation/custom-field-values';
import { ValidationError, type FieldErrors } from '../validation/field-errors';
import type { Db } from '../database/db';


/** Every model's custom-field store column (the custom_fields kind). */
function stores(registry: Registry): Array<{ model: ResolvedModel; column: string }> {
  return [...registry.models.values()].flatMap((m) => m.fieldList.flatMap((f) => (f.kind === 'custom_fields' ? [{ model: m, column: f.column }] : [])));
}

interface CustomFieldRow extends CustomFieldDef {
  id: number;
  content_types: string[];
}

/**
 * A default its own field would refuse as a value is refused, as NetBox's CustomField.clean() does:
 * every object of the field's types is given it, and a range filter or an object lookup would then
 * read a value the field cannot hold (30 February cast to a date, an object id past bigint).
 * Errors are aligned with the written objects when there are several.
 */
function checkDefaults(rows: CustomFieldRow[], ids: number[]): void {
  const errors = ids.map((id): FieldErrors => {
    const cf = rows.find((r) => Number(r.id) === id);
    if (!cf) return {};
    if (cf.default === null || cf.default === undefined) return {};
    const problem = customFieldValueProblem(cf, cf.default);
    return problem ? { default: [`Invalid default value "${typeof cf.default === 'string' ? cf.default : JSON.stringify(cf.default)}": ${problem}`] } : {};
  });
  if (errors.some((e) => Object.keys(e).length)) throw new ValidationError(errors.length === 1 ? errors[0]! : errors);
}

/**
 * After custom field definitions are written: their defaults are checked, then objects of the field's
 * types get the default where they have no value yet, and objects of types it no longer applies to
 * lose it (as NetBox does).
 */
async function customFieldsWritten(db: Db, registry: Registry, model: ResolvedModel, ids: number[]): Promise<void> {
  const rows = await runRows<CustomFieldRow>(db, sql`SELECT "id", "content_types", ${definitionColumns(registry)}
       FROM ${ident(model.table)} WHERE "id" = ANY(${ids})`);
  checkDefaults(rows, ids);
  for (const cf of rows) {
    for (const { model: m, column } of stores(registry)) {
      const col = ident(column);
      if (cf.content_types.includes(m.label)) {
        await runRows(db, sql`UPDATE ${ident(m.table)} SET ${col} = ${col} || jsonb_build_object(${cf.name}::text, ${JSON.stringify(cf.default ?? null)}::jsonb) WHERE NOT jsonb_exists(${col}, ${cf.name}::text)`);
      } else {
        await runRows(db, sql`UPDATE ${ident(m.table)} SET ${col} = ${col} - ${cf.name}::text WHERE jsonb_exists(${col}, ${cf.name}::text)`);
      }
    }
  }
}

/** Before custom field definitions are deleted: their values go from every object. */
async function customFieldsDeleting(db: Db, registry: Registry, model: ResolvedModel, ids: number[]): Promise<void> {
  const names = (await runRows<{ name: string }>(db, sql`SELECT "name" FROM ${ident(model.table)} WHERE "id" = ANY(${ids})`)).map((x) => x.name);
  if (!names.length) return;
  for (const { model: m, column } of stores(registry)) {
    const col = ident(column);
    await runRows(db, sql`UPDATE ${ident(m.table)} SET ${col} = ${col} - ${names}::text[] WHERE jsonb_exists_any(${col}, ${names}::text[])`);
  }
}

/**
 * After custom field choice sets are written: a set needs choices (NetBox's predefined base sets are data
 * Patchbay does not ship: base_choices is read-only and always empty); a set ordered alphabetically keeps
 * its extra choices sorted by value, as NetBox saves them.
 */
async function choiceSetsWritten(db: Db, model: ResolvedModel, ids: number[]): Promise<void> {
  const rows = await runRows<{ id: number | string; count: number }>(db, sql`SELECT "id", coalesce(jsonb_array_length("extra_choices"), 0)::int AS "count"
       FROM ${ident(model.table)} WHERE "id" = ANY(${ids})`);
  const errors = ids.map((id): FieldErrors => {
    const row = rows.find((r) => Number(r.id) === id);
    return !row || row.count ? {} : { non_field_errors: ['Must define base or extra choices.'] };
  });
  if (errors.some((e) => Object.keys(e).length)) throw new ValidationError(errors.length === 1 ? errors[0]! : errors);
  await runRows(db, sql`UPDATE ${ident(model.table)} SET "extra_choices" = (SELECT coalesce(jsonb_agg("e" ORDER BY ("e" ->> 0) COLLATE "C"), '[]'::jsonb) FROM jsonb_array_elements("extra_choices") AS "e")
       WHERE "id" = ANY(${ids}) AND "order_alphabetically"`);
}

/**
 * Whether writing objects of the model does more than write their rows (afterWrite has work), or reads
 * what must not change before it commits (a kept sum, checked with the object's row locked).
 */
export function hasWriteHooks(model: ResolvedModel): boolean {
  return model.def.role === 'custom_field' || model.def.role === 'custom_field_choice_set' || writesRetracePaths(model) || model.fieldList.some((f) => f.def.sum_of !== undefined);
}

/** What the engine does, inside the write's transaction, when objects playing a role change. */
export async function afterWrite(db: Db, registry: Registry, model: ResolvedModel, ids: number[]): Promise<void> {
  if (!ids.length) return;
  if (model.def.role === 'custom_field') await customFieldsWritten(db, registry, model, ids);
  if (model.def.role === 'custom_field_choice_set') await choiceSetsWritten(db, model, ids);
  // Cables, their terminations, front and rear ports: the paths through them are traced again and stored (engine/domain/cables/cable-paths.ts).
  await pathsWritten(db, registry, model, ids);
}

export async function beforeDelete(db: Db, registry: Registry, model: ResolvedModel, ids: number[]): Promise<void> {
  if (model.def.role === 'custom_field' && ids.length) await customFieldsDeleting(db, registry, model, ids);
}
