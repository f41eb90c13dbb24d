import type { Registry, ResolvedField, ResolvedModel } from '../definitions/registry-types';
import { computeField } from '../definitions/named-functions';
import type { Row } from '../query/row-columns';
import { fieldsOfForm, type Form, type RelatedData } from '../query/related-loader';
import { displayOf } from './display';
import { genericTarget } from '../definitions/resolve-registry';

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

  /**
   * An object's representation. `nested`: embedded in another object's (a foreign key, a generic
   * relation, a list of links): secrets are never shown there, whoever asks.
   */
  render(model: ResolvedModel, row: Row, form: Form, data: RelatedData, omit?: ReadonlySet<string>, nested = false): Representation {
    const out: Representation = {};
    const names = form === 'brief' ? model.brief : null;
    const put = (name: string, value: () => unknown) => {
      if (omit?.has(name)) return;
      if (model.fields.get(name)?.def.secret && (nested || !this.revealSecrets)) return;
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
          // The type or id half of a generic relation, named on its own (a brief form may show it).
          return model.fieldList.some((f) => f.typeColumn === name || f.idColumn === name) ? (row[name] ?? null) : undefined;
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
        put(f.typeColumn!, () => row[f.typeColumn!] ?? null);
        put(f.idColumn!, () => row[f.idColumn!] ?? null);
      }
      put(f.name, () => this.value(f, row, 'full', data));
    }
    if (model.timestamps !== false) {
      put('created', () => row.created);
      put('last_updated', () => row.last_updated);
    }
    return out;
  }

  /** An object a generic relation names, nested: only of a type the relation may point at. */
  private nestedOf(via: ResolvedField, label: string, id: number, data: RelatedData): Representation | null {
    const model = genericTarget(via, label);
    return model ? this.nested(model, id, data) : null;
  }

  private nested(model: ResolvedModel, id: unknown, data: RelatedData): Representation | null {
    if (typeof id !== 'number') return null;
    const row = data.row(model, id);
    return row ? this.render(model, row, 'brief', data, undefined, true) : null;
  }

  /** A related row as a `related` field's `shows` lists it: id, url, display, then those fields as in a brief form. */
  private shown(model: ResolvedModel, row: Row | undefined, shows: ResolvedField[], data: RelatedData): Representation | null {
    if (!row) return null;
    const out: Representation = { id: row.id, url: this.url(model, row.id), display: displayOf(model, row) };
    for (const f of shows) if (!f.def.secret) out[f.name] = this.value(f, row, 'brief', data);
    return out;
  }

  private value(f: ResolvedField, row: Row, form: Form, data: RelatedData): unknown {
    switch (f.kind) {
      case 'alias': {
        const v = this.value(f.aliasOf!, row, form, data);
        return (v === null || v === undefined) && f.aliasOr ? this.value(f.aliasOr, row, form, data) : v;
      }
      case 'children':
        return (data.children.get(`${f.model.label}.${f.name}`)?.get(row.id) ?? []).map((ref) => ({
          object_type: ref.type,
          object_id: ref.id,
          object: this.nestedOf(f.children!.generic, ref.type, ref.id, data),
        }));
      case 'reverse_generic': {
        const pointing = data.reverse.get(`${f.model.label}.${f.name}`)?.get(row.id);
        if (f.def.as === 'exists') return !!pointing;
        const pick = f.reverse!.pick;
        if (!pick) return pointing ? pointing.id : null;
        if (pick.kind === 'fk') return pointing ? this.nested(pick.target!, pointing[pick.column!], data) : null;
        const v = pointing?.[pick.column!];
        return v ?? (pick.nullable ? null : '');
      }
      case 'link_peers': {
        const link = data.peers.get(`${f.model.label}.${f.name}`);
        const peers = link?.peers.get(row.id) ?? [];
        switch (f.def.as) {
          case 'type':
            return peers[0]?.type ?? null;
          case 'reachable':
            return peers.length ? true : null;
          case 'endpoints':
            return link?.linked.has(row.id) ? peers.map((p) => this.nestedOf(f.reverse!.via, p.type, p.id, data)) : null;
          case 'status':
            return link?.linked.has(row.id) ? { value: peers.length > 0, label: peers.length ? 'Connected' : 'Not Connected' } : null;
          default:
            return peers.map((p) => this.nestedOf(f.reverse!.via, p.type, p.id, data));
        }
      }
      case 'config_context':
        return data.rendered.get(`${f.model.label}.${f.name}`)?.get(row.id) ?? {};
      case 'fk':
        return this.nested(f.target!, row[f.column!], data);
      case 'generic_fk': {
        const target = genericTarget(f, row[f.typeColumn!]);
        return target ? this.nested(target, row[f.idColumn!], data) : null;
      }
      case 'tags':
      case 'm2m': {
        const ids = data.links.get(f.joinTable!)?.get(row.id) ?? [];
        return ids.map((id) => this.nested(f.target!, id, data));
      }
      case 'related': {
        const key = `${f.model.label}.${f.name}`;
        const of = f.countOf!.model;
        const shows = f.relatedRows?.shows;
        const each = (id: number) => (shows ? this.shown(of, data.shown.get(key)?.get(id), shows, data) : this.nested(of, id, data));
        const ids = data.links.get(key)?.get(row.id) ?? [];
        return f.def.single ? (ids.length ? each(ids[0]!) : null) : ids.map(each);
      }
      case 'count':
      case 'net_count':
        return data.counts.get(`${f.model.label}.${f.name}`)?.get(row.id) ?? 0;
      case 'custom_fields':
        return row[f.column!] ?? {};
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
    // NetBox shows a blank choice as null.
    if (v === null || v === undefined || v === '') return null;
    if (form === 'brief' || f.def.plain) return v;
    const label = f.choices!.labels.get(v as string | number);
    return { value: v, label: label ?? String(v) };
  }
}
