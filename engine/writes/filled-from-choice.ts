import type { ResolvedField, ResolvedModel } from '../definitions/registry-types';
import { ident, join, sql } from '../sql/fragment';
import { runRows } from '../database/run';
import type { Db } from '../database/db';
import type { WriteMode } from './prepare-write';
import type { FieldErrors } from '../validation/field-errors';

/** A `filled_from_choice` field: its column, the choice field's column, and the number each choice value gives. */
interface ChoicePartRoute {
  own: string;
  message: string;
  choice: string;
  numbers: Map<string, string>;
}

/**
 * The route of a field's `filled_from_choice`, checked at startup: a stored decimal or integer field, a
 * single choice field of the same model, and every value of its set split into enough parts, the one
 * named a number (so a write can never be refused for a value the definitions allowed).
 */
export function choicePartRoute(model: ResolvedModel, field: ResolvedField): ChoicePartRoute | null {
  // Worked out once per field: the map of every choice (hundreds of radio channels) was built again for
  // every interface written, a sixth of a bulk import's time.
  if (routes.has(field)) return routes.get(field)!;
  const route = workOutRoute(model, field);
  routes.set(field, route);
  return route;
}

const routes = new WeakMap<ResolvedField, ChoicePartRoute | null>();

function workOutRoute(model: ResolvedModel, field: ResolvedField): ChoicePartRoute | null {
  const spec = field.def.filled_from_choice;
  if (!spec) return null;
  const where = `${model.label}.${field.name}: filled_from_choice`;
  if (!field.column || field.array || !['decimal', 'integer', 'positive_integer'].includes(field.kind)) throw new Error(`${where}: only a single stored decimal or integer field is filled from a choice`);
  const choice = model.fields.get(spec.field);
  if (choice?.kind !== 'choice' || !choice.column || choice.array) throw new Error(`${where}: ${spec.field} is not a single choice field of ${model.label}`);
  const numbers = new Map<string, string>();
  const pattern = field.kind === 'decimal' ? /^-?\d+(\.\d+)?$/ : /^-?\d+$/;
  for (const { value } of choice.choices.entries) {
    const part = String(value).split(spec.separator)[spec.part];
    if (part === undefined || !pattern.test(part)) throw new Error(`${where}: the choice ${String(value)} of ${choice.choices.name} has no part ${spec.part} that is a number`);
    numbers.set(String(value), part);
  }
  return { own: field.column, message: spec.message, choice: choice.column, numbers };
}

const unset = (v: unknown) => v === null || v === undefined || v === '' || Number(v) === 0;

/**
 * NetBox's save() filling a number from the choice that encodes it (an interface's channel frequency and
 * width from its rf_channel) when the write leaves it unset: null or 0, as Python's `not value`; and its
 * clean() refusing another number with a choice set. The other of the two, when the write does not give
 * it, is the stored one (read in the write's transaction).
 */
export async function fillFromChoice(db: Db, model: ResolvedModel, columns: Record<string, unknown>, mode: WriteMode, id: number | undefined): Promise<FieldErrors | null> {
  const errors: FieldErrors = {};
  for (const field of model.fieldList) {
    const route = choicePartRoute(model, field);
    if (!route) continue;
    const { own, choice } = route;
    // A change touching neither field leaves the row as it was.
    if (mode !== 'create' && !(own in columns) && !(choice in columns)) continue;
    const missing = [own, choice].filter((c) => !(c in columns));
    const stored = mode === 'create' || id === undefined || !missing.length
      ? {}
      : (await runRows<Record<string, unknown>>(db, sql`SELECT ${join(missing.map((c) => sql`${ident(c)}`))} FROM ${ident(model.table)} WHERE "id" = ${id}::bigint`))[0] ?? {};
    const after = (c: string) => (c in columns ? columns[c] : stored[c]);
    const channel = after(choice);
    if (channel === null || channel === undefined || channel === '') continue;
    const number = route.numbers.get(String(channel));
    if (number === undefined) continue;
    if (unset(after(own))) columns[own] = number;
    else if (Number(after(own)) !== Number(number)) errors[field.name] = [route.message];
  }
  return Object.keys(errors).length ? errors : null;
}
