import type { Check, Field as FieldDef, ModelDefinition } from '../../engine/definitions/generated/model-definition';

/**
 * What a definition's `checks` ask of an object the test factories make, read from the words alone
 * (docs/model-authors.md#checks), so that a new type's rules are kept without harness code of its own:
 *
 * - `only_when` through a relation (a wireless link's `{"interface_a.type": [...wireless types]}`): the
 *   object made for that relation gets the first value listed, through as many relations as the path
 *   crosses (`interface_a.device.status`: the interface's device is made with it);
 * - `only_when` on a field of the object itself (a custom field's choice set only on a selection type);
 * - `excludes`: a boolean that may not be true beside the paths listed is made false.
 *
 * The three factories (support/valid-objects.ts, openapi/object-factory.ts, filters/support/object-factory.ts)
 * read the engine's resolved models or the definitions as written; both have this shape.
 */
export interface CheckedField {
  name: string;
  kind: string;
  def: FieldDef;
  target?: CheckedModel;
  choices?: { entries: ReadonlyArray<{ value: string | number }> } | { values: ReadonlyArray<string | number> };
}
export interface CheckedModel {
  label: string;
  def: ModelDefinition;
  fields: ReadonlyMap<string, CheckedField> | Map<string, CheckedField>;
}

/** A preset for an object about to be made: a key is a field, or a path (`device.status`) into an object it points at. */
export type Preset = Record<string, unknown>;

const checksOf = (m: CheckedModel): Check[] => m.def.checks ?? [];

/** The field a path ends on, following relations from `model`; undefined when a hop is not a relation. */
export function fieldAt(model: CheckedModel, path: string): CheckedField | undefined {
  const [head, ...rest] = path.split('.');
  const f = model.fields.get(head!);
  if (!rest.length || !f) return f;
  return f.target ? fieldAt(f.target, rest.join('.')) : undefined;
}

/** A check's value (compared as text by the engine) as the JSON the field is written with. */
export function valueFromCheck(f: CheckedField | undefined, text: string | number | boolean): unknown {
  if (!f) return text;
  if (f.kind === 'boolean') return String(text) === 'true';
  if (f.choices) {
    const values = 'entries' in f.choices ? f.choices.entries.map((e) => e.value) : f.choices.values;
    return values.find((v) => String(v) === String(text)) ?? text;
  }
  if (['integer', 'positive_integer', 'decimal', 'float'].includes(f.kind)) return Number(text);
  return text;
}

/** The path and the values an only_when check names. */
function conditionOf(c: Check): [string, Array<string | number | boolean>] | null {
  if (!c.only_when || !c.field) return null;
  const [entry] = Object.entries(c.only_when);
  return entry ? [entry[0], entry[1] as Array<string | number | boolean>] : null;
}

/**
 * Values the object made for relation `field` of `model` must hold for `model`'s only_when checks,
 * when the checked field is set (`isSet`) or is that relation itself. Keys past the first hop stay
 * dotted: the factory making the object makes what they point at with them (see splitPreset).
 */
export function presetForRelation(model: CheckedModel, field: string, isSet: (name: string) => boolean): Preset {
  const preset: Preset = {};
  for (const c of checksOf(model)) {
    const cond = conditionOf(c);
    if (!cond || !(c.field === field || isSet(c.field!))) continue;
    const [path, values] = cond;
    const [head, ...rest] = path.split('.');
    if (head !== field || !rest.length || !values.length) continue;
    preset[rest.join('.')] = valueFromCheck(fieldAt(model, path), values[0]!);
  }
  return preset;
}

/** A preset split into the object's own values and, per relation, the preset of the object it points at. */
export function splitPreset(preset: Preset): { own: Preset; through: Map<string, Preset> } {
  const own: Preset = {};
  const through = new Map<string, Preset>();
  for (const [key, value] of Object.entries(preset)) {
    const dot = key.indexOf('.');
    if (dot < 0) {
      own[key] = value;
      continue;
    }
    const head = key.slice(0, dot);
    through.set(head, { ...(through.get(head) ?? {}), [key.slice(dot + 1)]: value });
  }
  return { own, through };
}

/**
 * Makes a body keep the checks judged on the object's own fields: an only_when on one of its fields
 * (the field set while the path holds none of the values: the path gets the first), and an excludes
 * (the boolean made false when a path is set). `fixed` names values the caller chose: never changed.
 */
export function keepOwnChecks(model: CheckedModel, body: Record<string, unknown>, fixed: ReadonlySet<string> = new Set()): void {
  // A blank text is unset to the checks, as to NetBox's clean().
  const isSet = (k: string) => body[k] !== undefined && body[k] !== null && body[k] !== '';
  // A value any field of this kind takes: its first choice, else a word.
  const someValue = (name: string): unknown => {
    const f = model.fields.get(name);
    const values = f?.choices ? ('entries' in f.choices ? f.choices.entries.map((e) => e.value) : f.choices.values) : [];
    return values.length ? values[0] : f && ['integer', 'positive_integer'].includes(f.kind) ? 1 : 'x';
  };
  for (const c of checksOf(model)) {
    // required_when on the object's own fields: the field gets a value while the path holds one of the values,
    // unless the caller fixed the field, in which case the path is moved off them.
    if (c.required_when && c.field && !isSet(c.field)) {
      const [path, values] = Object.entries(c.required_when)[0]!;
      const held = !path.includes('.') && values.some((v) => String(v) === String(body[path] ?? model.fields.get(path)?.def.default));
      if (held && !fixed.has(c.field)) body[c.field] = someValue(c.field);
      else if (held && !fixed.has(path)) delete body[path];
    }
    // any_of: the first path of the object's own that the caller did not fix gets a value when none is set.
    if (c.any_of && !c.any_of.some((p) => isSet(p))) {
      const free = c.any_of.find((p) => !p.includes('.') && !fixed.has(p));
      if (free) body[free] = someValue(free);
    }
    const cond = conditionOf(c);
    if (cond && isSet(c.field!)) {
      const [path, values] = cond;
      if (path.includes('.') || fixed.has(path) || !values.length) continue;
      if (isSet(path) && values.some((v) => String(v) === String(body[path]))) continue;
      body[path] = valueFromCheck(model.fields.get(path), values[0]!);
    }
    if (c.excludes && c.field && !fixed.has(c.field) && body[c.field] === true && c.excludes.some((p) => !p.includes('.') && isSet(p))) body[c.field] = false;
  }
  // A field the write would clear (cleared_without: an untagged VLAN without a mode) keeps its value: the first field it needs gets one.
  for (const f of model.fields.values()) {
    const needs = f.def.type === 'fk' || f.def.type === 'choice' ? f.def.cleared_without : undefined;
    if (!needs || !isSet(f.name) || needs.some(isSet) || fixed.has(needs[0]!)) continue;
    const other = model.fields.get(needs[0]!);
    const choices = other?.choices ? ('entries' in other.choices ? other.choices.entries.map((e) => e.value) : other.choices.values) : null;
    body[needs[0]!] = choices ? choices[0] : valueFromCheck(other, 1);
  }
}
