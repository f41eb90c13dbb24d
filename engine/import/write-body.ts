import type { ResolvedField, ResolvedModel } from '../definitions/registry-types';
import type { SourceObject } from './source-api';
import { childrenImportedApart } from './import-order';

/**
 * A source object's representation turned back into the body a NetBox client would write: a related
 * object by its id, a choice by its value, tags and many-to-many relations as ids, a generic relation by
 * its type and id keys. Fields the second pass sets are taken out into `later`.
 */

export interface ImportBody {
  /** The first pass's body. */
  body: Record<string, unknown>;
  /** The second pass's body (a PATCH): deferred relations and custom field values naming objects; null when none is set. */
  later: Record<string, unknown> | null;
  /** Keys of the representation no field of the type stands for (a field Patchbay lacks). */
  unknownKeys: string[];
}

/** Keys every NetBox representation has that are not fields of a definition. */
const FRAME_KEYS = new Set(['id', 'url', 'display', 'display_url', 'created', 'last_updated', '_depth']);

const idOf = (v: unknown): unknown => (v && typeof v === 'object' && !Array.isArray(v) && 'id' in v ? (v as { id: unknown }).id : v);
const valueOf = (v: unknown): unknown => (v && typeof v === 'object' && !Array.isArray(v) && 'value' in v ? (v as { value: unknown }).value : v);

/** A custom field value naming objects (an object or multi-object field): written in the second pass. */
function namesObjects(v: unknown): boolean {
  if (Array.isArray(v)) return v.length > 0 && v.every((x) => x && typeof x === 'object' && 'id' in x);
  return !!v && typeof v === 'object' && 'id' in v;
}

const knownKeysOf = new WeakMap<ResolvedModel, Set<string>>();

function knownKeys(model: ResolvedModel): Set<string> {
  let keys = knownKeysOf.get(model);
  if (!keys) {
    keys = new Set(FRAME_KEYS);
    for (const f of model.fieldList) {
      keys.add(f.name);
      if (f.kind === 'generic_fk') keys.add(f.typeColumn).add(f.idColumn);
    }
    for (const alias of model.writeAliases.keys()) keys.add(alias);
    knownKeysOf.set(model, keys);
  }
  return keys;
}

/** Keys of a representation that no field of the type stands for: fields Patchbay lacks, reported, not compared. */
export function unknownKeysOf(model: ResolvedModel, o: Record<string, unknown>): string[] {
  const known = knownKeys(model);
  return Object.keys(o).filter((k) => !known.has(k));
}

/** The value a field is written with, from its representation. */
export function writtenValue(field: ResolvedField, v: unknown): unknown {
  // NetBox shows a blank choice as null; written back, it is the blank it stands for.
  if (v === null && field.kind === 'choice' && !field.nullable && !field.array) return '';
  if (v === null || v === undefined) return v;
  switch (field.kind) {
    case 'fk':
      return idOf(v);
    case 'choice':
      return Array.isArray(v) ? v.map(valueOf) : valueOf(v);
    case 'm2m':
    case 'tags':
      return Array.isArray(v) ? v.map(idOf) : v;
    default:
      return v;
  }
}

/** Whether a deferred generic relation of this object waits for the second pass (its type is written later). */
function genericDeferred(field: ResolvedField, deferredTypes: ReadonlySet<string> | 'all', o: SourceObject): boolean {
  if (field.kind !== 'generic_fk') return false;
  return deferredTypes === 'all' || deferredTypes.has(String(o[field.typeColumn]));
}

/**
 * `objectCustomFields`: the type's custom fields of the object and multi-object kinds (their values name
 * objects of any type, so they always wait for the second pass, whether shown nested or as bare ids).
 */
export function importBody(model: ResolvedModel, o: SourceObject, creating: boolean, deferred: ReadonlyMap<string, ReadonlySet<string> | 'all'>, imported: ReadonlySet<ResolvedModel>, selfLater: boolean, selfFields: readonly ResolvedField[], objectCustomFields: ReadonlySet<string>): ImportBody {
  const body: Record<string, unknown> = {};
  const later: Record<string, unknown> = {};
  const unknownKeys = unknownKeysOf(model, o);
  for (const f of model.fieldList) {
    if (f.readOnly || f.kind === 'password' || f.kind === 'image') continue;
    if (childrenImportedApart(f, imported)) continue;
    const wait = deferred.get(f.name);
    if (f.kind === 'generic_fk') {
      if (!(f.typeColumn in o) && !(f.idColumn in o)) continue;
      const pair = { [f.typeColumn]: o[f.typeColumn] ?? null, [f.idColumn]: o[f.idColumn] ?? null };
      const waits = (wait !== undefined && genericDeferred(f, wait, o)) || (selfLater && selfFields.includes(f) && o[f.typeColumn] === model.label);
      if (waits) {
        if (pair[f.typeColumn] !== null || !creating) Object.assign(later, pair);
      } else Object.assign(body, pair);
      continue;
    }
    if (!(f.name in o)) continue;
    const v = writtenValue(f, o[f.name]);
    if (f.kind === 'custom_fields' && v && typeof v === 'object' && !Array.isArray(v)) {
      const now: Record<string, unknown> = {};
      const then: Record<string, unknown> = {};
      for (const [k, cf] of Object.entries(v as Record<string, unknown>)) {
        if (objectCustomFields.has(k) || namesObjects(cf)) {
          const v = Array.isArray(cf) ? cf.map(idOf) : idOf(cf);
          if ((v !== null && !(Array.isArray(v) && !v.length)) || !creating) then[k] = v;
          now[k] = null;
        } else now[k] = cf;
      }
      body[f.name] = now;
      if (Object.keys(then).length) later[f.name] = then;
      continue;
    }
    if (wait === 'all' || (selfLater && selfFields.includes(f))) {
      // Left out of the first pass (a new object starts without it; a changed one keeps its old value until
      // the second pass sets the source's, empty included). Left out, not written empty: a relation with
      // validators written at all makes the write one object at a time.
      const empty = v === null || (Array.isArray(v) && !v.length);
      if (!empty || !creating) later[f.name] = v;
      continue;
    }
    body[f.name] = v;
  }
  return { body, later: Object.keys(later).length ? later : null, unknownKeys };
}
