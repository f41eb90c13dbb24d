import type { Registry, ResolvedModel } from '../definitions/registry-types';
import { ident, sql, type Sql } from '../sql/fragment';
import { runRows } from '../database/run';
import { linearTest } from './linear-regex';
import { ISO_DATE, ISO_DATETIME, withinCalendar } from './calendar';
import { expandChoices } from './choice-set-choices';
import type { Db } from '../database/db';
import { parsePk, resolveRelated } from './resolve-related';


/** A custom field definition as validating values needs it. */
export interface CustomFieldDef {
  name: string;
  type: string;
  required: boolean;
  default: unknown;
  validation_minimum: number | null;
  validation_maximum: number | null;
  validation_regex: string;
  /** The choice set of a selection field, as its choices are read (see choice-set-choices.ts). */
  choice_set: { name: string; extra: unknown; alphabetical: boolean } | null;
  object_type: string | null;
}

/**
 * The columns a CustomFieldDef is read from (the definition table unaliased): a selection field's choice
 * set comes with it, so that a change of the set's choices changes the definitions read (and the text a
 * write made in one statement compares: engine/validation/custom-field-cache.ts).
 */
export function definitionColumns(registry: Registry): Sql {
  const set = registry.roles.get('custom_field_choice_set');
  const cf = registry.roles.get('custom_field');
  const link = cf?.fields.get('choice_set');
  const choiceSet = set && link?.kind === 'fk' && link.target === set
    ? sql`(SELECT jsonb_build_object('name', "s"."name", 'extra', "s"."extra_choices", 'alphabetical', "s"."order_alphabetically") FROM ${ident(set.table)} AS "s" WHERE "s"."id" = ${ident(link.column)})`
    : sql`NULL::jsonb`;
  return sql`"name", "type", "required", "default", "validation_minimum", "validation_maximum", "validation_regex", ${choiceSet} AS "choice_set", "object_type"`;
}

/** The custom fields defined for a model (one query; none when no model plays the custom_field role). */
const perTransaction = new WeakMap<object, Map<string, Promise<CustomFieldDef[]>>>();

export async function customFieldsOf(db: Db, registry: Registry, model: ResolvedModel): Promise<CustomFieldDef[]> {
  const cf = registry.roles.get('custom_field');
  if (!cf) return [];
  // A bulk write reads the definitions once, not once per object.
  let cache = perTransaction.get(db);
  if (!cache) perTransaction.set(db, (cache = new Map()));
  let defs = cache.get(model.label);
  if (!defs) cache.set(model.label, (defs = loadDefinitions(db, registry, cf, model)));
  return defs;
}

/**
 * The definitions are read FOR SHARE: a value written against a definition must not outlive it. A
 * delete (or change) of a definition locks its row first, so it either waits for this write and then
 * strips (or converts) its value too, or this read waits for it and sees the definition as it leaves it.
 */
async function loadDefinitions(db: Db, registry: Registry, cf: ResolvedModel, model: ResolvedModel): Promise<CustomFieldDef[]> {
  return runRows<CustomFieldDef>(db, sql`SELECT ${definitionColumns(registry)}
       FROM ${ident(cf.table)} WHERE ${model.label}::text = ANY("content_types") ORDER BY "weight", "name" FOR SHARE`);
}

function choiceValues(def: CustomFieldDef): string[] {
  return def.choice_set ? expandChoices(def.choice_set).map(([value]) => value) : [];
}

/** The name a choice set is told by in messages ("Invalid choice (x) for choice set Colours."). */
function setName(def: CustomFieldDef): string {
  return def.choice_set?.name ?? 'None';
}


/** A decimal as Python's Decimal() reads a string (NaN and Infinity aside: they are no amounts). */
const DECIMAL_TEXT = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;

/**
 * A value as a client may send it, in the form it is stored and checked in: what NetBox's
 * CustomField.validate() accepts besides the plain JSON type. A decimal given as a string ("7.5", as
 * Decimal() reads it) is stored as the number; a boolean given as 1 or 0 (Python's `in [True, False, 1, 0]`)
 * as true or false; an object given as a numeric string or {"id": n} (the nested serializer NetBox runs it
 * through) as its id. Anything else is left for customFieldValueProblem to refuse.
 */
export function clientCustomFieldValue(def: CustomFieldDef, v: unknown): unknown {
  switch (def.type) {
    case 'decimal':
      return typeof v === 'string' && DECIMAL_TEXT.test(v) && Number.isFinite(Number(v)) ? Number(v) : v;
    case 'boolean':
      return v === 1 ? true : v === 0 ? false : v;
    case 'object':
      return objectId(v);
    case 'multiobject':
      return Array.isArray(v) ? v.map(objectId) : v;
    default:
      return v;
  }
}

function objectId(v: unknown): unknown {
  if (typeof v === 'string') return parsePk(v) ?? v;
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const keys = Object.keys(v);
    if (keys.length === 1 && keys[0] === 'id') return parsePk((v as { id: unknown }).id) ?? v;
  }
  return v;
}

/** Why a value does not fit its custom field, or null. (Existence of object references is checked separately.) */
export function customFieldValueProblem(def: CustomFieldDef, v: unknown): string | null {
  if (v === null || v === '') return def.required ? 'Required field cannot be empty.' : null;
  const range = (n: number) => {
    if (def.validation_minimum !== null && n < Number(def.validation_minimum)) return `Value must be at least ${def.validation_minimum}`;
    if (def.validation_maximum !== null && n > Number(def.validation_maximum)) return `Value must not exceed ${def.validation_maximum}`;
    return null;
  };
  switch (def.type) {
    case 'text':
    case 'longtext':
    case 'url':
      if (typeof v !== 'string') return `Value must be a string.`;
      // A pattern that does not compile (stored before patterns were checked) constrains nothing.
      if (def.validation_regex && linearTest(def.validation_regex, v) === false) return `Value must match regex '${def.validation_regex}'`;
      return null;
    case 'integer':
      return typeof v === 'number' && Number.isSafeInteger(v) ? range(v) : 'Value must be an integer.';
    case 'decimal':
      return typeof v === 'number' && Number.isFinite(v) ? range(v) : 'Value must be a decimal.';
    case 'boolean':
      return typeof v === 'boolean' ? null : 'Value must be true or false.';
    case 'date':
      return typeof v === 'string' && ISO_DATE.test(v) && withinCalendar(v) ? null : 'Date values must be in ISO 8601 format (YYYY-MM-DD).';
    case 'datetime':
      // Range filters read stored values as timestamptz: only what PostgreSQL reads may be stored.
      return typeof v === 'string' && ISO_DATETIME.test(v) && withinCalendar(v) ? null : 'Date and time values must be in ISO 8601 format (YYYY-MM-DD HH:MM:SS).';
    case 'select':
      return typeof v === 'string' && choiceValues(def).includes(v) ? null : `Invalid choice (${typeof v === 'string' ? v : JSON.stringify(v)}) for choice set ${setName(def)}.`;
    case 'multiselect': {
      if (!Array.isArray(v)) return 'Value must be a list.';
      const values = choiceValues(def);
      if (v.some((x) => typeof x !== 'string' || !values.includes(x))) return `Invalid choice(s) (${JSON.stringify(v)}) for choice set ${setName(def)}.`;
      return null;
    }
    case 'object':
      return typeof v === 'number' && Number.isSafeInteger(v) ? null : 'Value must be an object ID.';
    case 'multiobject':
      return Array.isArray(v) && v.every((x) => typeof x === 'number' && Number.isSafeInteger(x)) ? null : 'Value must be a list of object IDs.';
    default:
      return null;
  }
}

/**
 * Checks written custom field data against the definitions: unknown names, types, ranges, regexes,
 * choices, object references; on create, fills defaults and insists on required fields. Returns the
 * data to store (complete on create, the changed keys otherwise) or the error messages.
 */
export async function prepareCustomFields(
  db: Db,
  registry: Registry,
  model: ResolvedModel,
  data: Record<string, unknown> | undefined,
  creating: boolean,
  known?: readonly CustomFieldDef[],
): Promise<{ ok: true; value: Record<string, unknown> } | { ok: false; errors: string[] }> {
  const defs = known ?? (await customFieldsOf(db, registry, model));
  const byName = new Map(defs.map((d) => [d.name, d]));
  const errors: string[] = [];
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(data ?? {})) {
    const def = byName.get(name);
    if (!def) {
      errors.push(`Unknown field name '${name}' in custom field data.`);
      continue;
    }
    const given = await withAttributesResolved(db, registry, def, clientCustomFieldValue(def, value));
    if (typeof given === 'string' && def.type.endsWith('object')) {
      errors.push(`Invalid value for custom field '${name}': ${given}`);
      continue;
    }
    const stored = typeof given === 'object' && given !== null && 'value' in given ? given.value : value;
    const p = customFieldValueProblem(def, stored);
    if (p) errors.push(`Invalid value for custom field '${name}': ${p}`);
    else out[name] = stored === '' ? null : stored;
  }
  if (creating) {
    for (const def of defs) {
      if (def.name in out) continue;
      if (def.default !== null && def.default !== undefined) out[def.name] = def.default;
      else if (def.required) errors.push(`Required field '${def.name}' cannot be empty.`);
      else out[def.name] = null;
    }
  }
  for (const def of defs) {
    const v = out[def.name];
    if ((def.type !== 'object' && def.type !== 'multiobject') || v === null || v === undefined || !def.object_type) continue;
    const target = registry.models.get(def.object_type);
    const ids = (Array.isArray(v) ? v : [v]) as number[];
    if (!target || !ids.length) continue;
    const [found] = await runRows<{ n: number }>(db, sql`SELECT count(*)::int AS "n" FROM ${ident(target.table)} WHERE "id" = ANY(${ids}::bigint[])`);
    if (found?.n !== new Set(ids).size) errors.push(`Invalid value for custom field '${def.name}': object does not exist.`);
  }
  return errors.length ? { ok: false, errors } : { ok: true, value: out };
}

/**
 * An object (or each of a multi-object field's objects) given by its attributes ({"name": "x"}), found as
 * NetBox's nested serializer finds it: {value} with the ids in place, or the message when one is not
 * found (or is ambiguous). Values of other fields pass through as {value}.
 */
async function withAttributesResolved(db: Db, registry: Registry, def: CustomFieldDef, v: unknown): Promise<{ value: unknown } | string> {
  const target = def.object_type ? registry.models.get(def.object_type) : undefined;
  if (!target || (def.type !== 'object' && def.type !== 'multiobject')) return { value: v };
  const isAttrs = (x: unknown) => x !== null && typeof x === 'object' && !Array.isArray(x);
  const one = async (x: unknown): Promise<{ value: unknown } | string> => {
    if (!isAttrs(x)) return { value: x };
    const found = await resolveRelated(db, target, x);
    return found.ok ? { value: found.id } : found.message;
  };
  if (def.type === 'object') return one(v);
  if (!Array.isArray(v) || !v.some(isAttrs)) return { value: v };
  const out: unknown[] = [];
  for (const x of v) {
    const r = await one(x);
    if (typeof r === 'string') return r;
    out.push(r.value);
  }
  return { value: out };
}
