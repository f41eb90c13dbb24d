import type { Registry, ResolvedField, ResolvedModel } from '../../engine/definitions/registry-types';
import type { TestApp } from './test-app';
import { jsonSample } from './json-sample';
import { naturalKey } from '../../engine/definitions/natural-key';
import { sendObject } from './send-object';
import { keepOwnChecks, presetForRelation, splitPreset, type Preset } from './check-presets';

/**
 * Valid objects of any served type, built from the definitions alone: every required field gets a value
 * its kind accepts, required relations are created first, and the model's checks are kept (check-presets.ts
 * reads the ones judged through relations). Shared by the
 * suites that generate their cases from the registry (bad input, catalogue rules), so a new schema file
 * is covered without a hand-written factory.
 */

export type Body = Record<string, unknown>;

export const listUrl = (m: ResolvedModel): string => `/api/${m.app}/${m.path}/`;
export const detailUrl = (m: ResolvedModel, id: number): string => `${listUrl(m)}${id}/`;

/** The models served over the API (engine-internal state such as sessions is not). */
export const servedModels = (registry: Registry): ResolvedModel[] => [...registry.models.values()].filter((m) => m.exposed !== false);

/** The served models clients may create (a read-only model such as content types is served for reading only). */
export const creatableModels = (registry: Registry): ResolvedModel[] => servedModels(registry).filter((m) => !m.def.read_only);

export const hex = (n: number, len: number): string => n.toString(16).padStart(len, '0').slice(-len);

export function intRange(f: ResolvedField): { min: number; max: number } {
  const min = f.def.min ?? (f.kind === 'positive_integer' ? 0 : -2147483648);
  const max = f.def.max ?? 2147483647;
  return { min, max };
}

export function validString(f: ResolvedField, n: number): string {
  const max = f.def.max_length ?? 1000;
  const candidates = [`v${n}`, `v${n}@example.com`, hex(n, 40), hex(n, 6), `${n}`];
  const pattern = f.def.pattern ? new RegExp(f.def.pattern, 'u') : null;
  const ok = candidates.find((c) => c.length <= max && (!pattern || pattern.test(c)));
  if (!ok) throw new Error(`no valid value known for ${f.model.label}.${f.name}: add a candidate to validString`);
  return ok;
}

/** The two keys a generic relation is written as (its definition may name them, e.g. content_type/object_id). */
export function genericKeys(f: ResolvedField): { typeKey: string; idKey: string } {
  return { typeKey: f.typeColumn ?? `${f.name}_type`, idKey: f.idColumn ?? `${f.name}_id` };
}

/** The types a generic relation may point at, as its definition lists them. */
export function genericTargetsIn(registry: Registry, f: ResolvedField): ResolvedModel[] {
  void registry;
  return f.genericTargets ?? [];
}

/** The type labels a names_type field may hold, as its definition words them (private types only when allowed). */
export function typeLabelsFor(registry: Registry, f: ResolvedField): string[] {
  const want = f.def.names_type ?? {};
  return [...registry.models.values()]
    .filter((m) => (want.private || !m.def.private) && (!want.having || m.fieldList.some((x) => x.kind === want.having)))
    .map((m) => m.label)
    .sort();
}

/** Relation kinds: their values are other objects, made through the API rather than written as literals. */
export const RELATIONAL = new Set(['fk', 'generic_fk', 'm2m', 'tags']);

/**
 * Fields whose value must point back at the object itself (a device's primary IP must sit on one of the
 * device's own interfaces): they can only be set once the object exists, so they are written by PATCH.
 */
export const pointsBackAtSelf = (f: ResolvedField): boolean => f.def.validators?.includes('assigned_to_self') ?? false;

export interface ValidObjects {
  /** A fresh number for unique values. */
  next(): number;
  /** A valid scalar (or, for an fk, a newly created related object's id) for the field. */
  validScalar(f: ResolvedField, n: number): Promise<unknown>;
  /** A valid value for a scalar field that differs from `old`. */
  otherScalar(f: ResolvedField, old: unknown): Promise<unknown>;
  /**
   * A create body with every required field, valid by the definition and its checks; related objects are
   * created first. `preset` values are taken as they are (and count towards the model's any_of checks); a
   * dotted key (`device.status`) is a value for the related object made for its first part.
   */
  validBody(m: ResolvedModel, depth?: number, preset?: Body): Promise<Body>;
  /** Creates an object from validBody(m, depth, preset); its id. */
  createOne(m: ResolvedModel, depth?: number, preset?: Body): Promise<number>;
  /** genericTargetsIn the app's registry. */
  genericTargets(f: ResolvedField): ResolvedModel[];
  /**
   * A new object for `holder`'s relation `f`, consistent with the holder's checks given its body: when a
   * `same` check compares `f.<x>` with another path of the holder, the new object's `x` is that path's value;
   * an `only_when` reading through `f` (`f.type`, `f.device.status`) gets the first value it lists.
   */
  relatedFor(holder: ResolvedModel, f: ResolvedField, body: Body): Promise<number>;
  /** Sets a relation in a body, dropping what an at_most_one check says cannot be set beside it. */
  setRelation(holder: ResolvedModel, body: Body, f: ResolvedField, id: number): void;
  /** After `f` changed in a body, relations tied to it by the model's `same` checks get objects that agree with it again. */
  followRelation(holder: ResolvedModel, body: Body, f: ResolvedField): Promise<void>;
  /** For a field pointsBackAtSelf: a new related object attached (through its generic relation) to something of the holder's. */
  attachedToSelf(holder: ResolvedModel, holderId: number, f: ResolvedField): Promise<number>;
  /** The value a dotted path (device.site) has for a body, following foreign keys through the API; null when unset. */
  pathValue(m: ResolvedModel, body: Body, path: string): Promise<unknown>;
}

/** Valid objects made through `app()` (a getter: the app starts in beforeAll, after the tests are generated). */
export function validObjects(app: () => TestApp): ValidObjects {
  let serial = 0;

  async function validScalar(f: ResolvedField, n: number): Promise<unknown> {
    if (f.namesType) {
      const labels = typeLabelsFor(app().registry, f);
      return labels[n % labels.length];
    }
    switch (f.kind) {
      case 'string':
      case 'text':
      case 'password':
        return validString(f, n);
      case 'slug':
        return `s-${n}`;
      case 'integer':
      case 'positive_integer': {
        const { min, max } = intRange(f);
        return Math.max(min, Math.min(max, 1 + (n % 1000)));
      }
      case 'boolean':
        return true;
      case 'decimal':
      case 'float':
        return Math.max(f.def.min ?? -1e6, Math.min(f.def.max ?? 1e6, 1));
      case 'date':
        return '2024-01-02';
      case 'datetime':
        return '2024-01-02T03:04:05Z';
      case 'json':
        return jsonSample(f, n);
      case 'custom_fields':
        return {};
      case 'choice':
        return f.choices!.entries[0]!.value;
      case 'cidr':
        return `10.${Math.floor(n / 256) % 256}.${n % 256}.0/24`;
      case 'inet':
        return `10.${Math.floor(n / 256) % 256}.${n % 256}.1/24`;
      case 'mac':
        return `00:11:22:33:${hex(Math.floor(n / 256) % 256, 2)}:${hex(n % 256, 2)}`;
      case 'fk':
        return createOne(f.target!);
      default:
        throw new Error(`no valid value known for kind ${f.kind} (${f.model.label}.${f.name})`);
    }
  }

  async function otherScalar(f: ResolvedField, old: unknown): Promise<unknown> {
    const same = (v: unknown) => JSON.stringify(v) === JSON.stringify(old);
    if (f.kind === 'choice') {
      const other = f.choices!.entries.find((e) => !same(f.array ? [e.value] : e.value));
      if (!other) throw new Error(`${f.model.label}.${f.name}: a choice set of one value has no other value`);
      return f.array ? [other.value] : other.value;
    }
    if (f.kind === 'boolean') return f.array ? [old !== true] : old !== true;
    if (typeof old === 'number') {
      // Generated numbers are clamped to the field's range, so a fresh one may repeat the old: step away instead.
      const max = f.kind === 'integer' || f.kind === 'positive_integer' ? intRange(f).max : (f.def.max ?? 1e6);
      return old + 1 <= max ? old + 1 : old - 1;
    }
    if (f.kind === 'date' && !f.array) return old === '2024-01-03' ? '2024-01-04' : '2024-01-03';
    if (f.kind === 'datetime' && !f.array) return old === '2024-01-03T03:04:05Z' ? '2024-01-04T03:04:05Z' : '2024-01-03T03:04:05Z';
    for (let i = 0; i < 3; i++) {
      const v = await validScalar(f, ++serial);
      const value = f.array ? [v] : v;
      if (!same(value)) return value;
    }
    throw new Error(`no second valid value known for ${f.model.label}.${f.name}`);
  }

  const genericTargets = (f: ResolvedField): ResolvedModel[] => genericTargetsIn(app().registry, f);

  async function validBody(m: ResolvedModel, depth = 0, preset: Body = {}): Promise<Body> {
    if (depth > 5) throw new Error(`required relations of ${m.label} nest too deep`);
    const { own, through } = splitPreset(preset);
    const body: Body = { ...own };
    // Values asked of related objects (an only_when through a relation of the holder): those objects are made with them.
    for (const [name, nested] of through) {
      const f = m.fields.get(name);
      if (f?.kind !== 'fk') throw new Error(`${m.label}: a preset path through ${name}, which is not a foreign key`);
      body[name] = await createOne(f.target!, depth + 1, nested);
    }
    // A check that wants one of several optional relations set (a circuit termination's site or provider network) gets its first,
    // before the required relations, which may have to agree with it (a front port template's rear port, on its device type).
    for (const c of m.def.checks ?? []) {
      if (!c.any_of || c.any_of.some((p) => body[p] !== undefined)) continue;
      const f = m.fields.get(c.any_of[0]!);
      // A choice (an IPSec proposal's encryption algorithm) takes its first value.
      if (f?.kind === 'choice' && f.choices) {
        body[f.name] = f.choices.entries[0]!.value;
        continue;
      }
      if (f?.kind !== 'fk') throw new Error(`${m.label}: any_of check starting with ${c.any_of[0]} is not a plain foreign key or a choice`);
      body[f.name] = await relatedFor(m, f, body, depth + 1);
    }
    for (const f of m.fieldList) {
      // An image is a file, attached when the object is sent (send-object.ts).
      if (f.readOnly || !f.required || f.def.default !== undefined || f.def.default_fn || f.kind === 'image') continue;
      if (body[f.kind === 'generic_fk' ? genericKeys(f).typeKey : f.name] !== undefined) continue;
      const n = ++serial;
      if (f.kind === 'generic_fk') {
        const targets = genericTargets(f);
        if (!targets.length) throw new Error(`${m.label}.${f.name}: no defined model to point at`);
        const { typeKey, idKey } = genericKeys(f);
        body[typeKey] = targets[0]!.label;
        body[idKey] = await createOne(targets[0]!, depth + 1);
      } else if (f.kind === 'fk') {
        // Consistent with the fields already in the body (a front port's rear port on the port's own device).
        body[f.name] = await relatedFor(m, f, body, depth + 1);
      } else if (f.kind === 'tags' || f.kind === 'm2m') {
        const id = await createOne(f.target!, depth + 1);
        // A field written by key (by_key) names its target by natural key, as NetBox's SlugRelatedField.
        body[f.name] = [f.def.by_key ? await keyOf(f.target!, id) : id];
      } else {
        const v = await validScalar(f, n);
        body[f.name] = f.array ? [v] : v;
      }
    }
    // A field required while another holds certain values gets one when the body (or the other's default) holds them.
    for (const c of m.def.checks ?? []) {
      if (!c.required_when || !c.field || body[c.field] !== undefined) continue;
      const [path, values] = Object.entries(c.required_when)[0]!;
      const holds = body[path] !== undefined ? body[path] : m.fields.get(path)?.def.default;
      const f = m.fields.get(c.field);
      if (!values.includes(holds as string) || !f) continue;
      body[f.name] = f.kind === 'fk' ? await relatedFor(m, f, body, depth + 1) : await validScalar(f, ++serial);
    }
    // The checks judged on the object's own fields (an only_when on one of them, an excludes), the preset left as given.
    keepOwnChecks(m, body, new Set(Object.keys(own)));
    return body;
  }

  async function createOne(m: ResolvedModel, depth = 0, preset: Body = {}): Promise<number> {
    const t = app();
    const body = await validBody(m, depth, preset);
    const res = await sendObject(t, 'post', listUrl(m), m, body);
    if (res.status !== 201) throw new Error(`creating a ${m.label} from ${JSON.stringify(body)}: ${res.status} ${res.text}`);
    return res.body.id as number;
  }

  async function keyOf(m: ResolvedModel, id: number): Promise<string> {
    const t = app();
    const key = naturalKey(m);
    const res = await t.api.get(detailUrl(m, id)).set(t.auth);
    if (!key || res.status !== 200) throw new Error(`${m.label} ${id}: no natural key to write it by`);
    return String((res.body as Body)[key.name]);
  }

  async function pathValue(m: ResolvedModel, body: Body, path: string): Promise<unknown> {
    const t = app();
    const [head, ...rest] = path.split('.');
    let field = m.fields.get(head!);
    let value: unknown = body[head!];
    for (const part of rest) {
      if (value === undefined || value === null || field?.kind !== 'fk') return null;
      const res = await t.api.get(detailUrl(field.target!, value as number)).set(t.auth);
      if (res.status !== 200) throw new Error(`reading ${field.target!.label} ${String(value)}: ${res.status}`);
      const shown = (res.body as Body)[part];
      field = field.target!.fields.get(part);
      value = field?.kind === 'fk' ? ((shown as { id?: number } | null)?.id ?? null) : shown;
    }
    return value ?? null;
  }

  async function relatedFor(holder: ResolvedModel, f: ResolvedField, body: Body, depth = 1): Promise<number> {
    // What the holder's only_when checks ask of the object through this relation (a wireless link's interface of a wireless type).
    const preset: Preset = presetForRelation(holder, f.name, (name) => body[name] !== undefined && body[name] !== null);
    for (const c of holder.def.checks ?? []) {
      if (!c.same) continue;
      const [a, b] = c.same as [string, string];
      for (const [mine, other] of [[a, b], [b, a]] as const) {
        const parts = mine.split('.');
        // Only a path one step into the new object can be preset; a longer one is left to the check to judge.
        if (parts.length !== 2 || parts[0] !== f.name) continue;
        const v = await pathValue(holder, body, other);
        if (v !== null) preset[parts[1]!] = v;
      }
    }
    // A bound read through the new object (a rear port's positions above a front port's position) admits the body's
    // value. A range read wholly through it (a VLAN group's min_vid and max_vid) keeps the new object's own defaults.
    for (const c of holder.def.checks ?? []) {
      const value = c.field === undefined ? undefined : body[c.field];
      if (!c.between || value === undefined || value === null) continue;
      if (c.between.every((p) => p.split('.')[0] === f.name)) continue;
      for (const p of c.between) {
        const parts = p.split('.');
        if (parts.length === 2 && parts[0] === f.name) preset[parts[1]!] = value;
      }
    }
    return createOne(f.target!, depth, preset);
  }

  /**
   * After `f` changed in a body: relations whose `same` checks compare them with `f` (a front port's rear
   * port with its device) get new objects that agree with the body again.
   */
  async function followRelation(holder: ResolvedModel, body: Body, f: ResolvedField): Promise<void> {
    for (const c of holder.def.checks ?? []) {
      if (c.between && c.field === f.name && typeof body[f.name] === 'number') {
        // Only a bound the new value breaks (a front port's position beyond its rear port's positions).
        const value = body[f.name] as number;
        for (const [i, p] of c.between.entries()) {
          const g = holder.fields.get(p.split('.')[0]!);
          if (p.split('.').length !== 2 || g?.kind !== 'fk' || body[g.name] === undefined || body[g.name] === null) continue;
          const shown = await pathValue(holder, body, p);
          const bound = Number(shown);
          if (shown !== null && (i === 0 ? value < bound : value > bound)) body[g.name] = await relatedFor(holder, g, body);
        }
      }
      if (!c.same || !c.same.includes(f.name)) continue;
      const other = c.same.find((p) => p !== f.name)!;
      const g = holder.fields.get(other.split('.')[0]!);
      if (!g || g === f || g.kind !== 'fk' || other.split('.').length !== 2 || body[g.name] === undefined || body[g.name] === null) continue;
      body[g.name] = await relatedFor(holder, g, body);
    }
  }

  function setRelation(holder: ResolvedModel, body: Body, f: ResolvedField, id: number): void {
    body[f.name] = id;
    for (const c of holder.def.checks ?? []) {
      // A field set only while another holds certain values (a custom field's choice set, on a selection): that other gets the first.
      if (c.only_when && c.field === f.name) {
        const [path, values] = Object.entries(c.only_when)[0]!;
        if (!path.includes('.')) body[path] = values[0];
      }
      if (!c.at_most_one?.includes(f.name)) continue;
      for (const p of c.at_most_one) {
        if (p !== f.name && !holder.fields.get(p)?.required) delete body[p];
      }
    }
  }

  async function attachedToSelf(holder: ResolvedModel, holderId: number, f: ResolvedField): Promise<number> {
    const target = f.target!;
    const generic = target.fieldList.find((g) => g.kind === 'generic_fk');
    if (!generic) throw new Error(`${f.model.label}.${f.name}: ${target.label} has no generic relation to attach it by`);
    for (const via of genericTargets(generic)) {
      const back = via.fieldList.find((g) => g.kind === 'fk' && g.target === holder && g.required);
      if (!back) continue;
      const attach = await createOne(via, 1, { [back.name]: holderId });
      const { typeKey, idKey } = genericKeys(generic);
      const preset: Body = { [typeKey]: via.label, [idKey]: attach };
      // An address of the family the field's validators ask for (the generated ones are IPv4).
      const address = target.fieldList.find((g) => (g.kind === 'inet' || g.kind === 'cidr') && g.required);
      if (address && f.def.validators?.includes('ipv6')) {
        const n = ++serial;
        preset[address.name] = address.kind === 'inet' ? `2001:db8::${hex(n, 4)}/64` : `2001:db8:${hex(n, 4)}::/64`;
      }
      return createOne(target, 1, preset);
    }
    throw new Error(`${f.model.label}.${f.name}: no type ${target.label}.${generic.name} may point at belongs to a ${holder.label}`);
  }

  return {
    next: () => ++serial,
    validScalar,
    otherScalar,
    validBody,
    createOne,
    genericTargets,
    relatedFor,
    setRelation,
    followRelation,
    attachedToSelf,
    pathValue,
  };
}
