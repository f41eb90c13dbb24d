/**
 * What the derived suite knows about filters, written once per kind of filter, never per model:
 * how to classify a filter of the engine's filter table, which values to query it with (taken from
 * generated objects), and an independent oracle that says which rows each query must return.
 */
import type { Filter } from '../../../engine/definitions/generated/model-definition';
import type { ResolvedField, ResolvedModel } from '../../../engine/definitions/registry-types';
import type { FilterDef } from '../../../engine/filters/filter-table';
import { naturalKey } from '../../../engine/filters/relation-filters';
import { containsOrEquals, formatNet, hostOf, networkOf, parseNet, sameNet, strictlyContains, type Net } from './ip-math';
import { genericNames, type Rep } from './object-factory';

/** Every row of every model, as the API lists them: label -> id -> representation. */
export type Universe = Map<string, Map<number, Rep>>;

export type ValueType =
  | 'string' | 'mac' | 'array' | 'ordered' | 'boolean' | 'choice' | 'cidr' | 'inet'
  | 'relation' | 'set' | 'generic-type' | 'generic-id' | 'net';

export interface Family {
  /** Coverage label: the kind of filter this is ("string", "fk _id (tree descendants)", "declared net_contained"...). */
  kind: string;
  valueType: ValueType;
  /** Which generated set of objects provides the sample values: "main", "path:<a.b>" or "net:<field>". */
  set: string;
  /** The row's value for this filter, null when unset (or a relation on the way is unset). */
  extract(row: Rep, u: Universe): unknown;
  order?: 'number' | 'date' | 'datetime';
  numeric?: boolean;
  target?: ResolvedModel;
  descend?: boolean;
  byKey?: boolean;
  /** set: whether repeated values must all be present (tags) or any (m2m). */
  all?: boolean;
  netLookup?: string;
  /** The value kind a net filter parses (cidr, inet, integer). */
  netValue?: string;
}

export interface Check {
  lookup: string;
  values: string[];
}

export function paramOf(name: string, lookup: string): string {
  return lookup === 'exact' ? name : `${name}__${lookup}`;
}

const choiceValue = (v: unknown): unknown => (v !== null && typeof v === 'object' && 'value' in (v as object) ? (v as { value: unknown }).value : v);
const idOf = (v: unknown): number | null => (v !== null && typeof v === 'object' ? ((v as { id: number }).id ?? null) : null);

/** Whether a relation to `target` through `field` also matches the targets' descendants (trees, but not a tree's own parent filter). */
function descends(field: ResolvedField): boolean {
  const target = field.target!;
  return target.tree && !(target === field.model && field.name === 'parent');
}

/** The family of a scalar field (also the last field of a declared path), reading values through `read`. */
function scalarFamily(field: ResolvedField, set: string, read: (row: Rep, u: Universe) => unknown): Family | string {
  const base = { set, extract: read };
  if (field.kind === 'computed') {
    if (!field.choices) return `computed field ${field.name} without choices`;
    return { ...base, kind: 'computed choice', valueType: 'choice', numeric: field.choices.numeric, extract: (r, u) => choiceValue(read(r, u)) };
  }
  if (field.kind === 'choice') return { ...base, kind: 'choice', valueType: 'choice', numeric: field.choices!.numeric, extract: (r, u) => choiceValue(read(r, u)) };
  if (field.array) return ['string', 'text', 'slug'].includes(field.kind) ? { ...base, kind: 'array membership', valueType: 'array' } : `array of ${field.kind}`;
  switch (field.kind) {
    case 'string':
    case 'text':
    case 'slug':
      return { ...base, kind: 'string', valueType: 'string' };
    case 'integer':
    case 'positive_integer':
    case 'decimal':
    case 'float':
      return { ...base, kind: 'numeric', valueType: 'ordered', order: 'number' };
    case 'date':
      return { ...base, kind: 'date', valueType: 'ordered', order: 'date' };
    case 'datetime':
      return { ...base, kind: 'datetime', valueType: 'ordered', order: 'datetime' };
    case 'boolean':
      return { ...base, kind: 'boolean', valueType: 'boolean' };
    case 'cidr':
      return { ...base, kind: 'cidr', valueType: 'cidr' };
    case 'inet':
      return { ...base, kind: 'inet', valueType: 'inet' };
    case 'mac':
      return { ...base, kind: 'mac', valueType: 'mac' };
    default:
      return `no oracle for a ${field.kind} field`;
  }
}

/**
 * One step of a declared path: a field, and the model it leads to (a foreign key's target, or the type
 * a generic relation is narrowed to with `name[app.model]`).
 */
export interface Hop {
  field: ResolvedField;
  target?: ResolvedModel;
  /** A generic relation narrowed to one type. */
  typeLabel?: string;
}

/** The steps of a dotted path from the model: site.region, assigned_object[dcim.interface].device. */
export function pathFields(model: ResolvedModel, path: string): Hop[] {
  const out: Hop[] = [];
  let current = model;
  for (const part of path.match(/[^.[\]]+(?:\[[^\]]*\])?/g) ?? []) {
    const m = /^([a-z_][a-z0-9_]*)(?:\[([a-z0-9_]+\.[a-z0-9_]+)\])?$/.exec(part);
    const f = m ? current.fields.get(m[1]!) : undefined;
    if (!m || !f) throw new Error(`${model.label}: no field ${part} on the way of ${path}`);
    if (m[2]) {
      const target = f.genericTargets === 'any' ? undefined : f.genericTargets?.find((x) => x.label === m[2]);
      if (!target) throw new Error(`${model.label}: ${part} names a type the relation cannot hold`);
      out.push({ field: f, target, typeLabel: m[2] });
      current = target;
    } else {
      out.push({ field: f, target: f.target });
      if (f.target) current = f.target;
    }
  }
  return out;
}

/** The id a hop points at from a row: a foreign key's id, or a generic relation's id when its type matches. */
function hopId(hop: Hop, row: Rep): number | null {
  if (hop.field.kind === 'generic_fk') {
    const g = genericNames(hop.field);
    return hop.typeLabel && row[g.type] !== hop.typeLabel ? null : ((row[g.id] as number | null) ?? null);
  }
  return idOf(row[hop.field.name]);
}

/** Follows the hops of a path but the last; null when one of them is unset. */
function walk(hops: Hop[], row: Rep, u: Universe): Rep | null {
  let current: Rep | null = row;
  for (const hop of hops.slice(0, -1)) {
    const id = hopId(hop, current!);
    if (id === null) return null;
    current = u.get(hop.target!.label)!.get(id) ?? null;
    if (!current) return null;
  }
  return current;
}

/** A filter of the engine's table -> its family, or why the suite cannot test it (the test then fails). */
export function classify(model: ResolvedModel, def: FilterDef): Family | string {
  const spec: Filter | undefined = model.def.filters?.[def.name];
  if (spec) {
    const path = spec.field ?? def.name;
    const hops = pathFields(model, path);
    const lastHop = hops[hops.length - 1]!;
    const last = lastHop.field;
    const read = (row: Rep, u: Universe) => {
      const holder = walk(hops, row, u);
      return holder ? holder[last.name] : null;
    };
    if (spec.lookup === 'is_set') {
      return {
        kind: 'declared is_set',
        valueType: 'boolean',
        set: `path:${path}`,
        extract: (r, u) => {
          const holder = walk(hops, r, u);
          if (!holder) return false;
          return last.kind === 'generic_fk' ? holder[genericNames(last).type] != null : last.kind === 'fk' ? idOf(holder[last.name]) !== null : holder[last.name] != null;
        },
      };
    }
    if ((spec.lookup === 'fk_id' || spec.lookup === 'fk_key') && lastHop.typeLabel) {
      // The generic relation itself, narrowed to one type: its id when the type matches.
      return {
        kind: `declared ${spec.lookup} (generic, one type)`,
        valueType: 'relation',
        set: `path:${path}`,
        extract: (r, u) => {
          const holder = walk(hops, r, u);
          return holder ? hopId(lastHop, holder) : null;
        },
        target: lastHop.target!,
        descend: false,
        byKey: spec.lookup === 'fk_key',
      };
    }
    if (spec.lookup === 'fk_id' || spec.lookup === 'fk_key') {
      return {
        kind: `declared ${spec.lookup}${descends(last) ? ' (tree descendants)' : ''}`,
        valueType: 'relation',
        set: `path:${path}`,
        extract: (r, u) => idOf(read(r, u)),
        target: last.target!,
        descend: descends(last),
        byKey: spec.lookup === 'fk_key',
      };
    }
    if (spec.lookup === 'field') {
      const inner = scalarFamily(last, `path:${path}`, read);
      return typeof inner === 'string' ? inner : { ...inner, kind: `declared field (${inner.kind})` };
    }
    if (spec.lookup.startsWith('net_')) {
      return { kind: `declared ${spec.lookup}`, valueType: 'net', set: `net:${path}`, extract: read, netLookup: spec.lookup, netValue: def.kind };
    }
    return `no oracle for declared lookup ${spec.lookup}`;
  }
  if (!def.field) {
    if (def.name === 'id') return { kind: 'id', valueType: 'ordered', order: 'number', set: 'main', extract: (r) => r.id };
    if (def.name === 'created' || def.name === 'last_updated') {
      const order = def.name === 'created' && model.timestamps === 'date' ? 'date' : 'datetime';
      return { kind: def.name, valueType: 'ordered', order, set: 'main', extract: (r) => r[def.name] ?? null };
    }
    return `filter ${def.name} belongs to no field`;
  }
  const field = def.field;
  switch (field.kind) {
    case 'fk': {
      const byKey = def.name === field.name;
      if (!byKey && def.name !== `${field.name}_id`) return `fk filter ${def.name} is neither ${field.name}_id nor ${field.name}`;
      const tree = descends(field) ? ' (tree descendants)' : field.target!.tree ? ' (tree parent, direct)' : '';
      return { kind: `fk ${byKey ? 'natural key' : '_id'}${tree}`, valueType: 'relation', set: 'main', extract: (r) => idOf(r[field.name]), target: field.target!, descend: descends(field), byKey };
    }
    case 'm2m': {
      const byKey = def.name === field.name;
      return { kind: `m2m ${byKey ? 'natural key' : '_id'}`, valueType: 'set', set: 'main', extract: (r) => (r[field.name] as Rep[]).map((x) => x.id), target: field.target!, byKey, all: false };
    }
    case 'tags':
      return { kind: 'tags', valueType: 'set', set: 'main', extract: (r) => (r[field.name] as Rep[]).map((x) => x.id), target: field.target!, byKey: true, all: true };
    case 'generic_fk': {
      const g = genericNames(field);
      if (def.name === g.type) return { kind: 'generic _type', valueType: 'generic-type', set: 'main', extract: (r) => r[g.type] ?? null };
      if (def.name === g.id) return { kind: 'generic _id', valueType: 'generic-id', set: 'main', extract: (r) => r[g.id] ?? null };
      return `generic filter ${def.name}`;
    }
    default:
      return scalarFamily(field, 'main', (r) => (field.name in r ? r[field.name] : null));
  }
}

const swapCase = (s: string) => [...s].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');

function keyOf(target: ResolvedModel, id: number, u: Universe): string {
  const key = naturalKey(target);
  if (!key) throw new Error(`${target.label} has no natural key`);
  const v = u.get(target.label)!.get(id)?.[key.name];
  if (v === null || v === undefined) throw new Error(`${target.label} ${id} has no ${key.name}`);
  return String(v);
}

function idOfKey(target: ResolvedModel, key: string, u: Universe): number | undefined {
  const k = naturalKey(target)!;
  for (const row of u.get(target.label)!.values()) if (String(row[k.name]) === key) return row.id;
  return undefined;
}

function descendantsOf(target: ResolvedModel, ids: number[], u: Universe): Set<number> {
  const out = new Set(ids);
  const rows = [...u.get(target.label)!.values()];
  let grew = true;
  while (grew) {
    grew = false;
    for (const r of rows) {
      const p = idOf(r.parent);
      if (p !== null && out.has(p) && !out.has(r.id)) {
        out.add(r.id);
        grew = true;
      }
    }
  }
  return out;
}

function required<T>(v: T | null | undefined, what: string): T {
  if (v === null || v === undefined) throw new Error(`the generated objects have no value for ${what}`);
  return v;
}

/**
 * The queries to run for one filter, with values taken from the generated set (A, B, C[, D]).
 * Every lookup the filter accepts gets at least one; a lookup without a generator is an error.
 */
export function checksFor(fam: Family, def: FilterDef, set: Rep[], u: Universe, lookups: readonly string[] = def.lookups, thin = false): Check[] {
  const [A, B] = set as [Rep, Rep];
  const a = fam.extract(A, u);
  const b = fam.extract(B, u);
  const what = `${def.name} of the generated objects`;
  const per: Record<string, string[][]> = {};
  const s = (x: unknown) => String(required(x, what));
  switch (fam.valueType) {
    case 'string': {
      const av = s(a);
      Object.assign(per, {
        exact: [[av], [av, s(b)], [swapCase(av)]],
        n: [[av]],
        ic: [[swapCase(av.slice(1, -1))]], nic: [[swapCase(av.slice(1, -1))]],
        isw: [[swapCase(av.slice(0, 2))]], nisw: [[swapCase(av.slice(0, 2))]],
        iew: [[swapCase(av.slice(-2))]], niew: [[swapCase(av.slice(-2))]],
        ie: [[swapCase(av)]], nie: [[swapCase(av)]],
        empty: [['true'], ['false']],
      });
      break;
    }
    case 'mac': {
      const av = s(a);
      Object.assign(per, {
        exact: [[av], [av.toLowerCase().replace(/:/g, '-')], [av, s(b)]],
        n: [[av]],
        ic: [[av.slice(3, -3).toLowerCase()]], nic: [[av.slice(3, -3)]],
        isw: [[av.slice(0, 8)]], nisw: [[av.slice(0, 8)]],
        iew: [[av.slice(-5)]], niew: [[av.slice(-5)]],
        ie: [[av.toLowerCase()]], nie: [[av.toLowerCase()]],
        empty: [['true'], ['false']],
      });
      break;
    }
    case 'array': {
      const av = required((a as string[] | null)?.[0], what);
      const bv = required((b as string[] | null)?.[0], what);
      Object.assign(per, { exact: [[av], [av, bv]], n: [[av]] });
      break;
    }
    case 'ordered': {
      const av = s(a);
      const bv = s(b);
      Object.assign(per, {
        exact: [[av], [av, bv]], n: [[av]],
        lt: [[bv]], lte: [[bv]], gt: [[av]], gte: [[av], [bv]],
        empty: [['true'], ['false']],
      });
      break;
    }
    case 'boolean':
      per.exact = [['true'], ['false'], ['1'], ['0']];
      break;
    case 'choice':
      Object.assign(per, { exact: [[s(a)], [s(a), s(b)]], n: [[s(a)]], empty: [['true'], ['false']] });
      break;
    case 'cidr': {
      const net = parseNet(s(a));
      // The same network written with host bits set matches too (values are normalised).
      const withHost = net.len < (net.family === 4 ? 32 : 128) ? formatNet({ ...net, bits: net.bits + 1n }) : s(a);
      Object.assign(per, { exact: [[s(a)], [withHost], [s(a), s(b)]], n: [[s(a)]], empty: [['true'], ['false']] });
      break;
    }
    case 'inet': {
      const net = parseNet(s(a));
      const otherMask = formatNet({ ...net, len: net.len === 8 ? 9 : 8 });
      Object.assign(per, { exact: [[s(a)], [formatNet(net, false)], [otherMask], [s(a), s(b)]], n: [[s(a)], [formatNet(net, false)]], empty: [['true'], ['false']] });
      break;
    }
    case 'relation': {
      const ta = required(a as number | null, what);
      const tb = required(b as number | null, what);
      if (fam.byKey) {
        Object.assign(per, { exact: [[keyOf(fam.target!, ta, u)], [keyOf(fam.target!, tb, u)], [keyOf(fam.target!, ta, u), 'null']], n: [[keyOf(fam.target!, ta, u)]] });
      } else {
        Object.assign(per, { exact: [[String(ta)], [String(tb)], [String(ta), String(tb)], ['null']], n: [[String(ta)], ['null']] });
      }
      break;
    }
    case 'set': {
      const as = a as number[];
      const bs = b as number[];
      const common = required(bs.find((x) => as.includes(x)), what);
      const only = required(as.find((x) => !bs.includes(x)), what);
      const v = (id: number) => (fam.byKey ? keyOf(fam.target!, id, u) : String(id));
      Object.assign(per, { exact: [[v(common)], [v(only)], [v(common), v(only)]], n: [[v(common)], [v(only)]] });
      break;
    }
    case 'generic-type': {
      // With no target type defined yet every row is unset; any defined type is still a valid value.
      const av = (a as string | null) ?? def.field!.model.label;
      const bv = (b as string | null) ?? av;
      Object.assign(per, { exact: [[av], [av, bv]], n: [[av]] });
      break;
    }
    case 'generic-id': {
      const av = String((a as number | null) ?? 1);
      const bv = String((b as number | null) ?? 2);
      Object.assign(per, { exact: [[av], [av, bv]], n: [[av]] });
      break;
    }
    case 'net': {
      const nets = set.map((r) => parseNet(s(fam.extract(r, u))));
      const lens = [...new Set(nets.map((n) => n.len))].map(String);
      if (fam.netValue === 'integer') {
        Object.assign(per, { exact: [[lens[0]!], [lens[0]!, lens[1]!]], n: [[lens[0]!]], gte: [[lens[1]!]], lte: [[lens[1]!]], gt: [[lens[0]!]], lt: [[lens[1]!]] });
      } else if (fam.netValue === 'inet') {
        // An address inside each object's network, and each network itself.
        const hosts = nets.map((n) => formatNet({ ...networkOf(n), bits: networkOf(n).bits + 1n }, false));
        per.exact = [...hosts.map((h) => [h]), ...nets.map((n) => [formatNet(networkOf(n))]), [hosts[0]!, hosts[hosts.length - 1]!]];
      } else {
        const supernet = formatNet(networkOf({ ...nets[0]!, len: Math.max(nets[0]!.len - 8, 0) }));
        per.exact = [...nets.map((n) => [formatNet(networkOf(n))]), [supernet], [formatNet(networkOf(nets[1]!)), formatNet(networkOf(nets[nets.length - 1]!))]];
      }
      break;
    }
  }
  const checks: Check[] = [];
  for (const lookup of lookups) {
    const values = per[lookup];
    if (!values) throw new Error(`no generated query for lookup ${lookup} of ${fam.kind} filter ${def.name}`);
    for (const v of thin ? values.slice(0, 1) : values) checks.push({ lookup, values: v });
  }
  return checks;
}

/** Known filters given values they cannot take: each must be a 400 naming the parameter. */
export function invalidChecks(fam: Family, def: FilterDef): Check[] {
  const out: Check[] = [];
  const add = (lookup: string, value: string) => {
    if (def.lookups.includes(lookup)) out.push({ lookup, values: [value] });
  };
  switch (fam.valueType) {
    case 'string':
    case 'array':
      add('empty', 'maybe');
      add('exact', 'bad\u0000value');
      break;
    case 'mac':
      add('exact', 'not-a-mac');
      add('n', '00:11:22:33:44');
      break;
    case 'ordered':
      if (fam.order === 'number') {
        add('exact', 'abc');
        add('lt', '1e400');
        add('gte', '');
      } else if (fam.order === 'date') {
        add('exact', 'not-a-date');
        add('gt', '2021-02-30x');
      } else {
        add('exact', 'not-a-time');
        add('lte', '2021-02-03T25:99');
      }
      add('empty', 'maybe');
      break;
    case 'boolean':
      add('exact', 'maybe');
      break;
    case 'choice':
      add('exact', 'bogus-choice');
      if (fam.numeric) add('exact', '5');
      add('n', 'bogus-choice');
      break;
    case 'cidr':
    case 'inet':
      add('exact', 'not-an-ip');
      add('exact', '10.0.0.0/33');
      break;
    case 'relation':
      if (fam.byKey) add('exact', 'no-such-object-zz9');
      else {
        add('exact', 'abc');
        add('exact', '999999999');
        add('n', '1.5');
      }
      break;
    case 'set':
      add('exact', fam.byKey ? 'no-such-object-zz9' : 'abc');
      break;
    case 'generic-type':
      add('exact', 'no.such');
      break;
    case 'generic-id':
      add('exact', 'abc');
      break;
    case 'net':
      add('exact', fam.netValue === 'integer' ? 'abc' : 'not-an-ip');
      break;
  }
  return out;
}

function compareOrdered(order: Family['order'], v: unknown, x: string): number {
  if (order === 'number') return Number(v) - Number(x);
  if (order === 'date') return String(v) < x ? -1 : String(v) > x ? 1 : 0;
  return Date.parse(String(v)) - Date.parse(x);
}

function netOf(v: unknown): Net | null {
  return v === null || v === undefined ? null : parseNet(String(v));
}

/** String lookups that negate another (nic is "not ic"). */
const NEGATED_PATTERNS = new Set(['nic', 'nisw', 'niew', 'nie']);

const EMPTY_TRUE = (x: string) => ['true', '1'].includes(x.toLowerCase());

/** The oracle: whether the row belongs in the result of `lookup` with `values`, by NetBox's rules. */
export function matches(fam: Family, lookup: string, values: string[], row: Rep, u: Universe): boolean {
  const v = fam.extract(row, u);
  const positive = (l: string): boolean => {
    switch (fam.valueType) {
      case 'string':
      case 'mac': {
        const text = v === null || v === undefined ? null : fam.valueType === 'mac' ? String(v).toLowerCase() : String(v);
        const norm = (x: string) => (fam.valueType === 'mac' ? x.toLowerCase().replace(/-/g, ':') : x);
        if (l === 'empty') return (text === null || text === '') === EMPTY_TRUE(values[0]!);
        if (text === null) return false;
        const lower = text.toLowerCase();
        return values.some((x) => {
          const xl = x.toLowerCase();
          switch (l) {
            case 'exact': return text === norm(x);
            case 'ic': return lower.includes(xl);
            case 'isw': return lower.startsWith(xl);
            case 'iew': return lower.endsWith(xl);
            case 'ie': return lower === xl;
            default: throw new Error(`oracle: string lookup ${l}`);
          }
        });
      }
      case 'array':
        return Array.isArray(v) && v.some((x) => values.includes(String(x)));
      case 'ordered': {
        if (l === 'empty') return (v === null || v === undefined) === EMPTY_TRUE(values[0]!);
        if (v === null || v === undefined) return false;
        return values.some((x) => {
          const c = compareOrdered(fam.order, v, x);
          return { exact: c === 0, lt: c < 0, lte: c <= 0, gt: c > 0, gte: c >= 0 }[l] ?? (() => { throw new Error(`oracle: ordered lookup ${l}`); })();
        });
      }
      case 'boolean':
        return v === EMPTY_TRUE(values[0]!);
      case 'choice':
        if (l === 'empty') return (v === null || v === '') === EMPTY_TRUE(values[0]!);
        return v !== null && values.includes(String(v));
      case 'cidr': {
        if (l === 'empty') return (v === null) === EMPTY_TRUE(values[0]!);
        const n = netOf(v);
        return n !== null && values.some((x) => sameNet(networkOf(parseNet(x)), n));
      }
      case 'inet': {
        if (l === 'empty') return (v === null) === EMPTY_TRUE(values[0]!);
        const n = netOf(v);
        if (!n) return false;
        return values.some((x) => (x.includes('/') ? sameNet(parseNet(x), n) : sameNet(parseNet(x), hostOf(n))));
      }
      case 'relation': {
        const wantsNull = values.includes('null');
        const named = values.filter((x) => x !== 'null').map((x) => (fam.byKey ? idOfKey(fam.target!, x, u) : Number(x)));
        const ids = named.filter((x): x is number => x !== undefined);
        const set = fam.descend ? descendantsOf(fam.target!, ids, u) : new Set(ids);
        return v === null ? wantsNull : set.has(v as number);
      }
      case 'set': {
        const ids = values.map((x) => (fam.byKey ? idOfKey(fam.target!, x, u)! : Number(x)));
        const have = v as number[];
        // Repeated tags must all be present; l is 'exact' here (n is the negation of "any").
        return l === 'exact' && fam.all ? ids.every((id) => have.includes(id)) : ids.some((id) => have.includes(id));
      }
      case 'generic-type':
        return v !== null && values.includes(String(v));
      case 'generic-id':
        return v !== null && values.includes(String(v));
      case 'net': {
        const n = netOf(v);
        if (!n) return false;
        return values.some((x) => {
          switch (fam.netLookup) {
            case 'net_contained': return strictlyContains(networkOf(parseNet(x)), n);
            case 'net_contained_or_equal': return containsOrEquals(networkOf(parseNet(x)), n);
            case 'net_contains_or_equals': return containsOrEquals(n, parseNet(x));
            case 'net_host_contained': return containsOrEquals(networkOf(parseNet(x)), hostOf(n));
            case 'net_mask_length': {
              const c = n.len - Number(x);
              return { exact: c === 0, gte: c >= 0, lte: c <= 0, gt: c > 0, lt: c < 0, n: c !== 0 }[l]!;
            }
            default: throw new Error(`oracle: net lookup ${fam.netLookup}`);
          }
        });
      }
    }
  };
  if (fam.valueType === 'net' && fam.netLookup === 'net_mask_length' && lookup === 'n') {
    // mask_length__n: none of the lengths.
    const n = netOf(v);
    return n !== null && values.every((x) => n.len !== Number(x));
  }
  if (lookup === 'n') return !positive(fam.valueType === 'set' ? 'any' : 'exact');
  if (NEGATED_PATTERNS.has(lookup)) return !positive(lookup.slice(1));
  return positive(lookup);
}
