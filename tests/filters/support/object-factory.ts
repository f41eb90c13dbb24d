import { jsonSample } from '../../support/json-sample';
import { quoteIdent } from '../../../engine/migrations/identifiers';
import type { TestApp } from '../../support/test-app';
import { sendObject } from '../../support/send-object';
import { naturalKey, typeLabelsFor, urlOf, type Definitions, type Field, type Model } from './definitions';
import { keepOwnChecks, presetForRelation, splitPreset } from '../../support/check-presets';

/** An object as the API returns it (full representation). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Rep = Record<string, any>;

/**
 * Which object of a generated set a value is for. A, B and C differ in every field; C is the
 * "unset" one (null, blank, empty list) wherever the field allows it. `base` fills required fields of
 * objects made only to be pointed at.
 */
export type Variant = 'A' | 'B' | 'C' | 'base';

const SLUG_PATTERN = '^[-a-zA-Z0-9_]+$';
// B starts with A's end and ends with A's start, so "starts with" and "ends with" differ from "contains".
const HEADS: Record<Variant, [string, string]> = { A: ['Ab', 'cD'], B: ['cD', 'Ab'], C: ['9d', '8e'], base: ['7c', '7d'] };
/** Kinds that hold no value a create can set (or that no filter reads); an image is a file sendObject attaches. */
const NOT_WRITTEN = new Set(['computed', 'count', 'json', 'custom_fields', 'image']);

/** The two names of a generic relation, as written, read and filtered (`scope_type`/`scope_id`, or as the definition names them). */
export function genericNames(field: Field): { type: string; id: string } {
  return { type: field.typeColumn ?? `${field.name}_type`, id: field.idColumn ?? `${field.name}_id` };
}

/** Fields a create sends: writable, stored in a column of their own or linked (tags, m2m, generic). */
export function writtenFields(model: Model): Field[] {
  return model.fieldList.filter((f) => !f.readOnly && !NOT_WRITTEN.has(f.kind) && (f.column !== null || ['tags', 'm2m', 'generic_fk'].includes(f.kind)));
}

function maxLengthOf(field: Field): number {
  if (field.kind === 'slug') return field.def.max_length ?? 100;
  return field.def.max_length ?? 200;
}

/**
 * A string for a field that fits its pattern and length: tries the value as is, lower-cased, padded
 * to the full length with hex digits, and with an '@' (e-mail shapes), in that order.
 */
export function fitString(field: Field, variant: Variant, u: number): string {
  const [head, tail] = HEADS[variant];
  const max = maxLengthOf(field);
  const pattern = field.kind === 'slug' ? SLUG_PATTERN : field.def.pattern;
  const core = u.toString(16);
  // Fixed-length shapes (a colour, a token key): the unique part fills the middle with leading zeros.
  const room = Math.max(max - 4, 1);
  const padded = `${head}${core.slice(-room).padStart(room, '0')}${tail}`;
  // Hex pairs joined by colons (a WWN, a MAC-like identifier), as many as fit.
  const pairs = (n: number) => `${head}${core.slice(-(2 * n - 4)).padStart(2 * n - 4, '0')}${tail}`.toLowerCase().match(/../g)!.join(':');
  const candidates = [
    `${head}${core}${tail}`,
    `${head}${core}${tail}`.toLowerCase(),
    padded.toLowerCase(),
    `${head}${core}@${tail}`,
    `${head}${core}@${tail}`.toLowerCase(),
    `${head}${core}@x.${tail}`,
    `${head}${core}://x${tail}`,
    pairs(Math.max(3, Math.floor((max + 1) / 3))),
    pairs(8),
    pairs(6),
  ];
  const re = pattern ? new RegExp(pattern) : null;
  const found = candidates.find((c) => c.length <= max && (!re || re.test(c)));
  if (!found) throw new Error(`no generated string fits ${field.model.label}.${field.name} (pattern ${pattern}, max ${max})`);
  return found;
}

const hex2 = (n: number) => (n & 255).toString(16).padStart(2, '0');

/**
 * A value of a scalar field for a variant. u makes values unique (unique constraints, and every
 * generated set its own addresses). Returns undefined when the field keeps its default.
 */
/** Unique numbers (an ASN) are never given twice in a run, whatever the variant and counter asked for. */
let uniqueNumbers = 0;

export function scalarValue(field: Field, variant: Variant, u: number): unknown {
  const f = field.def;
  const unset = (): unknown => {
    if (field.array) return field.required ? undefined : [];
    if (field.nullable) return null;
    // A blank string whose pattern refuses '' (dns_name) is refused on write today: use a third value.
    const blankOk = !f.pattern || new RegExp(f.pattern).test('');
    if (f.blank && blankOk && ['string', 'text', 'slug', 'choice'].includes(field.kind)) return '';
    return undefined;
  };
  if (variant === 'C') {
    const u0 = unset();
    if (u0 !== undefined) return u0;
  }
  const one = (): unknown => {
    const hi = (u >> 8) & 255;
    const lo = u & 255;
    if (f.names_type) {
      // A type label: a different one per variant, so the filters can tell them apart.
      const labels = typeLabelsFor(field);
      return labels[({ A: 0, B: 1, C: 2, base: 3 }[variant] + u) % labels.length];
    }
    switch (field.kind) {
      case 'string':
      case 'text':
      case 'slug':
        return fitString(field, variant, u);
      case 'password':
        return `Correct-horse-${u}`;
      case 'integer':
      case 'positive_integer':
      case 'decimal':
      case 'float': {
        const base = Math.max(f.min ?? 0, 0);
        const step = { A: 1, B: 3, C: 5, base: 2 }[variant];
        const frac = field.kind === 'float' || (field.kind === 'decimal' && (f.decimal_places ?? 2) >= 2) ? 0.25 : 0;
        // A unique number (an ASN) differs per object as well as per variant.
        const v = base + step + (f.unique ? ++uniqueNumbers * 8 : 0) + (variant === 'A' || variant === 'B' ? frac : 0);
        if (f.max !== undefined && v > f.max) throw new Error(`no generated number fits ${field.model.label}.${field.name}`);
        return v;
      }
      case 'boolean':
        return variant !== 'B';
      case 'date':
        return { A: '2021-02-03', B: '2022-04-05', C: '2023-06-07', base: '2020-05-05' }[variant];
      case 'datetime':
        return { A: '2021-02-03T04:05:06.000000Z', B: '2022-04-05T06:07:08.000000Z', C: '2023-06-07T08:09:10.000000Z', base: '2020-05-05T05:05:05.000000Z' }[variant];
      case 'choice': {
        const e = field.choices!.values;
        return { A: e[0], B: e[1] ?? e[0], C: e[2] ?? e[0], base: e[0] }[variant];
      }
      case 'cidr':
        return { A: `10.${hi}.${lo}.0/24`, B: `2001:db8:${u.toString(16)}::/48`, C: `10.${hi}.${lo}.128/25`, base: `172.${16 + (hi & 15)}.${lo}.0/24` }[variant];
      case 'inet':
        return { A: `10.${hi}.${lo}.1/24`, B: `2001:db8:${u.toString(16)}::1/64`, C: `10.${hi}.${lo}.2/25`, base: `172.${16 + (hi & 15)}.${lo}.1/24` }[variant];
      case 'mac':
        return { A: `02:00:0a:${hex2(hi)}:${hex2(lo)}:01`, B: `02:00:0b:${hex2(hi)}:${hex2(lo)}:02`, C: `02:00:0c:${hex2(hi)}:${hex2(lo)}:03`, base: `02:00:0d:${hex2(hi)}:${hex2(lo)}:04` }[variant];
      case 'json':
        // A small object per variant (local_context_data): a declared is_set tells set from null.
        return { A: { a: u }, B: { b: u }, C: { c: u }, base: { base: u } }[variant];
      default:
        throw new Error(`no generated value for ${field.kind} field ${field.model.label}.${field.name}`);
    }
  };
  const v = one();
  return field.array ? [v] : v;
}

/** Creates objects through the API, following required relations to create what they point at first. */
export class ObjectFactory {
  private counter = 0;

  constructor(readonly t: TestApp, readonly defs: Definitions) {}

  uniq(): number {
    return ++this.counter;
  }

  /** Labels of the models whose rows changed since the caller last cleared this (see list-client's Universe cache). */
  readonly dirty = new Set<string>();

  async post(model: Model, body: Record<string, unknown>): Promise<Rep> {
    const res = await sendObject(this.t, 'post', urlOf(model), model, body);
    if (res.status !== 201) throw new Error(`creating ${model.label} ${JSON.stringify(body)}: ${res.status} ${JSON.stringify(res.body)}`);
    this.dirty.add(model.label);
    return res.body as Rep;
  }

  /** The models a generic relation may point at that exist, in definition order. */
  genericTargets(field: Field): Model[] {
    return field.genericTargets ?? [];
  }

  /**
   * A create body: valid values for what a create needs (as the type's checks want them, check-presets.ts),
   * then the overrides. A dotted override (`device.status`) is a value for the related object made for its first part.
   */
  async body(model: Model, given: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const { own: overrides, through } = splitPreset(given);
    const body: Record<string, unknown> = {};
    for (const [name, nested] of through) {
      const target = model.fields.get(name)?.target;
      if (!target) throw new Error(`${model.label}: a preset path through ${name}, which is not a relation`);
      body[name] = (await this.createTarget(target, undefined, nested)).id;
    }
    const isSet = (name: string) => [overrides[name], body[name]].some((v) => v !== undefined && v !== null);
    const u = this.uniq();
    for (const field of model.fieldList) {
      if (field.readOnly || ['computed', 'count', 'custom_fields', 'image'].includes(field.kind)) continue;
      if (field.name in overrides || field.name in body || genericNames(field).type in overrides) continue;
      const needed = field.required && field.def.default === undefined && !field.def.default_fn;
      if (!needed) continue;
      // A required relation points at the shared T1 of its target (a refusal gets a fresh one, see createForFilters),
      // unless the type's checks want something of it (a wireless link's interface of a wireless type): then its own.
      const wanted = field.kind === 'fk' ? presetForRelation(model, field.name, isSet) : {};
      if (field.kind === 'fk' && Object.keys(wanted).length) body[field.name] = (await this.createTarget(field.target!, undefined, wanted)).id;
      else if (field.kind === 'fk') body[field.name] = (await this.targets(field.target!))[0].id;
      else if (field.kind === 'generic_fk') {
        const target = this.genericTargets(field)[0];
        if (!target) throw new Error(`${model.label}.${field.name}: required generic relation without a defined target`);
        body[genericNames(field).type] = target.label;
        body[genericNames(field).id] = (await this.targets(target))[0].id;
      } else if (field.kind === 'tags' || field.kind === 'm2m') body[field.name] = [];
      else if (field.kind === 'json') body[field.name] = field.array ? [] : jsonSample(field, this.uniq());
      // Its own number per field: a name and a slug never hold the same text (see mainSet).
      else body[field.name] = scalarValue(field, 'base', this.uniq());
    }
    await this.fillAnyOf(model, body, overrides, u);
    const out = { ...body, ...overrides };
    keepOwnChecks(model, out, new Set(Object.keys(overrides)));
    return out;
  }

  /**
   * A check wanting one of several optional fields set (a circuit termination's site or provider
   * network): when none is, the first the overrides leave alone gets a value (a relation its T1).
   */
  private async fillAnyOf(model: Model, body: Record<string, unknown>, overrides: Record<string, unknown>, u: number): Promise<void> {
    const isSet = (name: string) => {
      const v = name in overrides ? overrides[name] : body[name];
      return v !== null && v !== undefined;
    };
    for (const check of model.def.checks ?? []) {
      const fields = (check.any_of ?? []).map((name) => model.fields.get(name)).filter((f): f is Field => !!f && !f.readOnly);
      if (!fields.length || fields.some((f) => isSet(f.name))) continue;
      const free = fields.find((f) => !(f.name in overrides) && f.column);
      if (!free) continue;
      body[free.name] = free.kind === 'fk' ? (await this.targets(free.target!))[0].id : scalarValue(free, 'base', u);
    }
  }

  async create(model: Model, overrides: Record<string, unknown> = {}): Promise<Rep> {
    return this.post(model, await this.body(model, overrides));
  }

  /**
   * Creates an object with values chosen for filtering, even where the API's cross-object rules refuse
   * them (a device's primary IP must be on one of its interfaces; an interface holds one cable). For
   * each refused relation it first tries a fresh target of its own; what is still refused, and may be
   * left out, is left out of the create and then written to the row directly. Only filtering is under
   * test here: the filters read columns, whatever rule put the values there.
   */
  async createForFilters(model: Model, overrides: Record<string, unknown>): Promise<Rep> {
    const { body, held } = await this.holdBack(model, await this.body(model, overrides));
    const created = await this.createRetrying(model, overrides, body);
    await this.writeDirectly(model, created.id as number, held);
    return created;
  }

  /**
   * Values the definition's checks refuse, held back to be written directly after the create: at most
   * one of a circuit termination's site and provider network (the first set stays in the create); none
   * of them (the first gets a value the check accepts, and its null is written after).
   */
  private async holdBack(model: Model, all: Record<string, unknown>): Promise<{ body: Record<string, unknown>; held: Record<string, unknown> }> {
    const body = { ...all };
    const held: Record<string, unknown> = {};
    // A blank text is unset to the checks, as to NetBox's clean().
    const isSet = (name: string) => body[name] !== null && body[name] !== undefined && body[name] !== '';
    for (const check of model.def.checks ?? []) {
      // A field required while a field of the object holds certain values (an IKEv1 policy's mode) gets one.
      const [whenPath, whenValues] = Object.entries(check.required_when ?? {})[0] ?? ['', []];
      const required = check.field ? model.fields.get(check.field) : undefined;
      if (required?.column && whenPath && !whenPath.includes('.') && !isSet(required.name) && whenValues.some((v) => String(v) === String(body[whenPath] ?? model.fields.get(whenPath)?.def.default))) {
        body[required.name] = scalarValue(required, 'base', this.uniq());
      }
      // Two values that must come in order (an IP range's start and end, an ASN range's): the second is the one after the first, so spans stay small and apart.
      if (check.ordered && isSet(check.ordered[0]) && isSet(check.ordered[1])) {
        const [lo, hi] = check.ordered;
        const first = body[lo];
        if (typeof first === 'number') body[hi] = first + 1;
        else if (typeof first === 'string') body[hi] = first.replace(/([0-9a-f]+)(\/\d+)$/, (_m, last: string, mask: string) => (first.includes(':') ? `${(parseInt(last, 16) + 1).toString(16)}${mask}` : `${Math.min(Number(last) + 1, 255)}${mask}`));
      }
      const set = (check.at_most_one ?? []).filter((name) => model.fields.get(name)?.column && isSet(name));
      for (const name of set.slice(1)) {
        held[name] = body[name];
        delete body[name];
      }
      const anyOf = (check.any_of ?? []).map((name) => model.fields.get(name)).filter((f): f is Field => !!f?.column && !f.readOnly);
      if (anyOf.length && !anyOf.some((f) => isSet(f.name))) {
        const f = anyOf[0]!;
        held[f.name] = body[f.name] ?? null;
        body[f.name] = f.kind === 'fk' ? (await this.targets(f.target!))[0].id : scalarValue(f, 'base', this.uniq());
      }
    }
    return { body, held };
  }

  /** createForFilters without its held-back values: the create, a retry with fresh targets, then without what is still refused. */
  private async createRetrying(model: Model, overrides: Record<string, unknown>, body: Record<string, unknown>): Promise<Rep> {
    const first = await sendObject(this.t, 'post', urlOf(model), model, body);
    if (first.status === 201) {
      this.dirty.add(model.label);
      return first.body as Rep;
    }
    if (first.status !== 400) throw new Error(`creating ${model.label} ${JSON.stringify(body)}: ${first.status} ${JSON.stringify(first.body)}`);
    const errors = first.body as Record<string, unknown>;
    const refused = this.refusedFields(model, errors);
    if (!refused.length || 'non_field_errors' in errors) {
      // Not a field's fault (a unique set of fields): give the relations this body filled in itself fresh targets.
      const filledHere = (f: Field) => !(f.name in overrides) && !(genericNames(f).type in overrides) && (f.name in body || genericNames(f).type in body);
      refused.push(...model.fieldList.filter((f) => (f.kind === 'fk' || f.kind === 'generic_fk') && filledHere(f)));
      // A shared target that a unique set holds (a front port's rear_port with its position) gets a fresh one too.
      const inUniqueSet = (f: Field) => (model.def.unique_together ?? []).some((u) => (Array.isArray(u) ? u : u.fields).includes(f.name));
      refused.push(...model.fieldList.filter((f) => f.kind === 'fk' && f.required && !refused.includes(f) && !(f.name in overrides) && inUniqueSet(f)));
    }
    // A value a between check refuses (a front port's position beyond its rear port's positions): the relation
    // the bound is read through gets a fresh target whose bound admits it (see sameAs).
    for (const check of model.def.checks ?? []) {
      if (!check.between || !refused.some((f) => f.name === check.field)) continue;
      for (const p of check.between) {
        const via = model.fields.get(p.split('.')[0]!);
        if (p.split('.').length === 2 && via?.kind === 'fk' && !refused.includes(via)) refused.push(via);
      }
    }
    // A value an only_when check refuses for what a relation holds (a wireless link's interface whose type is
    // not wireless): that relation gets a fresh target holding an accepted value (see sameAs).
    for (const check of model.def.checks ?? []) {
      if (!check.only_when || !refused.some((f) => f.name === check.field)) continue;
      const parts = Object.keys(check.only_when)[0]!.split('.');
      const via = model.fields.get(parts[0]!);
      if (parts.length >= 2 && via?.kind === 'fk' && !refused.includes(via)) refused.push(via);
    }
    const retry = { ...body };
    for (const field of refused) {
      if (field.kind === 'fk') retry[field.name] = (await this.createTarget(field.target!, undefined, this.sameAs(model, field, retry))).id;
      else if (field.kind === 'generic_fk' && retry[genericNames(field).type]) {
        retry[genericNames(field).id] = (await this.createTarget(this.defs.models.get(String(retry[genericNames(field).type]))!)).id;
      }
    }
    const second = await sendObject(this.t, 'post', urlOf(model), model, retry);
    if (second.status === 201) {
      this.dirty.add(model.label);
      return second.body as Rep;
    }
    const still = second.status === 400 ? this.refusedFields(model, second.body as Record<string, unknown>) : [];
    const later: Record<string, unknown> = {};
    for (const field of still) {
      if (field.required) continue;
      for (const key of field.kind === 'generic_fk' ? [genericNames(field).type, genericNames(field).id] : [field.name]) {
        if (key in body) later[key] = body[key];
        delete retry[key];
      }
    }
    let third: Rep;
    const attempt = await sendObject(this.t, 'post', urlOf(model), model, retry);
    if (attempt.status === 201) {
      this.dirty.add(model.label);
      third = attempt.body as Rep;
    } else {
      // Still refused as a whole (a module of a shared type whose components' names its shared device has
      // already): every relation, the given ones too, gets a fresh target as a last resort.
      if (attempt.status === 400 && 'non_field_errors' in (attempt.body as object)) {
        for (const field of model.fieldList) {
          if (field.kind === 'fk' && retry[field.name] !== null && retry[field.name] !== undefined) {
            retry[field.name] = (await this.createTarget(field.target!, undefined, this.sameAs(model, field, retry))).id;
          }
        }
      }
      third = await this.post(model, retry);
    }
    await this.writeDirectly(model, third.id as number, later);
    return third;
  }

  /**
   * Values a fresh target of `field` needs to keep the holder's `same` checks: a check comparing
   * `<field>.<x>` with a plain field of the body (a front port's rear_port.device and device) gives x
   * that field's value.
   */
  private sameAs(model: Model, field: Field, body: Record<string, unknown>): Record<string, unknown> {
    // And what the holder's only_when checks want of it (check-presets.ts).
    const preset: Record<string, unknown> = presetForRelation(model, field.name, (name) => body[name] !== undefined && body[name] !== null);
    for (const check of model.def.checks ?? []) {
      if (!check.same) continue;
      const [a, b] = check.same as [string, string];
      for (const [mine, other] of [[a, b], [b, a]] as const) {
        const parts = mine.split('.');
        if (parts.length === 2 && parts[0] === field.name && !other.includes('.') && body[other] !== undefined && body[other] !== null) preset[parts[1]!] = body[other];
      }
    }
    for (const check of model.def.checks ?? []) {
      const value = check.field === undefined ? undefined : body[check.field];
      if (!check.between || value === undefined || value === null) continue;
      for (const p of check.between) {
        const parts = p.split('.');
        if (parts.length === 2 && parts[0] === field.name) preset[parts[1]!] = value;
      }
    }
    return preset;
  }

  /** The fields a 400 body names (by field name, or by a generic relation's written names). */
  private refusedFields(model: Model, errors: Record<string, unknown>): Field[] {
    return model.fieldList.filter((f) => f.name in errors || (f.kind === 'generic_fk' && (genericNames(f).type in errors || genericNames(f).id in errors)));
  }

  /** Stores written values in the row and its link tables, bypassing the API's cross-object rules. */
  async writeDirectly(model: Model, id: number, values: Record<string, unknown>): Promise<void> {
    if (Object.keys(values).length) this.dirty.add(model.label);
    for (const [key, value] of Object.entries(values)) {
      const field = model.fields.get(key);
      if (field && (field.kind === 'tags' || field.kind === 'm2m')) {
        for (const target of value as number[]) {
          await this.t.knex.raw(`INSERT INTO ${quoteIdent(field.joinTable!)} ("source_id", "target_id") VALUES (?, ?) ON CONFLICT DO NOTHING`, [id, target]);
        }
        continue;
      }
      const column = field?.column ?? key;
      await this.t.knex.raw(`UPDATE ${quoteIdent(model.table)} SET ${quoteIdent(column)} = ? WHERE "id" = ?`, [value as never, id]);
    }
  }

  private readonly pairs = new Map<string, Promise<[Rep, Rep, Rep]>>();

  /**
   * Three objects of a model to point at, made once and shared by every model's tests: T1, T2 (a child
   * of T1 in a tree) and T3. Sharing keeps setup short; the oracle reads every row, so it does not matter
   * who else points at them.
   */
  targets(model: Model): Promise<[Rep, Rep, Rep]> {
    let p = this.pairs.get(model.label);
    if (!p) {
      p = (async () => {
        const t1 = await this.createTarget(model);
        const t2 = await this.createTarget(model, model.tree ? t1.id : undefined);
        const t3 = await this.createTarget(model);
        return [t1, t2, t3] as [Rep, Rep, Rep];
      })();
      this.pairs.set(model.label, p);
    }
    return p;
  }

  /**
   * An object to point at: its natural key set (other models filter by it) and, in a tree, under
   * `parent` when given.
   */
  async createTarget(model: Model, parent?: number, preset: Record<string, unknown> = {}): Promise<Rep> {
    const overrides: Record<string, unknown> = { ...preset };
    const key = naturalKey(model);
    if (key && !key.required) overrides[key.name] = scalarValue(key, 'base', this.uniq());
    if (parent !== undefined) overrides.parent = parent;
    return this.createForFilters(model, overrides);
  }
}
