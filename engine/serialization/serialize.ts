import type { Registry, ResolvedField, ResolvedModel } from '../definitions/registry-types';
import { computeField } from '../definitions/named-functions';
import type { Row } from '../query/row-columns';
import { fieldsOfForm, type Form, type RelatedData } from '../query/related-loader';
import { displayOf } from './display';

export type Representation = Record<string, unknown>;

/** Builds representations from rows and their loaded related data; pure, no I/O. */
export class Serializer {
  constructor(
    private readonly registry: Registry,
    /** Absolute origin, e.g. http://localhost:8000 */
    private readonly origin: string,
    /** Whether secret fields (a token's key) are shown: on create, and while ALLOW_TOKEN_RETRIEVAL holds. */
    readonly revealSecrets = true,
  ) {}

  /** The same serializer, showing secrets (the response to a create). */
  revealing(): Serializer {
    return this.revealSecrets ? this : new Serializer(this.registry, this.origin, true);
  }

  url(model: ResolvedModel, id: number): string {
    return `${this.origin}/api/${model.app}/${model.path}/${id}/`;
  }

  render(model: ResolvedModel, row: Row, form: Form, data: RelatedData, omit?: ReadonlySet<string>): Representation {
    const out: Representation = {};
    const names = form === 'brief' ? model.brief : null;
    const put = (name: string, value: () => unknown) => {
      if (omit?.has(name)) return;
      out[name] = value();
    };
    const fields = fieldsOfForm(model, form);
    const implicit = (name: string) => {
      switch (name) {
        case 'id':
          return row.id;
        case 'url':
          return this.url(model, row.id);
        case 'display':
          return displayOf(model, row);
        case 'created':
        case 'last_updated':
          return row[name];
        case '_depth':
          return data.depths.get(model.label)?.get(row.id) ?? 0;
        default:
          return undefined;
      }
    };
    if (names) {
      for (const name of names) {
        const f = model.fields.get(name);
        put(name, () => (f ? this.value(f, row, 'brief', data) : implicit(name)));
      }
      return out;
    }
    put('id', () => row.id);
    put('url', () => this.url(model, row.id));
    put('display', () => displayOf(model, row));
    if (model.tree) put('_depth', () => implicit('_depth'));
    for (const f of fields) {
      if (f.kind === 'generic_fk') {
        put(`${f.name}_type`, () => row[`${f.name}_type`] ?? null);
        put(`${f.name}_id`, () => row[`${f.name}_id`] ?? null);
      }
      put(f.name, () => this.value(f, row, 'full', data));
    }
    if (model.timestamps !== false) {
      put('created', () => row.created);
      put('last_updated', () => row.last_updated);
    }
    return out;
  }

  private nested(model: ResolvedModel, id: unknown, data: RelatedData): Representation | null {
    if (typeof id !== 'number') return null;
    const row = data.row(model, id);
    return row ? this.render(model, row, 'brief', data) : null;
  }

  private value(f: ResolvedField, row: Row, form: Form, data: RelatedData): unknown {
    switch (f.kind) {
      case 'fk':
        return this.nested(f.target!, row[f.column!], data);
      case 'generic_fk': {
        const target = this.registry.models.get(String(row[`${f.name}_type`]));
        return target ? this.nested(target, row[`${f.name}_id`], data) : null;
      }
      case 'tags':
      case 'm2m': {
        const ids = data.links.get(f.joinTable!)?.get(row.id) ?? [];
        return ids.map((id) => this.nested(f.target!, id, data));
      }
      case 'count':
        return data.counts.get(`${f.model.label}.${f.name}`)?.get(row.id) ?? 0;
      case 'custom_fields':
        return row[f.column!] ?? {};
      case 'string':
        if (f.def.secret && !this.revealSecrets) return undefined;
        return row[f.column!] ?? null;
      case 'computed': {
        const withDisplay = f.def.fn === 'display' ? { ...row, display: displayOf(f.model, row) } : row;
        const v = computeField(f.def.fn!, withDisplay, f.def.from ?? []);
        return f.choices ? this.choice(f, v, form) : v;
      }
      case 'choice':
        // A list of choices (a permission's actions) is shown as its plain values, as NetBox does.
        if (f.array) return row[f.column!] ?? [];
        return this.choice(f, row[f.column!], form);
      default:
        return row[f.column!] ?? null;
    }
  }

  /** Choices are {value, label} in full form; nested and brief forms show the plain value, as NetBox's nested serializers. */
  private choice(f: ResolvedField, v: unknown, form: Form): unknown {
    if (v === null || v === undefined || v === '') return v === '' ? null : null;
    if (form === 'brief') return v;
    const label = f.choices!.labels.get(v as string | number);
    return { value: v, label: label ?? String(v) };
  }
}
