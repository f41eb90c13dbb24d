import path from 'node:path';
import { startTestApp, type TestApp } from '../support/test-app';
import { sendObject } from '../support/send-object';
import { loadRegistry } from '../../engine/boot';
import type { ResolvedField, ResolvedModel } from '../../engine/definitions/registry-types';
import { type Body, RELATIONAL, detailUrl, genericKeys, genericTargetsIn, listUrl, pointsBackAtSelf, servedModels, creatableModels, validObjects } from '../support/valid-objects';
import { rawModels, rawUniques, rawWritable, type RawField, type RawModel, type RawUnique } from '../support/raw-definitions';
import { catalogueTest, onlySelected, testEach } from '../support/selected-types';

/**
 * "Tests cover each model's uniqueness rules, defaults and protected deletes." Every case is generated
 * from the definitions: a new schema file, field, unique rule or foreign key brings its own cases. The
 * rules are read from the files themselves (tests/support/raw-definitions.ts), not from the engine's
 * reading of them: a rule the engine drops still has its case, which then fails.
 *
 * - Defaults: an object made of its required fields only shows each writable field's `default` as the
 *   serializer renders that kind, and each `default_fn` field filled in.
 * - Uniqueness: for each unique field and unique_together rule, a second object repeating the first's
 *   values for the rule's fields is a 400 with the rule's message; changing one of them makes it valid.
 * - Deletes: for each foreign key (and each type a generic relation may point at), deleting the object
 *   it points at follows its on_delete (protect: 409 and both kept; cascade: the holder goes too;
 *   set_null: the holder stays with the field null).
 */

const ROOT = path.resolve(__dirname, '..', '..');
// Cases are generated while jest collects them, before the app starts: read the schema directory
// startTestApp() serves. Inside each test the model is taken from t.registry.
const DEFINITIONS = loadRegistry(path.join(ROOT, 'schema'));
const MODELS = onlySelected(creatableModels(DEFINITIONS));
const RAW = rawModels(path.join(ROOT, 'schema'));
/** A model's file as written; every model the engine serves has one. */
const raw = (m: ResolvedModel): RawModel => {
  const r = RAW.get(m.label);
  if (!r) throw new Error(`${m.label}: no schema file defines it`);
  return r;
};

let t: TestApp;
const objects = validObjects(() => t);
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const model = (label: string): ResolvedModel => t.registry.models.get(label)!;

async function post(m: ResolvedModel, body: Body) {
  return sendObject(t, 'post', listUrl(m), m, body);
}
async function patch(m: ResolvedModel, id: number, body: Body) {
  return t.api.patch(detailUrl(m, id)).set(t.auth).send(body);
}
async function read(m: ResolvedModel, id: number) {
  return t.api.get(detailUrl(m, id)).set(t.auth);
}
async function created(m: ResolvedModel, body: Body): Promise<{ id: number; body: Body }> {
  const res = await post(m, body);
  if (res.status !== 201) throw new Error(`creating a ${m.label} from ${JSON.stringify(body)}: ${res.status} ${res.text}`);
  return { id: res.body.id as number, body: res.body as Body };
}
async function patched(m: ResolvedModel, id: number, body: Body): Promise<void> {
  const res = await patch(m, id, body);
  if (res.status !== 200) throw new Error(`PATCH ${m.label} ${id} ${JSON.stringify(body)}: ${res.status} ${res.text}`);
}

// ---------------------------------------------------------------------------------------------------
// Defaults

/** A default as the full form shows it (engine/reads/object-json.ts): the file's default, the engine's choice label. */
function shownDefault(f: ResolvedField, written: RawField): unknown {
  const v = written.default;
  if (written.type !== 'choice' || written.array) return v;
  // NetBox shows a blank choice as null; a choice is {value, label} unless the field is plain.
  if (v === null || v === '') return null;
  if (written.plain) return v;
  return { value: v, label: f.choices?.labels.get(v as string | number) };
}

const hasDefault = (f: RawField) => rawWritable(f) && (f.default !== undefined || f.default_fn !== undefined);
const DEFAULT_MODELS = MODELS.filter((m) => Object.values(raw(m).fields).some(hasDefault));

/** One object per model made of its required fields only: the create response and the object read back. */
const madeBare = new Map<string, Promise<{ created: Body; read: Body }>>();
function bareObject(label: string): Promise<{ created: Body; read: Body }> {
  let made = madeBare.get(label);
  if (!made) {
    made = (async () => {
      const m = model(label);
      const c = await created(m, await objects.validBody(m));
      const r = await read(m, c.id);
      if (r.status !== 200) throw new Error(`reading ${m.label} ${c.id}: ${r.status} ${r.text}`);
      return { created: c.body, read: r.body as Body };
    })();
    madeBare.set(label, made);
  }
  return made;
}

const DEFAULT_CASES = DEFAULT_MODELS.flatMap((m) =>
  // A field an any_of check may have to fill (an IPSec proposal's algorithms, both blank by default) keeps no default in the bare object.
  Object.entries(raw(m).fields).filter(([name, f]) => hasDefault(f) && !(m.def.checks ?? []).some((c) => c.any_of?.includes(name))).map(([name, f]) => ({
    name: f.default_fn !== undefined ? `${m.label}: ${name} is filled by ${f.default_fn}` : `${m.label}: ${name} defaults to ${JSON.stringify(f.default)}`,
    label: m.label,
    field: name,
    fn: f.default_fn !== undefined,
  })),
);

describe('defaults', () => {
  testEach(DEFAULT_CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const written = RAW.get(c.label)!.fields[c.field]!;
    const f = model(c.label).fields.get(c.field);
    if (!f) throw new Error(`${c.label}: the engine has no field ${c.field}`);
    const bare = await bareObject(c.label);
    if (written.default_fn === undefined) {
      expect({ [f.name]: bare.read[f.name] }).toEqual({ [f.name]: shownDefault(f, written) });
    } else {
      // A secret (a token's key) is shown by the response that creates it; reading it back may hide it.
      const shown = written.secret ? bare.created : bare.read;
      expect({ [f.name]: shown[f.name] ?? null }).toEqual({ [f.name]: expect.anything() });
    }
  });
});

// ---------------------------------------------------------------------------------------------------
// Uniqueness

/** A field's value in a create body; an omitted field with a default holds its default. */
function valueIn(body: Body, f: ResolvedField): unknown {
  const v = f.kind === 'generic_fk' ? body[genericKeys(f).idKey] : body[f.name];
  return v ?? f.def.default ?? null;
}

/**
 * The field of a set to change so the values differ: a plain value first (nothing else depends on it),
 * then a choice, then a relation (a new object, which the model's checks may have views on).
 */
function fieldToChange(fields: ResolvedField[]): ResolvedField {
  const rank = (f: ResolvedField) => (pointsBackAtSelf(f) ? 4 : !RELATIONAL.has(f.kind) ? (f.kind === 'choice' || f.kind === 'boolean' ? 1 : 0) : f.kind === 'generic_fk' ? 2 : 3);
  return [...fields].sort((a, b) => rank(a) - rank(b))[0]!;
}

/** Gives a field of a body a (new) non-null value; a relation gets a new object. */
async function setNew(m: ResolvedModel, body: Body, f: ResolvedField): Promise<void> {
  if (f.kind === 'fk') {
    objects.setRelation(m, body, f, await objects.relatedFor(m, f, body));
    await objects.followRelation(m, body, f);
  } else if (f.kind === 'generic_fk') {
    const { typeKey, idKey } = genericKeys(f);
    const type = m.modelByLabel(String(body[typeKey] ?? '')) ?? objects.genericTargets(f)[0];
    if (!type) throw new Error(`${m.label}.${f.name}: no defined model to point at`);
    body[typeKey] = type.label;
    body[idKey] = await objects.createOne(type, 1);
  } else if (RELATIONAL.has(f.kind)) {
    throw new Error(`${m.label}.${f.name}: a ${f.kind} cannot be part of a unique rule`);
  } else {
    const old = valueIn(body, f);
    if (old === null) {
      const v = await objects.validScalar(f, objects.next());
      body[f.name] = f.array ? [v] : v;
    } else {
      body[f.name] = await objects.otherScalar(f, old);
    }
    await objects.followRelation(m, body, f);
  }
}

/** The engine's field a rule names (the rule comes from the file: the engine must have every field it names). */
function fieldOf(m: ResolvedModel, rule: RawUnique, name: string): ResolvedField {
  const f = m.fields.get(name);
  if (!f) throw new Error(`${m.label}: rule ${rule.fields.join('+')} names ${name}, which the engine does not have`);
  return f;
}

/** Whether two bodies (one a copy of the other for `rule`'s fields) would collide on `rule`. */
function collides(m: ResolvedModel, rule: RawUnique, body: Body): boolean {
  // A partial rule (when_not_null) binds only rows with those fields set.
  if (rule.whenNotNull.some((n) => valueIn(body, fieldOf(m, rule, n)) === null)) return false;
  return !rule.nullsDistinct || rule.fields.every((n) => valueIn(body, fieldOf(m, rule, n)) !== null);
}

/** The error a broken rule is reported as: under the field for one field, as non_field_errors for several. */
function uniqueError(m: ResolvedModel, rule: RawUnique): Body {
  if (rule.fields.length === 1) {
    const f = m.fields.get(rule.fields[0]!)!;
    return { [f.name]: [rule.message ?? `${m.verboseName} with this ${f.label.toLowerCase()} already exists.`] };
  }
  return { non_field_errors: [rule.message ?? `The fields ${rule.fields.join(', ')} must make a unique set.`] };
}

const UNIQUE_CASES = MODELS.flatMap((m) =>
  rawUniques(raw(m)).map((rule, index) => {
    const fields = rule.fields.map((n) => fieldOf(m, rule, n));
    const late = fields.filter(pointsBackAtSelf);
    const change = late[0] ?? fieldToChange(fields);
    const what = `${rule.fields.join('+')} unique${rule.fields.length > 1 ? ' together' : ''}`;
    return { name: `${m.label}: ${what} → 400, another ${change.name} → ${late.length ? 200 : 201}`, label: m.label, index, change: change.name, together: rule.fields.length > 1 };
  }),
);

describe('uniqueness', () => {
  testEach(UNIQUE_CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const m = model(c.label);
    const rules = rawUniques(RAW.get(c.label)!);
    const rule = rules[c.index]!;
    const fields = rule.fields.map((n) => fieldOf(m, rule, n));
    // Fields that must point back at the object itself are set by PATCH once it exists.
    const late = fields.filter(pointsBackAtSelf);

    const first = await objects.validBody(m);
    for (const f of fields) if (!pointsBackAtSelf(f) && valueIn(first, f) === null) await setNew(m, first, f);
    const a = await created(m, first);
    const lateValues: Body = {};
    for (const f of late) lateValues[f.name] = await objects.attachedToSelf(m, a.id, f);
    if (late.length) await patched(m, a.id, lateValues);

    // The second object repeats the first; what else it repeats that another rule forbids is made different.
    const second: Body = structuredClone(first);
    for (const other of rules) {
      if (other === rule || !collides(m, other, second)) continue;
      const free = other.fields.filter((n) => !rule.fields.includes(n)).map((n) => fieldOf(m, other, n));
      // The loader refuses a rule another rule holds (engine/definitions/model-sense.ts); one held only in
      // part (its nulls or letter case compared otherwise) still cannot be told apart here.
      if (!free.length) throw new Error(`${m.label}: rule ${other.fields.join('+')} lies within ${rule.fields.join('+')}, so its violation cannot be told apart`);
      await setNew(m, second, fieldToChange(free));
    }
    let b: { id: number } | null = null;
    let refused;
    if (late.length) {
      b = await created(m, second);
      refused = await patch(m, b.id, lateValues);
    } else {
      refused = await post(m, second);
    }
    expect([refused.status, refused.body]).toEqual([400, uniqueError(m, rule)]);

    const change = m.fields.get(c.change)!;
    if (b) {
      const res = await patch(m, b.id, { [change.name]: await objects.attachedToSelf(m, b.id, change) });
      expect([res.status, res.text.slice(0, 300)]).toEqual([200, expect.any(String)]);
    } else {
      await setNew(m, second, change);
      const res = await post(m, second);
      expect([res.status, res.text.slice(0, 300)]).toEqual([201, expect.any(String)]);
    }
  });
});

// ---------------------------------------------------------------------------------------------------
// Deletes

type OnDelete = 'protect' | 'cascade' | 'set_null';

interface DeleteCase {
  name: string;
  label: string;
  field: string;
  target: string;
  onDelete: OnDelete;
  generic: boolean;
}

function deleteCase(m: ResolvedModel, f: ResolvedField, written: RawField, target: ResolvedModel): DeleteCase {
  const onDelete = written.on_delete as OnDelete;
  const outcome = {
    protect: `deleting the ${target.label} is 409, both kept`,
    cascade: `deleting the ${target.label} (204) deletes the ${m.name}`,
    set_null: `deleting the ${target.label} (204) leaves the ${m.name} with ${f.name} null`,
  }[onDelete];
  return { name: `${m.label}: ${f.name} ${onDelete} → ${outcome}`, label: m.label, field: f.name, target: target.label, onDelete, generic: f.kind === 'generic_fk' };
}

// Relations and their on_delete as the file writes them; the engine's field gives the way to set them.
const DELETE_CASES: DeleteCase[] = MODELS.flatMap((m) =>
  Object.entries(raw(m).fields).flatMap(([name, written]) => {
    if (written.type !== 'fk' && written.type !== 'generic_fk') return [];
    const f = m.fields.get(name);
    if (!f) throw new Error(`${m.label}: the engine has no field ${name}`);
    if (written.type === 'fk') {
      const target = DEFINITIONS.models.get(String(written.to));
      if (!target) throw new Error(`${m.label}.${name}: the engine has no model ${String(written.to)}`);
      // A target served by no endpoint (engine-internal state) cannot be deleted over the API.
      return RAW.get(target.label)?.exposed !== false ? [deleteCase(m, f, written, target)] : [];
    }
    // Generic relations' on_delete is applied by the engine, not by the database: each allowed type is
    // a case of its own.
    if (!written.on_delete) return [];
    const targets = genericTargetsIn(DEFINITIONS, f).filter((x) => RAW.get(x.label)?.exposed !== false);
    if (!targets.length) throw new Error(`${m.label}.${name}: on_delete ${written.on_delete}, but the engine lets it point at nothing`);
    return targets.map((x) => deleteCase(m, f, written, x));
  }),
);

describe('deletes', () => {
  testEach(DELETE_CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const m = model(c.label);
    const f = m.fields.get(c.field)!;
    const target = model(c.target);
    // The holder is the simplest valid object with the relation set; the target a new object of its own,
    // so nothing but the holder depends on it. Nothing is skipped for the model's checks: the target is
    // made consistent with the holder's `same` checks, and what an at_most_one check excludes beside the
    // relation is left out.
    const body = await objects.validBody(m);
    let holder: number;
    let pointed: number;
    if (c.generic) {
      const { typeKey, idKey } = genericKeys(f);
      pointed = await objects.createOne(target, 1);
      Object.assign(body, { [typeKey]: target.label, [idKey]: pointed });
      holder = (await created(m, body)).id;
    } else if (pointsBackAtSelf(f)) {
      holder = (await created(m, body)).id;
      pointed = await objects.attachedToSelf(m, holder, f);
      await patched(m, holder, { [f.name]: pointed });
    } else {
      pointed = await objects.relatedFor(m, f, body);
      objects.setRelation(m, body, f, pointed);
      await objects.followRelation(m, body, f);
      holder = (await created(m, body)).id;
    }

    const del = await t.api.delete(detailUrl(target, pointed)).set(t.auth);
    const targetAfter = await read(target, pointed);
    const holderAfter = await read(m, holder);
    const held = (holderAfter.body as Body)[f.name] as { id?: number } | null | undefined;
    switch (c.onDelete) {
      case 'protect':
        expect([del.status, String(del.body?.detail).startsWith('Unable to delete object.'), targetAfter.status, holderAfter.status, held?.id]).toEqual([409, true, 200, 200, pointed]);
        break;
      case 'cascade':
        expect([del.status, targetAfter.status, holderAfter.status]).toEqual([204, 404, 404]);
        break;
      case 'set_null':
        expect([del.status, targetAfter.status, holderAfter.status, held]).toEqual([204, 404, 200, null]);
        break;
      default:
        throw new Error(`${m.label}.${f.name}: no expectation known for on_delete ${String(c.onDelete)}`);
    }
  });
});

// ---------------------------------------------------------------------------------------------------
// Not vacuous

// Counted from the definitions when this file was written. Lower a floor only when a rule is removed on
// purpose: a drop otherwise means the generator stopped seeing part of the catalogue.
const FLOORS = { models: 47, defaults: 50, defaultFns: 2, uniqueFields: 43, uniqueTogether: 32, protect: 44, cascade: 11, setNull: 29, genericDeletes: 12 };

describe('the generated cases', () => {
  catalogueTest('every model file is a model of the engine', () => {
    const missing = [...RAW.keys()].filter((label) => !DEFINITIONS.models.has(label));
    expect(missing).toEqual([]);
  });

  catalogueTest('cover at least the rules defined today', () => {
    const count = (on: OnDelete) => DELETE_CASES.filter((c) => !c.generic && c.onDelete === on).length;
    const counts = {
      models: MODELS.length,
      defaults: DEFAULT_CASES.filter((c) => !c.fn).length,
      defaultFns: DEFAULT_CASES.filter((c) => c.fn).length,
      uniqueFields: UNIQUE_CASES.filter((c) => !c.together).length,
      uniqueTogether: UNIQUE_CASES.filter((c) => c.together).length,
      protect: count('protect'),
      cascade: count('cascade'),
      setNull: count('set_null'),
      genericDeletes: DELETE_CASES.filter((c) => c.generic).length,
    };
    const short = (Object.keys(FLOORS) as Array<keyof typeof FLOORS>).filter((k) => counts[k] < FLOORS[k]).map((k) => `${k}: ${counts[k]} < ${FLOORS[k]}`);
    expect(short).toEqual([]);
  });
});
