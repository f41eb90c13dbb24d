import { jsonSample } from '../support/json-sample';
import type { ResolvedField, ResolvedModel } from '../../engine/definitions/registry-types';
import { requestSchema, type JsonSchema } from '../../engine/validation/request-schema';
import type { TestApp } from '../support/test-app';
import { naturalKey } from '../../engine/definitions/natural-key';
import { sendObject } from '../support/send-object';
import { keepOwnChecks, presetForRelation, splitPreset, type Preset } from '../support/check-presets';

type Body = Record<string, unknown>;

/**
 * Makes objects of any type through the API, from the definitions alone: a value for each field by its
 * kind and its request schema (bounds, patterns, choices), related objects made first. Used to put real
 * data behind every documented response, so the responses' schemas are checked with nested objects,
 * choices and links filled in.
 */
export class ObjectFactory {
  private n = 0;
  private readonly made = new Map<string, number>();
  private readonly making = new Set<string>();
  /** Why a type could not be made (its last answer). */
  readonly failures = new Map<string, unknown>();
  /** The bodies that created each type. */
  readonly bodies = new Map<string, Body>();

  constructor(private readonly t: TestApp) {}

  private next(): number {
    return ++this.n;
  }

  /** A string for the field: its pattern decides whether a plain token fits. */
  private text(schema: JsonSchema, required: boolean): string | undefined {
    const n = this.next();
    const max = typeof schema.maxLength === 'number' ? schema.maxLength : 50;
    const candidates = [`v${n}`, `value_${n}`, `${n}`];
    for (const c of candidates) {
      const s = c.slice(0, Math.max(1, max));
      if (typeof schema.pattern !== 'string' || new RegExp(schema.pattern, 'u').test(s)) return s;
    }
    return required ? `v${n}` : undefined;
  }

  private address(kind: 'cidr' | 'inet'): string {
    const n = this.next();
    const [a, b] = [Math.floor(n / 250) % 250, n % 250];
    return kind === 'cidr' ? `10.${a}.${b}.0/24` : `10.${a}.${b}.1/24`;
  }

  /** A value for one scalar field, or undefined to leave it out. */
  private scalar(field: ResolvedField, schema: JsonSchema, required: boolean): unknown {
    const labels = [...this.t.registry.byPath.values()].map((m) => m.label);
    const base = field.array ? ((schema.items as JsonSchema | undefined) ?? (Array.isArray(schema.anyOf) ? ((schema.anyOf as JsonSchema[])[0]!.items as JsonSchema) : {})) : schema;
    const one = (): unknown => {
      switch (field.kind) {
        case 'choice': {
          const values = (field.choices?.entries ?? []).map((e) => e.value);
          return values[0];
        }
        case 'cidr':
        case 'inet':
          return this.address(field.kind);
        case 'mac': {
          const n = this.next();
          return `02:00:00:00:${(Math.floor(n / 256) % 256).toString(16).padStart(2, '0')}:${(n % 256).toString(16).padStart(2, '0')}`;
        }
        case 'integer':
        case 'positive_integer': {
          // Small values within the bounds (bounds beyond 2^53 are not exact in JSON numbers).
          const min = typeof base.minimum === 'number' ? Math.max(base.minimum, 0) : 0;
          const max = typeof base.maximum === 'number' ? Math.min(base.maximum, 1000000) : 1000000;
          return min + (this.next() % Math.max(1, Math.min(max - min, 4000)));
        }
        case 'decimal':
        case 'float': {
          const min = typeof base.minimum === 'number' ? base.minimum : -1000;
          const max = typeof base.maximum === 'number' ? base.maximum : 1000;
          return Math.round(((min + max) / 2 + 1.5) * 100) / 100;
        }
        case 'boolean':
          // false: a true here could make a custom field required everywhere, or a user a superuser.
          return false;
        case 'date':
          return '2024-05-06';
        case 'datetime':
          return '2099-01-02T03:04:05Z';
        case 'password':
          return `Pw-${this.next()}-correct-horse`;
        case 'slug':
          return `slug-${this.next()}`;
        case 'string':
        case 'text':
          // A list of type labels (content_types, object_types) names object types; any other text is a token.
          if (field.array && field.name.endsWith('_types')) return labels.find((l) => l !== field.model.label) ?? labels[0];
          return this.text(base, required);
        default:
          return undefined;
      }
    };
    const v = one();
    if (v === undefined) return undefined;
    return field.array ? [v] : v;
  }

  /**
   * A body for a type: required fields always, optional ones too when `full`; related objects made first,
   * as the type's checks want them (check-presets.ts). `preset` values are taken as given; a dotted key
   * (`device.status`) is a value for the related object made for its first part.
   */
  private async body(model: ResolvedModel, full: boolean, preset: Preset = {}): Promise<Body | null> {
    const schema = requestSchema(model, 'create');
    const props = schema.properties as Record<string, JsonSchema>;
    const required = new Set((schema.required as string[] | undefined) ?? []);
    // A check wanting one of several optional relations (a circuit termination's site or provider network) gets its first.
    for (const c of model.def.checks ?? []) if (c.any_of?.[0]) required.add(c.any_of[0]);
    const { own, through } = splitPreset(preset);
    const body: Body = { ...own };
    for (const [name, nested] of through) {
      const target = model.fields.get(name)?.target;
      const id = target ? await this.make(target, true, nested) : null;
      if (id === null) return null;
      body[name] = id;
    }
    const isSet = (name: string) => body[name] !== undefined && body[name] !== null;
    for (const field of model.fieldList) {
      if (field.readOnly || field.kind === 'custom_fields' || field.name in body) continue;
      if (field.kind === 'generic_fk') {
        // Required generic relations point at an object of one of their allowed types; optional ones are left out.
        const typeName = field.typeColumn;
        if (!required.has(typeName)) continue;
        const target = await this.genericTarget(field);
        if (!target) return null;
        body[typeName] = target.model.label;
        body[field.idColumn] = target.id;
        continue;
      }
      const isRequired = required.has(field.name);
      if (!isRequired && !full) continue;
      if (field.kind === 'json') {
        // Free-form JSON: an object where one is required, otherwise left out (its meaning is the type's own).
        if (isRequired) body[field.name] = field.def.json_schema ? jsonSample(field, 1) : { made_by: 'object-factory' };
        continue;
      }
      if (field.kind === 'fk' || field.kind === 'm2m' || field.kind === 'tags') {
        const target = field.target;
        // A relation back into what is being made (a tree's parent, nat_inside) is left out unless required.
        if (this.making.has(target.label) || !this.t.registry.byPath.has(`${target.app}/${target.path}`)) {
          if (isRequired) return null;
          continue;
        }
        // An object the type's checks want something of (a wireless link's interface of a wireless type) is made for it.
        const wanted = field.kind === 'fk' ? presetForRelation(model, field.name, isSet) : {};
        const id = Object.keys(wanted).length ? await this.make(target, true, wanted) : await this.make(target);
        if (id === null) {
          if (isRequired) return null;
          continue;
        }
        body[field.name] = field.kind === 'fk' ? id : [field.def.by_key ? await this.keyOf(target, id) : id];
        continue;
      }
      const v = this.scalar(field, props[field.name] ?? {}, isRequired);
      if (v !== undefined) body[field.name] = v;
    }
    keepOwnChecks(model, body, new Set(Object.keys(own)));
    return body;
  }

  /** The natural key of an object (what a many-to-many field written by key sends), as the API shows it. */
  private async keyOf(model: ResolvedModel, id: number): Promise<string> {
    const key = naturalKey(model);
    const res = await this.t.api.get(`/api/${model.app}/${model.path}/${id}/`).set(this.t.auth);
    if (!key || res.status !== 200) throw new Error(`${model.label} ${id}: no natural key to write it by`);
    return String(res.body[key.name]);
  }

  /** An object for a generic relation: of the first allowed type that can be made. */
  private async genericTarget(field: ResolvedField): Promise<{ model: ResolvedModel; id: number } | null> {
    const exposed = (m: ResolvedModel) => this.t.registry.byPath.has(`${m.app}/${m.path}`) && !this.making.has(m.label);
    const allowed = field.genericTargets ?? [];
    for (const m of allowed.filter(exposed)) {
      const id = await this.make(m);
      if (id !== null) return { model: m, id };
    }
    return null;
  }

  /**
   * Bodies to try for a type, best first: every field it can fill, then only the required ones.
   * Related objects are made (once) on the way.
   */
  async bodiesFor(model: ResolvedModel, preset: Preset = {}): Promise<Body[]> {
    this.making.add(model.label);
    try {
      const out: Body[] = [];
      for (const full of [true, false]) {
        const b = await this.body(model, full, preset);
        if (b) out.push(b);
      }
      return out;
    } finally {
      this.making.delete(model.label);
    }
  }

  /** Creates one object of the type (reusing the first one made unless `fresh`, or given a preset); its id, or null. */
  async make(model: ResolvedModel, fresh = false, preset: Preset = {}): Promise<number | null> {
    if (!fresh && this.made.has(model.label)) return this.made.get(model.label)!;
    for (const body of await this.bodiesFor(model, preset)) {
      const r = await sendObject(this.t, 'post', `/api/${model.app}/${model.path}/`, model, body);
      if (r.status === 201) {
        this.remember(model, body, r.body.id as number);
        return r.body.id as number;
      }
      this.failures.set(model.label, { status: r.status, body: r.body, sent: body });
      // A shared related object this one cannot also use (a module bay that holds a module already): a fresh one.
      const refused = r.status === 400 ? model.fieldList.filter((f) => f.kind === 'fk' && f.name in (r.body as Body) && body[f.name] !== undefined && f.target !== undefined) : [];
      if (!refused.length) continue;
      const retry = { ...body };
      for (const f of refused) retry[f.name] = (await this.make(f.target!, true, presetForRelation(model, f.name, (n) => retry[n] !== undefined && retry[n] !== null))) ?? retry[f.name];
      const again = await sendObject(this.t, 'post', `/api/${model.app}/${model.path}/`, model, retry);
      if (again.status === 201) {
        this.remember(model, retry, again.body.id as number);
        return again.body.id as number;
      }
    }
    return null;
  }

  /** Records an object made elsewhere (by a test's own POST) as the type's reusable one. */
  remember(model: ResolvedModel, body: Body, id: number): void {
    this.bodies.set(model.label, body);
    if (!this.made.has(model.label)) this.made.set(model.label, id);
  }
}
