import diagnostics_channel from 'node:diagnostics_channel';
import type { ChildrenField, GenericField, Registry, ResolvedField, ResolvedModel, StoredField } from '../definitions/registry-types';
import { defaultWith } from '../definitions/named-functions';
import { validateBody } from '../validation/body-validator';
import { addError, hasErrors, type FieldErrors } from '../validation/field-errors';
import { normalizeCidr, normalizeInet, normalizeMac } from '../validation/ip-values';
import { missingIds, resolveByKey, resolveRelated } from '../validation/resolve-related';
import { findBadString } from '../validation/string-hygiene';
import { hashPassword } from '../auth/passwords';
import { NO_HASHES, type PasswordHashes } from './passwords-ahead';
import { prepareCustomFields, type CustomFieldDef } from '../validation/custom-field-values';
import { clearWithout, fillFromRelated } from './filled-from';
import { fillFromChoice } from './filled-from-choice';
import { checkSums } from './summed-children';
import { coerceBody } from '../validation/coerce-values';
import { linearRegex } from '../validation/linear-regex';
import { mediaTypeProblem } from '../validation/media-type';
import { valueProblems } from '../validation/value-validators';
import type { Config } from '../config';
import { ident, sql } from '../sql/fragment';
import { runRows } from '../database/run';
import type { Db } from '../database/db';

export type WriteMode = 'create' | 'put' | 'patch';

/** What one object's write comes to: column values, and the full list of linked ids per join table. */
export interface PreparedWrite {
  columns: Record<string, unknown>;
  links: Map<string, number[]>;
  /** children fields: the complete list of attached objects each should hold. */
  children: Map<ChildrenField, Array<{ type: string; id: number }>>;
  /** JSON columns whose written object is merged into the stored one rather than replacing it. */
  mergeColumns: string[];
}

export type Prepared = { ok: true; write: PreparedWrite } | { ok: false; errors: FieldErrors };

export interface WriteOptions {
  /** Refuse names the model does not have (400 "Unknown field."), rather than ignore them as NetBox does. */
  strictFields?: boolean;
  /** The object an update writes to: a partial update of half a generic relation keeps its stored other half. */
  id?: number;
  /** The model's custom field definitions, already read (a write made in one statement checks them there). */
  customFields?: readonly CustomFieldDef[];
  /** Files uploaded with this write (multipart/form-data), stored already, by image field name. */
  files?: ReadonlyMap<string, StoredUpload>;
  /** The server's settings, for value validators an administrator bounds (without them, such a validator refuses). */
  config?: Config;
  /** Passwords the bodies set, hashed before the transaction opened (passwords-ahead.ts). */
  passwordHashes?: PasswordHashes;
  /**
   * Rows this transaction has found and locked FOR KEY SHARE already, as missingIds would (a bulk writer
   * checks a whole chunk's references in one statement per type): not looked up again one by one.
   */
  locked?: LockedRows;
}

/** Rows a transaction has locked FOR KEY SHARE, by type. */
export type LockedRows = ReadonlyMap<ResolvedModel, ReadonlySet<number>>;

/** missingIds, skipping the rows the transaction has locked already. */
async function missingUnlessLocked(db: Db, target: ResolvedModel, ids: number[], locked: LockedRows | undefined): Promise<number[]> {
  const held = locked?.get(target);
  return missingIds(db, target, held ? ids.filter((id) => !held.has(id)) : ids);
}

/** An uploaded image as stored: its name under the media folder and its size in pixels. */
export interface StoredUpload {
  path: string;
  width: number;
  height: number;
}

/** Names a representation shows but a write ignores (so a GET body can be PUT back). */
function readOnlyNames(model: ResolvedModel): Set<string> {
  const names = new Set(['id', 'url', 'display', 'created', 'last_updated', '_depth']);
  for (const f of model.fieldList) {
    if (f.readOnly) names.add(f.name);
    if (f.kind === 'generic_fk') names.add(f.name);
  }
  return names;
}

function writableNames(model: ResolvedModel): Set<string> {
  const names = new Set<string>();
  for (const f of model.fieldList) {
    if (f.readOnly) continue;
    if (f.kind === 'generic_fk') names.add(f.typeColumn).add(f.idColumn);
    else names.add(f.name);
  }
  return names;
}

/** What the `patchbay:prepare-write` channel publishes, once per object prepared. */
export interface PreparationMessage {
  model: string;
  mode: WriteMode;
}

/**
 * Every preparation of an object, for tracing (node:diagnostics_channel: nothing is built when nobody
 * subscribes). Preparing is the costly part of a write (password hashing, every value checked), so how
 * often one request prepares is worth seeing: each object once, whichever write path writes it.
 */
export const preparations = diagnostics_channel.channel('patchbay:prepare-write');

/**
 * Validates and converts one object of a write request: schema check, aliases, unknown fields,
 * value normalisation (addresses, MACs), relations given by id or attributes, defaults on create.
 */
export async function prepareWrite(
  db: Db,
  registry: Registry,
  model: ResolvedModel,
  input: unknown,
  mode: WriteMode,
  opts: WriteOptions = {},
): Promise<Prepared> {
  if (preparations.hasSubscribers) preparations.publish({ model: model.label, mode } satisfies PreparationMessage);
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return { ok: false, errors: { non_field_errors: [`Invalid data. Expected a dictionary, but got ${Array.isArray(input) ? 'list' : input === null ? 'null' : typeof input === 'string' ? 'str' : typeof input}.`] } };
  }
  const body: Record<string, unknown> = { ...(input as Record<string, unknown>) };
  for (const [alias, canonical] of model.writeAliases) {
    if (alias in body) {
      if (!(canonical in body)) body[canonical] = body[alias];
      delete body[alias];
    }
  }
  for (const f of model.fieldList) {
    // A blank value for a generated field asks for a new one (a token's key).
    if (f.def.default_fn && body[f.name] === '') delete body[f.name];
  }
  const errors: FieldErrors = {};
  const writable = writableNames(model);
  const ignored = readOnlyNames(model);
  for (const key of Object.keys(body)) {
    if (writable.has(key)) continue;
    // NetBox's serializers ignore what they do not know; a strict deployment may refuse it instead.
    if (opts.strictFields && !ignored.has(key)) addError(errors, key, 'Unknown field.');
    else delete body[key];
  }
  if (hasErrors(errors)) return { ok: false, errors };
  coerceBody(model, body);

  const schemaErrors = validateBody(model, body, mode === 'patch' ? 'partial' : 'create');
  if (hasErrors(schemaErrors)) return { ok: false, errors: schemaErrors };

  const columns: Record<string, unknown> = {};
  const links = new Map<string, number[]>();
  const children = new Map<ChildrenField, Array<{ type: string; id: number }>>();
  const mergeColumns: string[] = [];
  for (const field of model.fieldList) {
    if (field.readOnly) continue;
    if (field.kind === 'generic_fk') {
      await prepareGeneric(db, registry, model, field, body, mode, columns, errors, opts.id, opts.locked);
      continue;
    }
    if (field.kind === 'custom_fields') {
      if (!(field.name in body) && mode !== 'create') continue;
      const bad = findBadString(body[field.name]);
      if (bad) {
        addError(errors, field.name, bad);
        continue;
      }
      const r = await prepareCustomFields(db, registry, model, body[field.name] as Record<string, unknown> | undefined, mode === 'create', opts.customFields);
      if (!r.ok) for (const m of r.errors) addError(errors, field.name, m);
      else {
        columns[field.column] = JSON.stringify(r.value);
        // An update changes the keys it names and keeps the others, as NetBox does.
        if (mode !== 'create') mergeColumns.push(field.column);
      }
      continue;
    }
    if (field.kind === 'image') {
      prepareImage(model, field, body, mode, opts.files?.get(field.name), columns, errors);
      continue;
    }
    if (!(field.name in body)) {
      // PUT requires the required fields but, as DRF, leaves the others as they are.
      if (mode === 'create') applyDefault(field, columns, mode);
      continue;
    }
    const value = body[field.name];
    const bad = findBadString(value);
    if (bad) {
      addError(errors, field.name, bad);
      continue;
    }
    if (field.kind === 'fk') {
      if (value === null) {
        columns[field.column] = null;
        continue;
      }
      const found = await resolveRelated(db, field.target, value);
      if (found.ok) columns[field.column] = found.id;
      else addError(errors, field.name, found.message);
      continue;
    }
    if (field.kind === 'children') {
      const refs = await prepareChildren(db, registry, field, value as Array<{ object_type: string; object_id: number }>, errors);
      if (refs) children.set(field, refs);
      continue;
    }
    if (field.kind === 'm2m' && field.def.by_key) {
      const found = await resolveByKey(db, field.target, value as string[]);
      if (!found.ok) {
        addError(errors, field.name, found.message);
        continue;
      }
      // Locks the rows found until the commit, as for ids; one deleted in between is gone from this write too.
      const missing = await missingUnlessLocked(db, field.target, found.ids, opts.locked);
      for (const id of missing) addError(errors, field.name, `Invalid pk "${id}" - object does not exist.`);
      links.set(field.joinTable, [...new Set(found.ids)]);
      continue;
    }
    if (field.kind === 'm2m' || field.kind === 'tags') {
      const ids: number[] = [];
      for (const item of value as unknown[]) {
        const found = await resolveRelated(db, field.target, item);
        if (found.ok) ids.push(found.id);
        else addError(errors, field.name, found.message);
      }
      const missing = await missingUnlessLocked(db, field.target, ids, opts.locked);
      for (const id of missing) addError(errors, field.name, `Invalid pk "${id}" - object does not exist.`);
      if (field.kind === 'tags' && !missing.length) {
        for (const name of await tagsRestrictedElsewhere(db, field.target, model, ids)) addError(errors, field.name, `Tag ${name} cannot be assigned to ${model.name} objects.`);
      }
      links.set(field.joinTable, [...new Set(ids)]);
      continue;
    }
    if (field.def.validators?.length) {
      const problems = await valueProblems(field.def.validators, value, opts.config);
      if (problems.length) {
        for (const m of problems) addError(errors, field.name, m);
        continue;
      }
    }
    const converted = convertScalar(field, value);
    if (converted instanceof BadValue) addError(errors, field.name, converted.message);
    else {
      const wrong = field.namesType
        ? unnamedType(registry, field.namesType, converted)
        : field.def.regex
          ? uncompiledRegex(converted)
          : field.def.media_type
            ? mediaTypeProblem(converted)
            : null;
      if (wrong) addError(errors, field.name, wrong);
      else if (field.column) columns[field.column] = converted;
    }
  }
  if (hasErrors(errors)) return { ok: false, errors };
  await hashPasswords(columns, opts.passwordHashes);
  await fillFromRelated(db, model, columns, mode, opts.id);
  await clearWithout(db, model, columns, mode, opts.id);
  const choiceErrors = await fillFromChoice(db, model, columns, mode, opts.id);
  if (choiceErrors) return { ok: false, errors: choiceErrors };
  const sumErrors = await checkSums(db, registry, model, columns, mode, opts.id);
  if (sumErrors) return { ok: false, errors: sumErrors };
  return { ok: true, write: { columns, links, children, mergeColumns } };
}

/**
 * An image field: the file uploaded with the write (its name, and its size into the height and width
 * fields), else DRF's ImageField errors: a value in a JSON body is not a file, and a create (or PUT)
 * without one has none.
 */
function prepareImage(model: ResolvedModel, field: ResolvedField, body: Record<string, unknown>, mode: WriteMode, upload: StoredUpload | undefined, columns: Record<string, unknown>, errors: FieldErrors): void {
  if (upload) {
    columns[field.column!] = upload.path;
    const height = field.def.height_field ? model.fields.get(field.def.height_field)?.column : undefined;
    const width = field.def.width_field ? model.fields.get(field.def.width_field)?.column : undefined;
    if (height) columns[height] = upload.height;
    if (width) columns[width] = upload.width;
  } else if (body[field.name] !== undefined) {
    addError(errors, field.name, 'The submitted data was not a file. Check the encoding type on the form.');
  } else if (mode !== 'patch' && field.required) {
    addError(errors, field.name, 'No file was submitted.');
  }
}

function applyDefault(field: ResolvedField, columns: Record<string, unknown>, mode: WriteMode): void {
  if (field.kind === 'm2m' || field.kind === 'tags' || field.kind === 'children') return;
  if (field.kind === 'fk') {
    if (mode === 'put' && field.nullable) columns[field.column] = null;
    return;
  }
  const f = field.def;
  let v: unknown;
  if (f.default_fn) {
    // A generated value (a token key) is made once, on create.
    if (mode !== 'create') return;
    v = defaultWith(f.default_fn);
  }
  else if (f.default !== undefined) v = f.default;
  else if (field.kind === 'custom_fields') v = {};
  else if (field.nullable) v = null;
  else if (field.array) v = [];
  else if (['string', 'text', 'slug'].includes(field.kind)) v = '';
  else return;
  if (field.column) columns[field.column] = field.kind === 'json' || field.kind === 'custom_fields' ? JSON.stringify(v) : v;
}

/**
 * The tags among `ids` whose object_types name other types only, by name: a tag with object types set
 * may be applied to those types alone (NetBox refuses the rest when they are assigned).
 */
async function tagsRestrictedElsewhere(db: Db, tag: ResolvedModel, model: ResolvedModel, ids: number[]): Promise<string[]> {
  if (!ids.length) return [];
  const rows = await runRows<{ name: string }>(db, sql`SELECT "name" FROM ${ident(tag.table)}
      WHERE "id" = ANY(${ids}::bigint[]) AND cardinality("object_types") > 0 AND NOT (${model.label}::text = ANY("object_types")) ORDER BY "name"`);
  return rows.map((r) => r.name);
}

/** A names_type field's value (or list of values) that names no type it may name, told as NetBox tells an unknown content type. */
function unnamedType(registry: Registry, want: NonNullable<StoredField['namesType']>, value: unknown): string | null {
  for (const label of Array.isArray(value) ? value : [value]) {
    if (label === null || label === '') continue;
    const m = registry.models.get(String(label));
    const fits = m && (want.private || !m.private) && (!want.having || m.fieldList.some((f) => f.kind === want.having));
    if (!fits) return `Invalid content type: ${String(label)}`;
  }
  return null;
}

/** Why a regex field's pattern cannot be used, or null. */
function uncompiledRegex(value: unknown): string | null {
  if (typeof value !== 'string' || value === '') return null;
  const re = linearRegex(value);
  return typeof re === 'string' ? `Invalid regular expression: ${re}` : null;
}

/** A written value that cannot be stored, with the reason. */
class BadValue {
  constructor(readonly message: string) {}
}

/**
 * A password as written, hashed only once the whole write is known to be valid: hashing costs hundreds
 * of milliseconds (on the thread pool, engine/auth/passwords.ts), not worth spending on a refused write.
 */
class PlainPassword {
  constructor(readonly password: string) {}
}

/** The columns with each written password replaced by its hash: one hashed ahead (passwords-ahead.ts) if there is one. */
async function hashPasswords(columns: Record<string, unknown>, ahead: PasswordHashes = NO_HASHES): Promise<void> {
  const hashed = async (v: unknown): Promise<unknown> => (v instanceof PlainPassword ? (ahead.get(v.password) ?? (await hashPassword(v.password))) : v);
  for (const [name, value] of Object.entries(columns)) {
    if (value instanceof PlainPassword) columns[name] = await hashed(value);
    else if (Array.isArray(value) && value.some((v) => v instanceof PlainPassword)) columns[name] = await Promise.all(value.map(hashed));
  }
}

function convertScalar(field: ResolvedField, value: unknown): unknown {
  if (value === null) return null;
  const one = (v: unknown): unknown => {
    switch (field.kind) {
      case 'inet': {
        const r = normalizeInet(String(v));
        return r.ok ? r.value : new BadValue(r.message);
      }
      case 'cidr': {
        const r = normalizeCidr(String(v), field.def.host_bits ?? 'clear');
        return r.ok ? r.value : new BadValue(r.message);
      }
      case 'mac': {
        const r = normalizeMac(String(v));
        return r.ok ? r.value : new BadValue(r.message);
      }
      case 'decimal': {
        const places = field.def.decimal_places;
        if (places !== undefined) {
          const frac = String(v).split('.')[1] ?? '';
          if (!/e/i.test(String(v)) && frac.length > places) return new BadValue(`Ensure that there are no more than ${places} decimal places.`);
        }
        const digits = field.def.max_digits;
        if (digits !== undefined && Math.abs(Number(v)) >= 10 ** (digits - (places ?? 0))) {
          return new BadValue(`Ensure that there are no more than ${digits} digits in total.`);
        }
        return v;
      }
      case 'date':
      case 'datetime':
        return Number.isNaN(Date.parse(String(v))) ? new BadValue(field.kind === 'date' ? 'Date has wrong format. Use one of these formats instead: YYYY-MM-DD.' : 'Datetime has wrong format.') : v;
      case 'string':
        return field.def.type === 'string' && field.def.lowercase && typeof v === 'string' ? v.toLowerCase() : v;
      case 'password':
        return new PlainPassword(String(v));
      default:
        return v;
    }
  };
  if (field.kind === 'json' || field.kind === 'custom_fields') return JSON.stringify(value);
  if (field.array && Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) {
      const c = one(item);
      if (c instanceof BadValue) return c;
      out.push(c);
    }
    return out;
  }
  return one(value);
}

async function prepareGeneric(
  db: Db,
  registry: Registry,
  model: ResolvedModel,
  field: GenericField,
  body: Record<string, unknown>,
  mode: WriteMode,
  columns: Record<string, unknown>,
  errors: FieldErrors,
  objectId: number | undefined,
  locked: LockedRows | undefined,
): Promise<void> {
  const typeKey = field.typeColumn;
  const idKey = field.idColumn;
  const hasType = typeKey in body;
  const hasId = idKey in body;
  if (!hasType && !hasId) {
    if (mode !== 'patch') {
      columns[typeKey] = null;
      columns[idKey] = null;
    }
    return;
  }
  let type = body[typeKey];
  let id = body[idKey];
  if (mode === 'patch' && (!hasType || !hasId) && objectId !== undefined) {
    // Half a relation in a partial update: the other half is the stored one, as NetBox merges a partial update with the instance.
    const stored = await storedGeneric(db, model, field, objectId);
    if (!hasType) type = stored.type;
    if (!hasId) id = stored.id;
  }
  if (type === null || type === undefined || id === null || id === undefined) {
    if ((type === null || type === undefined) && (id === null || id === undefined)) {
      columns[typeKey] = null;
      columns[idKey] = null;
      return;
    }
    addError(errors, type === null || type === undefined ? typeKey : idKey, 'This field is required when the other half of the relation is set.');
    return;
  }
  const target = registry.models.get(String(type));
  const allowed = target !== undefined && field.genericTargets?.includes(target);
  if (!target || !allowed) {
    addError(errors, typeKey, `Invalid content type: ${String(type)}`);
    return;
  }
  const missing = await missingUnlessLocked(db, target, [Number(id)], locked);
  if (missing.length) {
    addError(errors, idKey, `Invalid pk "${String(id)}" - object does not exist.`);
    return;
  }
  columns[typeKey] = target.label;
  columns[idKey] = Number(id);
}

async function storedGeneric(db: Db, model: ResolvedModel, field: GenericField, id: number): Promise<{ type: unknown; id: unknown }> {
  const rows = await runRows<{ type: unknown; id: unknown }>(db, sql`SELECT ${ident(field.typeColumn)} AS "type", ${ident(field.idColumn)} AS "id" FROM ${ident(model.table)} WHERE "id" = ${id}::bigint`);
  const row = rows[0];
  return row ?? { type: null, id: null };
}

/** A children field's objects: each of a type the child's generic relation allows, and existing. */
async function prepareChildren(
  db: Db,
  registry: Registry,
  field: ChildrenField,
  items: Array<{ object_type: string; object_id: number }>,
  errors: FieldErrors,
): Promise<Array<{ type: string; id: number }> | null> {
  const generic = field.children.generic;
  const refs: Array<{ type: string; id: number }> = [];
  const byType = new Map<ResolvedModel, number[]>();
  for (const item of items) {
    const target = registry.models.get(item.object_type);
    const allowed = target && generic.genericTargets?.includes(target);
    if (!target || !allowed) {
      addError(errors, field.name, `Invalid object type: ${item.object_type}`);
      return null;
    }
    if (refs.some((r) => r.type === target.label && r.id === item.object_id)) continue;
    refs.push({ type: target.label, id: item.object_id });
    byType.set(target, [...(byType.get(target) ?? []), item.object_id]);
  }
  for (const [target, ids] of byType) {
    for (const id of await missingIds(db, target, ids)) addError(errors, field.name, `${target.verboseName} ${id} does not exist.`);
  }
  return hasErrors(errors) ? null : refs;
}
