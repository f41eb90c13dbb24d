import { hasColumn, type ChildrenField, type ChoiceSet, type ComputedField, type CountField, type FkField, type GenericField, type LinkField, type NetCountField, type RelatedField, type Registry, type ResolvedField, type ResolvedModel, type ReverseField } from '../definitions/registry-types';
import { netCountSql } from './net-count';
import { and, column, ident, join, sql, SqlParam, type Sql } from '../sql/fragment';
import { configContextJson } from '../domain/config-context/config-context-json';
import { COMPUTED_SQL, DISPLAY_SQL } from './named-sql';
import type { ComputedFunctionName, DisplayFunctionName } from '../definitions/named-functions';
import { DISPLAY_PLACEHOLDER } from '../definitions/resolve-registry';
import { storedText, storedValue, timestampValue } from './stored-values';
import { treeWalk } from './tree-walk';
import { isConcealed } from '../definitions/concealed-fields';
import { naturalKey } from '../definitions/natural-key';
import type { Form } from './forms';
import type { ReaderAccess, Rows } from './reader-access';
import { anyPeerName, firstPointingName, linkRowName, onePerObject } from './pointing-rows';

export type { Form };

/** What a representation depends on besides the definitions: the request's origin, whether secrets show, what the caller may see. */
export interface JsonOptions {
  /** The scheme and host URLs start with, bound as a value. */
  origin: string;
  /** Secret fields shown in the object's own representation (never nested). */
  revealSecrets: boolean;
  /** The objects at the far end of links, and the shown_with fields, the caller may see. */
  access: ReaderAccess;
}

/** What one compilation shows: secrets, shown_with fields (both in the object's own representation only), and which linked objects. */
export interface CompileOptions {
  revealSecrets: boolean;
  /** shown_with fields shown (compiled-representations picks, row by row, between the forms with and without them). */
  revealShown: boolean;
  /** The rows of a type at the far end of a link the reader may view; the others are shown by id and URL only. */
  view: (model: ResolvedModel) => Rows;
  /**
   * A list's page of rows, by the name of the relation holding it (the list statement's "page"): the top-level
   * row's nested foreign keys are then built once per distinct referenced row, in relations of their own
   * (JsonCompiler.hoistedRelations), rather than once per row that references it.
   */
  hoistFrom?: string;
}

/**
 * A relation of nested objects, one row ("id", "json") per distinct row a list page references, and the join
 * that reads it after `FROM <page> AS "t"`. The statement keeps it a MATERIALIZED CTE, so that whatever join
 * the planner picks, each object is built once.
 */
export interface HoistedRelation {
  /** Absent: the join reads the rows itself, once per page row (a LATERAL sub-select: the rows pointing at it). */
  rows?: Sql;
  join: Sql;
}

/** The rows of a reverse relation pointing at one object (its cable termination), as the fields reading them use them. */
interface Pointing {
  /** `read` of the first of them by id (its alias given); NULL when there is none. */
  first: (read: (h: string) => Sql) => Sql;
  /** Whether there is one. */
  exists: Sql;
  /** Whether one of them has a peer across its group (link_peers' group, on another side). */
  anyPeer: () => Sql;
}

/** The top-level row's alias, in every statement a representation is compiled for. */
const TOP = 't';

/** The hole URLs take the request's origin from: compiled representations are shared by every request. */
export const ORIGIN = new SqlParam('origin');

/** Where stored files are served (engine/http/media-files.ts), as NetBox's MEDIA_URL. */
export const MEDIA_URL = '/media/';

/** Nesting deeper than this is cut (a definition whose brief forms point at each other in a ring). */
const MAX_NESTING = 6;

/** An object's API URL, from the ORIGIN hole. */
function urlSql(model: ResolvedModel, alias: string): Sql {
  return sql`concat(${ORIGIN}::text, ${`/api/${model.app}/${model.path}/`}::text, ${column(alias, 'id')}, '/')`;
}

/**
 * An object the reader may not view, where another answer leads to it (a cable's far end, a hop of a
 * trace): its id and URL, so that the answer keeps its shape and a client (pynetbox's trace reads every
 * hop's URL) can place it, and nothing of its contents.
 */
export function idAndUrl(model: ResolvedModel, alias: string): Sql {
  return sql`(SELECT row_to_json("hidden") FROM (SELECT ${column(alias, 'id')} AS "id", ${urlSql(model, alias)} AS "url") AS "hidden")`;
}

/**
 * Displays that show other objects' displays ({assigned_object}, {l2vpn.display}) stop this deep, so two
 * types showing each other's display cannot make the SQL endless.
 */
const MAX_DISPLAY_DEPTH = 4;

/** The display string, from the template or the named function. */
export function displaySql(model: ResolvedModel, alias: string, depth = 0): Sql {
  if (depth > MAX_DISPLAY_DEPTH) return sql`''::text`;
  const d = model.def.display;
  if (typeof d === 'object') {
    const fn = DISPLAY_SQL[d.fn as DisplayFunctionName];
    if (!fn) throw new Error(`${model.label}: display function ${d.fn} has no SQL`);
    return fn((d.from ?? []).map((name) => textOf(model, alias, name)));
  }
  const parts: Sql[] = [];
  let last = 0;
  for (const m of d.matchAll(DISPLAY_PLACEHOLDER)) {
    if (m.index! > last) parts.push(sql`${d.slice(last, m.index)}::text`);
    parts.push(placeholderText(model, alias, m[1]!.split('.'), depth));
    last = m.index! + m[0].length;
  }
  if (last < d.length) parts.push(sql`${d.slice(last)}::text`);
  return parts.length ? sql`concat(${join(parts)})` : sql`''::text`;
}

/**
 * A placeholder's text: a field of the row, or one reached through foreign keys (NULL, so '', when one is
 * unset); `display` after a foreign key is the object's own display, and a generic relation alone is the
 * display of the object it names, whatever its type (NetBox's str() of a GenericForeignKey). Sub-selects of
 * the one statement that reads the rows, so a list costs no statement per row.
 */
function placeholderText(model: ResolvedModel, alias: string, steps: string[], depth: number): Sql {
  const first = model.fields.get(steps[0]!);
  if (steps.length === 1) return first?.kind === 'generic_fk' ? genericDisplay(first, alias, depth) : textOf(model, alias, steps[0]!);
  if (first?.kind !== 'fk') return sql`NULL::text`;
  const inner = `${alias}_${steps[0]}`;
  const rest = steps.slice(1);
  const text = rest.length === 1 && rest[0] === 'display' ? displaySql(first.target, inner, depth + 1) : placeholderText(first.target, inner, rest, depth);
  return sql`(SELECT ${text} FROM ${ident(first.target.table)} AS ${ident(inner)} WHERE ${column(inner, 'id')} = ${column(alias, first.column)})`;
}

/** The display of the object a generic relation names: one branch per type it may name. */
function genericDisplay(field: GenericField, alias: string, depth: number): Sql {
  if (!field.genericTargets.length) return sql`NULL::text`;
  const inner = `${alias}_${field.name}`;
  const branches = field.genericTargets.map(
    (target) =>
      sql`WHEN ${target.label}::text THEN (SELECT ${displaySql(target, inner, depth + 1)} FROM ${ident(target.table)} AS ${ident(inner)} WHERE ${column(inner, 'id')} = ${column(alias, field.idColumn)})`,
  );
  return sql`(CASE ${column(alias, field.typeColumn)} ${join(branches, ' ')} END)`;
}

/** A field's stored value as text, as templates and named functions read it (the id for a foreign key). */
function textOf(model: ResolvedModel, alias: string, name: string): Sql {
  if (name === 'id') return sql`${column(alias, 'id')}::text`;
  if (name === 'created' || name === 'last_updated') return timestampValue(model, name, alias);
  const generic = model.fieldList.find((g) => g.kind === 'generic_fk' && (g.typeColumn === name || g.idColumn === name));
  if (generic) return sql`${column(alias, name)}::text`;
  const f = model.fields.get(name);
  if (!f?.column) return sql`NULL::text`;
  if (f.kind === 'fk') return sql`${column(alias, f.column)}::text`;
  return storedText(f, alias);
}

/**
 * Compiles representations to SQL: an object is a `row_to_json` of a sub-select whose columns are the
 * representation's fields in order, each computed by PostgreSQL — nested objects and lists as correlated
 * sub-selects over indexed keys — so a whole page is one statement and its JSON text comes back ready.
 * One compiler per statement: it numbers the aliases it invents. URLs take the origin from the ORIGIN hole.
 */
export class JsonCompiler {
  private aliases = 0;
  /** Hoisted nested objects (CompileOptions.hoistFrom), by the name of their relation. */
  private readonly hoisted = new Map<string, HoistedRelation>();

  constructor(
    private readonly registry: Registry,
    private readonly opts: CompileOptions,
  ) {}

  private alias(prefix = 'o'): string {
    this.aliases += 1;
    return `${prefix}${this.aliases}`;
  }

  /** The JSON of the row aliased `alias` of `model`, in `form`; `nested`: inside another object's representation. */
  object(model: ResolvedModel, alias: string, form: Form, opts: { nested: boolean; omit?: ReadonlySet<string>; depth?: number }): Sql {
    const depth = opts.depth ?? 0;
    return this.record(this.columns(model, alias, form, opts.nested, opts.omit ?? new Set(), depth));
  }

  /**
   * A JSON object of these names and values, in order. row_to_json writes compact JSON, as the API answers;
   * json_build_object would put spaces around every colon.
   */
  record(entries: ReadonlyArray<readonly [string, Sql]>): Sql {
    const r = this.alias('r');
    return sql`(SELECT row_to_json(${ident(r)}) FROM (SELECT ${join(entries.map(([name, value]) => sql`${value} AS ${ident(name)}`))}) AS ${ident(r)})`;
  }

  /** The JSON of the `model` row whose id is the value of `idExpr` (NULL when there is none), in its brief form. */
  nestedById(model: ResolvedModel, idExpr: Sql, depth: number): Sql {
    if (depth > MAX_NESTING) return sql`NULL::json`;
    const o = this.alias();
    return sql`(SELECT ${this.object(model, o, 'brief', { nested: true, depth })} FROM ${ident(model.table)} AS ${ident(o)} WHERE ${column(o, 'id')} = ${idExpr})`;
  }

  /** The relations the hoisted nested objects are read from (CompileOptions.hoistFrom), by name. */
  hoistedRelations(): ReadonlyMap<string, HoistedRelation> {
    return new Map(this.hoisted);
  }

  /**
   * A top-level foreign key's nested object, read from a relation built over the distinct values of the key
   * in the page (a thousand devices name ten device types: ten objects built, not a thousand). An alias of
   * the same key (device_role, primary_ip) reads the same relation.
   */
  private hoistedById(f: FkField, from: string, depth: number): Sql {
    const h = `h_${f.column}`;
    if (!this.hoisted.has(h)) {
      const o = this.alias();
      const built = this.object(f.target, o, 'brief', { nested: true, depth });
      this.hoisted.set(h, {
        rows: sql`SELECT ${column(o, 'id')} AS "id", ${built} AS "json" FROM ${ident(f.target.table)} AS ${ident(o)} WHERE ${column(o, 'id')} IN (SELECT ${column(TOP, f.column)} FROM ${ident(from)} AS ${ident(TOP)})`,
        join: sql`LEFT JOIN ${ident(h)} ON ${column(h, 'id')} = ${column(TOP, f.column)}`,
      });
    }
    return column(h, 'json');
  }

  /** Whether a field of the row `alias` at this depth is a list page's top-level row, whose values may come from relations built for the whole page. */
  private hoistsFrom(alias: string, depth: number): boolean {
    return this.opts.hoistFrom !== undefined && alias === TOP && depth === 0;
  }

  /** A count field's value: on a list page's row, from one grouped read over the page's ids (hoistedCount); else a sub-select of its own. */
  private countOrHoisted(f: CountField, alias: string, depth: number): Sql {
    if (this.hoistsFrom(alias, depth)) {
      const hoisted = this.hoistedCount(f, this.opts.hoistFrom!);
      if (hoisted) return hoisted;
    }
    return this.count(f, alias);
  }

  /**
   * The rows a count counts, each source as the table, the column holding the id of the object counted for, and
   * any other condition; null for a tree's cumulative count (a descendant's rows count too: not a grouping by id).
   */
  private countedRows(f: CountField): Array<{ table: string; key: string; also: (x: string) => Sql[] }> | null {
    const none = () => [];
    if (f.countAcross) return f.countAcross.length ? f.countAcross.map((l) => ({ table: l.joinTable, key: 'target_id', also: none })) : null;
    if (!f.countOf) return null;
    const { model: of, via } = f.countOf;
    if (via.kind === 'generic_fk') return [{ table: of.table, key: via.idColumn, also: (x) => [sql`${column(x, via.typeColumn)} = ${f.model.label}::text`] }];
    if (via.kind !== 'fk') return [{ table: via.joinTable, key: 'target_id', also: none }];
    if (f.model.tree && via.target === f.model && via.name !== 'parent') return null;
    return [{ table: of.table, key: via.column, also: none }];
  }

  /**
   * A count on a list page's row, read from a relation of one grouped count per page row that has any (ids
   * absent: 0): one grouped read of the counted rows for the page, where a sub-select per row probes the index
   * a thousand times per count field (a device's ten counts: 10,000 probes per page).
   */
  private hoistedCount(f: CountField, from: string): Sql | null {
    const h = `n_${f.name}`;
    if (h.length > 63) return null;
    if (!this.hoisted.has(h)) {
      const sources = this.countedRows(f);
      if (!sources) return null;
      const ids = sql`(SELECT ${column(TOP, 'id')} FROM ${ident(from)} AS ${ident(TOP)})`;
      const keyed = sources.map(({ table, key, also }) => {
        const x = this.alias('x');
        return sql`SELECT ${column(x, key)} AS "id" FROM ${ident(table)} AS ${ident(x)} WHERE ${and([sql`${column(x, key)} IN ${ids}`, ...also(x)])}`;
      });
      // Grouped by the page's id, not the counted rows' key: the planner then expects at most its guess of the
      // page's distinct ids, where a guess of one row per counted row multiplies the estimate of every later
      // join of the page (seen as billions on the interface page).
      this.hoisted.set(h, {
        rows: sql`SELECT ${column(TOP, 'id')}, count(*)::int AS "n" FROM ${ident(from)} AS ${ident(TOP)} JOIN (${join(keyed, ' UNION ALL ')}) AS "u" ON "u"."id" = ${column(TOP, 'id')} GROUP BY ${column(TOP, 'id')}`,
        join: sql`LEFT JOIN ${ident(h)} ON ${column(h, 'id')} = ${column(TOP, 'id')}`,
      });
    }
    return sql`coalesce(${column(h, 'n')}, 0)`;
  }

  url(model: ResolvedModel, alias: string): Sql {
    return urlSql(model, alias);
  }

  /** The display string, from the template or the named function. */
  display(model: ResolvedModel, alias: string): Sql {
    return displaySql(model, alias);
  }

  /** Name and value of every column of the representation, in order. */
  private columns(model: ResolvedModel, alias: string, form: Form, nested: boolean, omit: ReadonlySet<string>, depth: number): Array<[string, Sql]> {
    const out: Array<[string, Sql]> = [];
    const put = (name: string, value: () => Sql) => {
      if (omit.has(name)) return;
      const f = model.fields.get(name);
      if (f?.def.secret && (nested || !this.opts.revealSecrets)) return;
      if (f?.def.shown_with && (nested || !this.opts.revealShown)) return;
      out.push([name, value()]);
    };
    const implicit = (name: string): Sql | null => {
      switch (name) {
        case 'id':
          return column(alias, 'id');
        case 'url':
          return this.url(model, alias);
        case 'display':
          return this.display(model, alias);
        case 'created':
          return model.timestamps === false ? null : timestampValue(model, name, alias);
        case 'last_updated':
          return model.lastUpdated ? timestampValue(model, name, alias) : null;
        case '_depth':
          return model.tree ? this.depth(model, alias) : null;
        default: {
          const generic = model.fieldList.find((g) => g.kind === 'generic_fk' && (g.typeColumn === name || g.idColumn === name));
          return generic ? column(alias, name) : null;
        }
      }
    };
    if (form === 'brief') {
      for (const name of model.brief) {
        const f = model.fields.get(name);
        if (f) put(name, () => this.value(f, alias, 'brief', depth));
        else {
          const v = implicit(name);
          if (v) put(name, () => v);
        }
      }
      return out;
    }
    put('id', () => column(alias, 'id'));
    put('url', () => this.url(model, alias));
    put('display', () => this.display(model, alias));
    if (model.tree) put('_depth', () => this.depth(model, alias));
    for (const f of model.fieldList) {
      if (f.writeOnly) continue;
      if (f.kind === 'generic_fk') {
        put(f.typeColumn, () => column(alias, f.typeColumn));
        put(f.idColumn, () => column(alias, f.idColumn));
      }
      put(f.name, () => this.value(f, alias, 'full', depth));
    }
    if (model.timestamps !== false) put('created', () => timestampValue(model, 'created', alias));
    if (model.lastUpdated) put('last_updated', () => timestampValue(model, 'last_updated', alias));
    return out;
  }

  /** A tree node's depth: how many ancestors it has. */
  private depth(model: ResolvedModel, alias: string): Sql {
    return sql`(WITH RECURSIVE ${treeWalk('up', model.table, sql`"id" = ${column(alias, 'id')}`, 'up')} SELECT coalesce(max("depth"), 0) FROM "up")`;
  }

  /** One field's value in a representation. */
  value(f: ResolvedField, alias: string, form: Form, depth: number): Sql {
    const model = f.model;
    switch (f.kind) {
      case 'alias': {
        const v = this.value(f.aliasOf, alias, form, depth);
        return f.aliasOr ? sql`coalesce(${v}, ${this.value(f.aliasOr, alias, form, depth)})` : v;
      }
      case 'fk':
        // A plain foreign key is shown as the target's id (NetBox's PrimaryKeyRelatedField).
        if (f.def.plain) return column(alias, f.column);
        // A relation's name is "h_" and the column: past PostgreSQL's 63 characters, the object is built per row.
        if (this.hoistsFrom(alias, depth) && f.column.length <= 61) return this.hoistedById(f, this.opts.hoistFrom!, depth + 1);
        return this.nestedById(f.target, column(alias, f.column), depth + 1);
      case 'generic_fk':
        return this.genericObject(f, column(alias, f.typeColumn), column(alias, f.idColumn), depth + 1);
      case 'tags':
      case 'm2m':
        return this.links(f, alias, depth + 1);
      case 'count':
        return this.countOrHoisted(f, alias, depth);
      case 'net_count':
        return this.netCount(f, alias);
      case 'related':
        return this.related(f, alias, depth + 1);
      case 'children':
        return this.children(f, alias, depth + 1);
      case 'reverse_generic':
        return this.reverseGeneric(f, this.pointingAt(f, alias, depth + 1), depth + 1);
      case 'link_peers':
        return this.linkPeers(f, alias, this.pointingAt(f, alias, depth + 1), depth + 1);
      case 'config_context':
        return configContextJson(this.registry, f, alias);
      case 'custom_fields':
        return sql`coalesce(${column(alias, f.column)}, '{}'::jsonb)`;
      case 'computed':
        return this.computed(f, alias, form, depth);
      case 'choice':
        if (f.array) return sql`coalesce(${column(alias, f.column)}, '{}')`;
        return this.choice(f, f.choices, column(alias, f.column), form);
      case 'image':
        // The URL the file is served at (NetBox's MEDIA_URL, /media/), or null while there is none.
        return sql`CASE WHEN coalesce(${column(alias, f.column)}, '') = '' THEN NULL ELSE concat(${ORIGIN}::text, ${MEDIA_URL}::text, ${column(alias, f.column)}) END`;
      default:
        if (!f.column) throw new Error(`${model.label}.${f.name}: no SQL for a ${f.kind} field`);
        return storedValue(f, alias);
    }
  }

  /** {value, label} in full form; the plain value in brief and nested forms, and for `plain` fields; a blank choice is null. */
  private choice(f: ResolvedField, set: ChoiceSet, v: Sql, form: Form): Sql {
    const blank = set.numeric ? sql`${v}` : sql`NULLIF(${v}, '')`;
    if (form === 'brief' || f.def.plain) return blank;
    const labels = Object.fromEntries(set.entries.map((e) => [String(e.value), e.label]));
    const label = sql`coalesce(${JSON.stringify(labels)}::jsonb ->> (${v})::text, (${v})::text)`;
    return sql`CASE WHEN ${blank} IS NULL THEN NULL ELSE ${this.record([['value', v], ['label', label]])} END`;
  }

  private computed(f: ComputedField, alias: string, form: Form, depth: number): Sql {
    const model = f.model;
    const fn = f.def.fn!;
    let v: Sql;
    if (fn === 'display') v = this.display(model, alias);
    else {
      const named = COMPUTED_SQL[fn as Exclude<ComputedFunctionName, 'display'>];
      if (!named) throw new Error(`${model.label}.${f.name}: computed function ${fn} has no SQL`);
      // A count among the values read (a VLAN group's vlan_count) is computed here, in the same statement.
      v = named((f.def.from ?? []).map((name) => {
        const src = model.fields.get(name);
        return src?.kind === 'count' ? sql`(${this.countOrHoisted(src, alias, depth)})::text` : textOf(model, alias, name);
      }));
    }
    return f.choices ? this.choice(f, f.choices, v, form) : v;
  }

  /** The object a generic relation names: NULL unless its type is one the relation may point at. */
  genericObject(f: GenericField, typeExpr: Sql, idExpr: Sql, depth: number): Sql {
    const targets = f.genericTargets;
    if (!targets.length || depth > MAX_NESTING) return sql`NULL::json`;
    const branches = targets.map((m) => sql`WHEN ${m.label}::text THEN ${this.nestedById(m, idExpr, depth)}`);
    return sql`CASE ${typeExpr} ${join(branches, ' ')} END`;
  }

  /**
   * As genericObject, for an object at the far end of a link (a cable peer, a connected endpoint): one the
   * reader may not view is shown by its id and URL alone, so the link is seen but not what it leads to.
   * Every target's rows are asked for whatever the answer (compiled-representations learns from that which
   * types a representation depends on).
   */
  private viewedObject(f: GenericField, typeExpr: Sql, idExpr: Sql, depth: number): Sql {
    const targets = f.genericTargets;
    if (!targets.length || depth > MAX_NESTING) return sql`NULL::json`;
    const branches = targets.map((m) => sql`WHEN ${m.label}::text THEN ${this.viewedById(m, idExpr, depth)}`);
    return sql`CASE ${typeExpr} ${join(branches, ' ')} END`;
  }

  /** As nestedById, for an object reached along a link: in its brief form if the reader may view it, else by id and URL. */
  private viewedById(model: ResolvedModel, idExpr: Sql, depth: number): Sql {
    const rows = this.opts.view(model);
    if (rows === true) return this.nestedById(model, idExpr, depth);
    if (rows === false) return this.idOnly(model, idExpr);
    // The sub-select's own "t" is the linked row: the caller's conditions are written for that alias.
    const within = sql`${idExpr} IN (SELECT "t"."id" FROM ${ident(model.table)} AS "t" WHERE ${rows})`;
    return sql`CASE WHEN ${within} THEN ${this.nestedById(model, idExpr, depth)} ELSE ${this.idOnly(model, idExpr)} END`;
  }

  /** An object the reader may not view, by id and URL (idAndUrl); NULL when it is gone. */
  private idOnly(model: ResolvedModel, idExpr: Sql): Sql {
    const o = this.alias();
    return sql`(SELECT ${idAndUrl(model, o)} FROM ${ident(model.table)} AS ${ident(o)} WHERE ${column(o, 'id')} = ${idExpr})`;
  }

  /** The order a model's rows are listed in when nested in a list: its default ordering by stored columns, then id. */
  private orderOf(model: ResolvedModel, alias: string): Sql {
    const terms: Sql[] = [];
    for (const o of model.ordering) {
      const f = model.fields.get(o.field);
      const col = f?.column ?? (o.field === 'id' || o.field === 'created' || o.field === 'last_updated' ? o.field : null);
      if (!col) continue;
      terms.push(o.descending ? sql`${column(alias, col)} DESC` : column(alias, col));
    }
    terms.push(column(alias, 'id'));
    return join(terms);
  }

  /** A JSON array of the sub-select's objects, `[]` when there are none. */
  private array(item: Sql, from: Sql, order: Sql): Sql {
    return sql`coalesce((SELECT array_to_json(array_agg(${item} ORDER BY ${order})) ${from}), '[]'::json)`;
  }

  private links(f: LinkField, alias: string, depth: number): Sql {
    const target = f.target;
    if (depth > MAX_NESTING) return sql`'[]'::json`;
    const j = this.alias('j');
    const o = this.alias();
    const from = sql`FROM ${ident(f.joinTable)} AS ${ident(j)} JOIN ${ident(target.table)} AS ${ident(o)} ON ${column(o, 'id')} = ${column(j, 'target_id')} WHERE ${column(j, 'source_id')} = ${column(alias, 'id')}`;
    const key = f.def.by_key ? naturalKey(target) : undefined;
    // NetBox's SlugRelatedField: the targets' keys, in the targets' order.
    if (key) return this.array(column(o, key.column), from, this.orderOf(target, o));
    return this.array(this.object(target, o, 'brief', { nested: true, depth }), from, this.orderOf(target, o));
  }

  private count(f: CountField, alias: string): Sql {
    const id = column(alias, 'id');
    if (f.countAcross) {
      const parts = f.countAcross.map((l) => {
        const j = this.alias('j');
        return sql`SELECT 1 FROM ${ident(l.joinTable)} AS ${ident(j)} WHERE ${column(j, 'target_id')} = ${id}`;
      });
      return sql`(SELECT count(*)::int FROM (${join(parts, ' UNION ALL ')}) AS "u")`;
    }
    if (!f.countOf) throw new Error(`${f.model.label}.${f.name}: a count of nothing`);
    const { model: of, via } = f.countOf;
    const x = this.alias('x');
    if (via.kind === 'generic_fk') {
      return sql`(SELECT count(*)::int FROM ${ident(of.table)} AS ${ident(x)} WHERE ${column(x, via.typeColumn)} = ${f.model.label}::text AND ${column(x, via.idColumn)} = ${id})`;
    }
    if (via.kind !== 'fk') {
      return sql`(SELECT count(*)::int FROM ${ident(via.joinTable)} AS ${ident(x)} WHERE ${column(x, 'target_id')} = ${id})`;
    }
    if (f.model.tree && via.target === f.model && via.name !== 'parent') {
      // On a tree, rows attached to a descendant count too (a region's sites include its child regions'), as NetBox's cumulative counts.
      return sql`(WITH RECURSIVE ${treeWalk('d', f.model.table, sql`"id" = ${id}`, 'down')} SELECT count(*)::int FROM "d" JOIN ${ident(of.table)} AS ${ident(x)} ON ${column(x, via.column)} = "d"."id")`;
    }
    return sql`(SELECT count(*)::int FROM ${ident(of.table)} AS ${ident(x)} WHERE ${column(x, via.column)} = ${id})`;
  }

  /** Networks of the same model inside this one's network (children) or around it (depth), among rows sharing the `same` fields. */
  private netCount(f: NetCountField, alias: string): Sql {
    return netCountSql(f, alias, this.alias());
  }

  /** Fixed column values (a definition's `where`), as conditions on the alias. */
  private where(alias: string, where: Record<string, string | number | boolean>): Sql[] {
    return Object.entries(where).map(([col, v]) => sql`${column(alias, col)} = ${v}`);
  }

  private related(f: RelatedField, alias: string, depth: number): Sql {
    const { model: of, via } = f.countOf;
    const { where, shows } = f.relatedRows;
    const r = this.alias('x');
    const pointsHere =
      via.kind === 'generic_fk'
        ? sql`${column(r, via.typeColumn)} = ${f.model.label}::text AND ${column(r, via.idColumn)} = ${column(alias, 'id')}`
        : via.kind === 'fk'
          ? f.relatedRows.orVia
            ? sql`(${column(r, via.column)} = ${column(alias, 'id')} OR ${column(r, f.relatedRows.orVia.column)} = ${column(alias, 'id')})`
            : sql`${column(r, via.column)} = ${column(alias, 'id')}`
          : sql`FALSE`;
    const conditions = [pointsHere, ...this.where(r, where)];
    const { pick, rowAs } = f.relatedRows;
    if (pick) {
      // The object the row's foreign key names, in its brief form, with the row itself under rowAs (a device's
      // parent_device: the device holding the bay, and the bay). A correlated sub-select like the rest: no query per row.
      if (depth > MAX_NESTING) return sql`NULL::json`;
      const o = this.alias();
      const entries = this.columns(pick.target, o, 'brief', true, new Set(), depth);
      if (rowAs) entries.push([rowAs, this.object(of, r, 'brief', { nested: true, depth: depth + 1 })]);
      const from = sql`FROM ${ident(of.table)} AS ${ident(r)} JOIN ${ident(pick.target.table)} AS ${ident(o)} ON ${column(o, 'id')} = ${column(r, pick.column)} WHERE ${and(conditions)}`;
      if (f.def.single) return sql`(SELECT ${this.record(entries)} ${from} ORDER BY ${column(r, 'id')} LIMIT 1)`;
      return this.array(this.record(entries), from, column(r, 'id'));
    }
    const item = shows ? this.shown(of, r, shows, depth) : this.object(of, r, 'brief', { nested: true, depth });
    const from = sql`FROM ${ident(of.table)} AS ${ident(r)} WHERE ${and(conditions)}`;
    if (f.def.single) return sql`(SELECT ${item} ${from} ORDER BY ${column(r, 'id')} LIMIT 1)`;
    return this.array(item, from, column(r, 'id'));
  }

  /** A related row as a `related` field's `shows` lists it: id, url, display, then those fields as in a brief form. */
  private shown(model: ResolvedModel, alias: string, shows: ResolvedField[], depth: number): Sql {
    const entries: Array<[string, Sql]> = [['id', column(alias, 'id')], ['url', this.url(model, alias)], ['display', this.display(model, alias)]];
    for (const f of shows) if (!isConcealed(f)) entries.push([f.name, this.value(f, alias, 'brief', depth)]);
    return this.record(entries);
  }

  private children(f: ChildrenField, alias: string, depth: number): Sql {
    const { model: child, via, generic, where } = f.children;
    const c = this.alias('c');
    const item = this.record([
      ['object_type', column(c, generic.typeColumn)],
      ['object_id', column(c, generic.idColumn)],
      ['object', this.genericObject(generic, column(c, generic.typeColumn), column(c, generic.idColumn), depth)],
    ]);
    const from = sql`FROM ${ident(child.table)} AS ${ident(c)} WHERE ${and([sql`${column(c, via.column)} = ${column(alias, 'id')}`, ...this.where(c, where)])}`;
    return this.array(item, from, column(c, 'id'));
  }

  /** The row of another model whose generic relation points at this object (the first, by id). */
  private pointing(f: ReverseField, alias: string, h: string): Sql {
    return sql`FROM ${ident(f.reverse.model.table)} AS ${ident(h)} WHERE ${this.pointsAt(f, alias, h)}`;
  }

  /** The condition of pointing(): the holder row aliased `h` points at the object aliased `alias`. */
  private pointsAt(f: ReverseField, alias: string, h: string): Sql {
    const { via, where } = f.reverse;
    return and([sql`${column(h, via.typeColumn)} = ${f.model.label}::text AND ${column(h, via.idColumn)} = ${column(alias, 'id')}`, ...this.where(h, where)]);
  }

  /**
   * The rows pointing at the object aliased `alias`. In a list (hoistFrom), at the top level, the first of them
   * is read once per page row by a LATERAL join every field of the same relation shares (a component's five
   * cable fields, its four path fields), where each field would otherwise probe the table again on its own.
   */
  private pointingAt(f: ReverseField, alias: string, depth: number): Pointing {
    if (this.onListRow(alias, depth)) return this.sharedPointing(f);
    const h = this.alias('h');
    const mine = this.pointing(f, alias, h);
    return {
      first: (read) => sql`(SELECT ${read(h)} ${mine} ORDER BY ${column(h, 'id')} LIMIT 1)`,
      exists: sql`EXISTS (SELECT 1 ${mine})`,
      anyPeer: () => sql`EXISTS (SELECT 1 ${mine} AND EXISTS (SELECT 1 ${this.peersFrom(f, h, this.alias('p'))}))`,
    };
  }

  /** pointingAt for a list's top-level row: relations joined to the page, named by what they read (pointing-rows.ts). */
  private sharedPointing(f: ReverseField): Pointing {
    const lr = firstPointingName(f);
    if (!this.hoisted.has(lr)) {
      const h = this.alias('h');
      // One row per object (a cable termination): a plain join finds it, and the planner may read the table once
      // for the page rather than probe it per row. Otherwise the first by id, per row, as the per-field form reads it.
      const join = onePerObject(f)
        ? sql`LEFT JOIN ${ident(f.reverse.model.table)} AS ${ident(lr)} ON ${this.pointsAt(f, TOP, lr)}`
        : sql`LEFT JOIN LATERAL (SELECT ${ident(h)}.* ${this.pointing(f, TOP, h)} ORDER BY ${column(h, 'id')} LIMIT 1) AS ${ident(lr)} ON TRUE`;
      this.hoisted.set(lr, { join });
    }
    const found = sql`${column(lr, 'id')} IS NOT NULL`;
    const anyPeer = (): Sql => {
      const lp = anyPeerName(f);
      if (!this.hoisted.has(lp)) {
        const p = this.alias('p');
        // One row per object: its peers are those of the first row. Otherwise any row's count, as the per-field form asks.
        let test: Sql;
        if (onePerObject(f)) test = sql`EXISTS (SELECT 1 ${this.peersFrom(f, lr, p)})`;
        else {
          const h = this.alias('h');
          test = sql`EXISTS (SELECT 1 ${this.pointing(f, TOP, h)} AND EXISTS (SELECT 1 ${this.peersFrom(f, h, p)}))`;
        }
        // Evaluated once per row, for connection_status (twice), connected_endpoints and _reachable alike.
        this.hoisted.set(lp, { join: sql`LEFT JOIN LATERAL (SELECT ${test} AS "v") AS ${ident(lp)} ON TRUE` });
      }
      return column(lp, 'v');
    };
    return { first: (read) => sql`CASE WHEN ${found} THEN ${read(lr)} END`, exists: sql`(${found})`, anyPeer };
  }

  /** hoistsFrom, asked with a field's own depth (one below its object's, as link and reverse fields are compiled). */
  private onListRow(alias: string, depth: number): boolean {
    return this.hoistsFrom(alias, depth - 1);
  }

  /**
   * Whether a row of a link_peers field's or_link model (a wireless link) joins the object: on a list page's
   * row, one read shared by link_peers and link_peers_type; elsewhere an EXISTS over `linkFrom`.
   */
  private linkRowExists(orLink: NonNullable<ReverseField['reverse']['orLink']>, alias: string, depth: number, linkFrom: Sql): Sql {
    if (!this.onListRow(alias, depth)) return sql`EXISTS (SELECT 1 ${linkFrom})`;
    const lw = linkRowName(orLink.model.table, orLink.a.column, orLink.b.column);
    if (!this.hoisted.has(lw)) {
      const l = this.alias('l');
      const joins = sql`${column(l, orLink.a.column)} = ${column(TOP, 'id')} OR ${column(l, orLink.b.column)} = ${column(TOP, 'id')}`;
      this.hoisted.set(lw, { join: sql`LEFT JOIN LATERAL (SELECT ${column(l, 'id')} FROM ${ident(orLink.model.table)} AS ${ident(l)} WHERE ${joins} LIMIT 1) AS ${ident(lw)} ON TRUE` });
    }
    return sql`(${column(lw, 'id')} IS NOT NULL)`;
  }

  private reverseGeneric(f: ReverseField, rows: Pointing, depth: number): Sql {
    if (f.def.as === 'exists') return rows.exists;
    const pick = f.reverse.pick;
    if (!pick) return rows.first((h) => column(h, 'id'));
    // The object the attaching row names (a component's cable) is along a link too: shown as link peers are.
    if (pick.kind === 'fk') return rows.first((h) => this.viewedById(pick.target, column(h, pick.column), depth));
    if (!hasColumn(pick)) throw new Error(`${f.model.label}.${f.name}: picks ${pick.name}, which has no column`);
    const v = rows.first((h) => storedValue(pick, h));
    return pick.nullable ? v : sql`coalesce(${v}, '')`;
  }

  /** The rows across the link from the holder row aliased `h`: its group (the cable), on another side. */
  private peersFrom(f: ReverseField, h: string, p: string): Sql {
    const { model: holder, group, side } = f.reverse;
    if (!group?.column || !side?.column) throw new Error(`${f.model.label}.${f.name}: link_peers needs stored group and side fields`);
    return sql`FROM ${ident(holder.table)} AS ${ident(p)} WHERE ${column(p, group.column)} = ${column(h, group.column)} AND ${column(p, side.column)} IS DISTINCT FROM ${column(h, side.column)}`;
  }

  /** The objects at the other end of this object's link (the interfaces across its cable). */
  private linkPeers(f: ReverseField, alias: string, rows: Pointing, depth: number): Sql {
    const { via } = f.reverse;
    const p = this.alias('p');
    const peerObject = this.viewedObject(via, column(p, via.typeColumn), column(p, via.idColumn), depth);
    // This object's own row first (the one pointing at it), then its peers across the group.
    const peers = rows.first((h) => this.array(peerObject, this.peersFrom(f, h, p), column(p, 'id')));
    const orLink = f.reverse.orLink;
    // Without a row of `of` (no cable), the other end of a link row joining this object (a wireless link).
    const l = this.alias('l');
    const linkFrom = orLink ? sql`FROM ${ident(orLink.model.table)} AS ${ident(l)} WHERE ${column(l, orLink.a.column)} = ${column(alias, 'id')} OR ${column(l, orLink.b.column)} = ${column(alias, 'id')}` : null;
    const otherEnd = orLink ? sql`CASE WHEN ${column(l, orLink.a.column)} = ${column(alias, 'id')} THEN ${column(l, orLink.b.column)} ELSE ${column(l, orLink.a.column)} END` : null;
    switch (f.def.as) {
      case 'type': {
        const cabled = rows.first((h) => sql`(SELECT ${column(p, via.typeColumn)} ${this.peersFrom(f, h, p)} ORDER BY ${column(p, 'id')} LIMIT 1)`);
        return linkFrom && orLink ? sql`coalesce(${cabled}, CASE WHEN ${this.linkRowExists(orLink, alias, depth, linkFrom)} THEN ${f.model.label}::text END)` : cabled;
      }
      case 'reachable': {
        // A flag this object's own row holds (a path's origin: complete and active), null without a row; else whether a peer exists.
        const pick = f.reverse.pick;
        if (pick?.column) {
          const flag = pick.column;
          return rows.first((h) => column(h, flag));
        }
        return sql`CASE WHEN ${rows.anyPeer()} THEN TRUE END`;
      }
      case 'endpoints':
        // NetBox's connected_endpoints: null unless there is something at the far end (a complete path).
        return sql`CASE WHEN ${rows.anyPeer()} THEN ${peers} END`;
      case 'status': {
        const anyPeer = rows.anyPeer();
        return sql`CASE WHEN ${rows.exists} THEN ${this.record([['value', anyPeer], ['label', sql`CASE WHEN ${anyPeer} THEN 'Connected' ELSE 'Not Connected' END`]])} END`;
      }
      default:
        if (linkFrom && otherEnd && orLink) {
          const across = this.array(this.viewedById(f.model, otherEnd, depth), linkFrom, column(l, 'id'));
          // On a list page, the array is read only for the rows a link joins: the shared test answers for the others.
          if (this.onListRow(alias, depth)) return sql`coalesce(${peers}, CASE WHEN ${this.linkRowExists(orLink, alias, depth, linkFrom)} THEN ${across} ELSE '[]'::json END)`;
          return sql`coalesce(${peers}, ${across})`;
        }
        return sql`coalesce(${peers}, '[]'::json)`;
    }
  }
}
