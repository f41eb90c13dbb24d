/**
 * What the derived suite knows about filters, written once per kind of filter, never per model: which
 * filters a model's definition implies and with which lookups (expectedFilters: from the definition
 * files as written and the rules of docs/filtering.md, never from the engine's filter table), which
 * values to query each with (taken from generated objects), and an oracle that says which rows each
 * query must return.
 */
import type { Filter } from '../../../engine/definitions/generated/model-definition';
import { naturalKey, type Field, type Model } from './definitions';
import { containsOrEquals, formatNet, hostOf, networkOf, parseNet, sameNet, strictlyContains, type Net } from './ip-math';
import { genericNames, type Rep } from './object-factory';

/** Every row of every model, as the API lists them: label -> id -> representation. */
export type Universe = Map<string, Map<number, Rep>>;

export type ValueType =
  | 'string' | 'mac' | 'array' | 'ordered' | 'boolean' | 'choice' | 'cidr' | 'inet'
  | 'relation' | 'set' | 'generic-type' | 'generic-id' | 'net' | 'available-on' | 'content-type';

export interface Family {
  /** Coverage label: the kind of filter this is ("string", "fk _id (tree descendants)", "declared net_contained"...). */
  kind: string;
  /** The lookups a filter of this kind accepts (exact is the bare name). */
  lookups: readonly string[];
  valueType: ValueType;
  /** Which generated set of objects provides the sample values: "main", "path:<a.b>" or "net:<field>". */
  set: string;
  /** The row's value for this filter, null when unset (or a relation on the way is unset). */
  extract(row: Rep, u: Universe): unknown;
  order?: 'number' | 'date' | 'datetime';
  /** at_least / at_most: the bare name compares with this lookup of the field (time_after: gte). */
  bound?: 'gte' | 'lte';
  numeric?: boolean;
  target?: Model;
  descend?: boolean;
  byKey?: boolean;
  /** set: whether repeated values must all be present (tags) or any (m2m). */
  all?: boolean;
  netLookup?: string;
  /** The value kind a net filter parses (cidr, inet, integer). */
  netValue?: string;
  /**
   * Declared filters: the values a row has along each of the filter's paths (one, or through children
   * and reverse relations any number), with whether a relation match takes the target's descendants.
   * The filter matches when any value of any path does; a negated lookup when none does. `extract`
   * then gives the first value set, to sample query values from.
   */
  paths?: Array<{ values(row: Rep, u: Universe): unknown[]; descend?: boolean }>;
  /** Models the oracle reads besides the list's own (along declared paths). */
  reads?: string[];
  /** The model of the objects in the family's generated set, when not the list's own (available_on: the objects named). */
  setOf?: Model;
  /** available_on: whether the row is usable on the object of `setOf` with this id. */
  availableTo?(row: Rep, id: number, u: Universe): boolean;
  /** generic-type: a type label to query with when the generated rows hold none. */
  someType?: string;
  /** content-type: a row holding no type matches every type. */
  emptyMatchesAll?: boolean;
  /**
   * The filter's path reaches rows only the engine writes (the change log, cable paths), which the suite
   * cannot make for its sets: the named test file exercises it by hand instead.
   */
  elsewhere?: string;
}

/** Where filters through rows the engine writes itself are tested (see Family.elsewhere). */
export const ENGINE_ROWS_TEST = 'tests/filters/reverse-generic.test.ts';

/** A filter a definition implies: its name, and what it is (or why the suite cannot test it). */
export interface ExpectedFilter {
  name: string;
  fam: Family | string;
  /** id, created, last_updated: the same on every model, not derived from a field. */
  builtin: boolean;
}

/** The lookups of each kind of value (docs/filtering.md, "Lookups by field kind"). */
const STRING_LOOKUPS = ['exact', 'n', 'ic', 'nic', 'isw', 'nisw', 'iew', 'niew', 'ie', 'nie', 'empty'] as const;
const ORDERED_LOOKUPS = ['exact', 'n', 'lt', 'lte', 'gt', 'gte', 'empty'] as const;
const SET_LOOKUPS = ['exact', 'n', 'empty'] as const;
/** Relations (ids, natural keys, tags, generic types and ids) and lists of strings: equals, or not. */
const EQUAL_LOOKUPS = ['exact', 'n'] as const;
const EXACT_ONLY = ['exact'] as const;

export interface Check {
  lookup: string;
  values: string[];
}

export function paramOf(name: string, lookup: string): string {
  return lookup === 'exact' ? name : `${name}__${lookup}`;
}

const choiceValue = (v: unknown): unknown => (v !== null && typeof v === 'object' && 'value' in (v as object) ? (v as { value: unknown }).value : v);
/** A relation's id as shown: nested ({id, ...}), or the id itself for a plain foreign key (a saved filter's user). */
const idOf = (v: unknown): number | null => (typeof v === 'number' ? v : v !== null && typeof v === 'object' ? ((v as { id: number }).id ?? null) : null);

/** Whether a relation to `target` through `field` also matches the targets' descendants (trees, but not a tree's own parent filter). */
function descends(field: Field): boolean {
  const target = field.target!;
  return target.tree && !(target === field.model && field.name === 'parent');
}

/**
 * The family of a scalar field (also the last field of a declared path), reading values through `read`;
 * a string when the kind implies no filter the suite knows.
 */
function scalarFamily(field: Field, set: string, read: (row: Rep, u: Universe) => unknown): Family | string {
  const base = { set, extract: read };
  const choice = (kind: string): Family => ({ ...base, kind, valueType: 'choice', lookups: SET_LOOKUPS, numeric: field.choices!.numeric, extract: (r, u) => choiceValue(read(r, u)) });
  if (field.array) {
    // A list of type labels (content_types) takes the text lookups too: some label matches (none, negated).
    if (field.def.names_type && ['string', 'text', 'slug'].includes(field.kind)) return { ...base, kind: 'label list', valueType: 'array', lookups: ['exact', 'n', 'ic', 'nic', 'isw', 'nisw', 'iew', 'niew', 'ie', 'nie'] };
    if (['string', 'text', 'slug'].includes(field.kind)) return { ...base, kind: 'array membership', valueType: 'array', lookups: EQUAL_LOOKUPS };
    // A list of integers (a service's ports) filters by membership too, its values parsed as integers.
    return ['integer', 'positive_integer'].includes(field.kind) ? { ...base, kind: 'array membership (integers)', valueType: 'array', numeric: true, lookups: EQUAL_LOOKUPS } : `array of ${field.kind}`;
  }
  if (field.kind === 'computed') return field.choices ? choice('computed choice') : `computed field ${field.name} without choices`;
  if (field.kind === 'choice') return choice('choice');
  switch (field.kind) {
    case 'string':
    case 'text':
    case 'slug':
      return { ...base, kind: 'string', valueType: 'string', lookups: STRING_LOOKUPS };
    case 'integer':
    case 'positive_integer':
    case 'decimal':
    case 'float':
      return { ...base, kind: 'numeric', valueType: 'ordered', order: 'number', lookups: ORDERED_LOOKUPS };
    case 'date':
      return { ...base, kind: 'date', valueType: 'ordered', order: 'date', lookups: ORDERED_LOOKUPS };
    case 'datetime':
      return { ...base, kind: 'datetime', valueType: 'ordered', order: 'datetime', lookups: ORDERED_LOOKUPS };
    case 'boolean':
      return { ...base, kind: 'boolean', valueType: 'boolean', lookups: EXACT_ONLY };
    case 'cidr':
      return { ...base, kind: 'cidr', valueType: 'cidr', lookups: SET_LOOKUPS };
    case 'inet':
      return { ...base, kind: 'inet', valueType: 'inet', lookups: SET_LOOKUPS };
    case 'mac':
      return { ...base, kind: 'mac', valueType: 'mac', lookups: STRING_LOOKUPS };
    default:
      return `no oracle for a ${field.kind} field`;
  }
}

/**
 * One step of a declared path, from a row of one model to rows of another:
 * - fk: the foreign key's target (site.region);
 * - generic: a generic relation narrowed to one type with `name[app.model]` (assigned_object[dcim.interface]);
 * - rows: the rows of another model whose foreign key `via` points back at the row: those a children
 *   field lists, with its `where` (a_terminations: a cable's A-end terminations), or those of a reverse
 *   relation named by that key's related_name (terminations: a circuit's terminations). Any number.
 *   With `generic` (the row's type label), `via` is a generic relation followed back by its related_name
 *   (a site's contacts), and `where` may hold a list of values, any of which a row may hold
 *   (changes(action=create|update)).
 */
export type Hop =
  | { kind: 'fk'; field: Field; target: Model }
  | { kind: 'generic'; field: Field; target: Model; typeLabel: string }
  | { kind: 'rows'; via: Field; where: Record<string, unknown>; target: Model; children: boolean; generic?: string }
  | { kind: 'link'; field: Field; back: boolean; target: Model };

/** A declared path: the hops to the model holding the final field, and that field. */
export interface Route {
  path: string;
  hops: Hop[];
  /** The final field, on the holder (the last hop's target, or the list's own model). */
  field: Field;
  /** The final step is a generic relation narrowed to one type: the filter is about that relation. */
  narrowed?: Extract<Hop, { kind: 'generic' }>;
  /** A rows hop on the way: a row has any number of holders (none, one, several). */
  multi: boolean;
  /** The last step follows a many-to-many field back: the holders are the linking objects, and `field` is that m2m. */
  linkedBack?: boolean;
  /** The last step names a reverse relation (a device's interfaces): the holders are the rows pointing back, `field` their key. */
  reverseEnd?: boolean;
}

const STEP = /^([a-z_][a-z0-9_]*)(?:\[([a-z0-9_]+\.[a-z0-9_]+)\])?(?:\(([^()]+)\))?$/;

/** A step's conditions, `field=v1|v2,field=v`, as field -> the values it may hold (docs/model-authors.md, filters). */
function conditions(text: string): Record<string, unknown> {
  return Object.fromEntries(text.split(',').map((c) => {
    const [k, v] = c.split('=') as [string, string];
    return [k.trim(), v.split('|')];
  }));
}

/** A generic relation narrowed to a type it may hold. */
function narrowedHop(field: Field, typeLabel: string, path: string): Extract<Hop, { kind: 'generic' }> {
  const target = field.kind === 'generic_fk' ? field.genericTargets?.find((x) => x.label === typeLabel) : undefined;
  if (!target) throw new Error(`${field.model.label}.${field.name} cannot hold ${typeLabel} (path ${path})`);
  return { kind: 'generic', field, target, typeLabel };
}

/** The hop a field makes when the path goes on past it. */
function hopThrough(field: Field, path: string): Hop {
  if (field.kind === 'fk') return { kind: 'fk', field, target: field.target! };
  if (field.kind === 'm2m') return { kind: 'link', field, back: false, target: field.target! };
  if (field.kind === 'children') {
    const { model, via } = field.children!;
    // The definition's own where, by field name and API value (a_terminations: cable_end "A").
    return { kind: 'rows', via, where: field.def.where ?? {}, target: model, children: true };
  }
  throw new Error(`${field.model.label}.${field.name} is a ${field.kind} field, which a path cannot go through (path ${path})`);
}

/** Resolves a dotted path from the model: site.region, assigned_object[dcim.interface].device, terminations.site. */
export function routeOf(model: Model, path: string): Route {
  const parts = path.match(/[^.[\]]+(?:\[[^\]]*\])?/g) ?? [];
  const hops: Hop[] = [];
  let current = model;
  for (const [i, part] of parts.entries()) {
    const m = STEP.exec(part);
    if (!m) throw new Error(`${model.label}: bad step ${part} in ${path}`);
    const field = current.fields.get(m[1]!);
    const last = i === parts.length - 1;
    const backGeneric = field || m[2] ? undefined : current.reverseGenerics.find((f) => f.def.related_name === m[1]);
    if (backGeneric && !last) {
      // Another model's generic relation to this one, named by its related_name: its rows pointing here.
      hops.push({ kind: 'rows', via: backGeneric, where: m[3] ? conditions(m[3]) : {}, target: backGeneric.model, children: false, generic: current.label });
      current = backGeneric.model;
      continue;
    }
    if (m[3]) throw new Error(`${model.label}: a condition on ${part}, which is no generic relation followed back (${path})`);
    if (!field) {
      // Another model's foreign key to this one, named by its related_name.
      const back = m[2] ? undefined : current.reverse.find((f) => f.def.related_name === m[1]);
      // Another model's many-to-many field to this one, followed back; as the last step, the linking objects.
      const backLink = back || m[2] ? undefined : current.reverseLinks.find((f) => f.def.related_name === m[1]);
      if (backLink) {
        hops.push({ kind: 'link', field: backLink, back: true, target: backLink.model });
        current = backLink.model;
        if (last) return { path, hops, field: backLink, multi: true, linkedBack: true };
        continue;
      }
      if (!back) throw new Error(`${model.label}: no field ${part} on the way of ${path}`);
      hops.push({ kind: 'rows', via: back, where: {}, target: back.model, children: false });
      current = back.model;
      if (last) return { path, hops, field: back, multi: true, reverseEnd: true };
      continue;
    }
    if (last) return { path, hops, field, narrowed: m[2] ? narrowedHop(field, m[2], path) : undefined, multi: hops.some((h) => h.kind === 'rows' || h.kind === 'link') };
    const hop = m[2] ? narrowedHop(field, m[2], path) : hopThrough(field, path);
    hops.push(hop);
    current = hop.target;
  }
  throw new Error(`${model.label}: empty path`);
}

/** The id a generic relation holds when it holds an object of the narrowed type, else null. */
function narrowedId(hop: Extract<Hop, { kind: 'generic' }>, row: Rep): number | null {
  const g = genericNames(hop.field);
  return row[g.type] === hop.typeLabel ? ((row[g.id] as number | null) ?? null) : null;
}

/** The rows a hop leads to from one row, as the universe holds them: none when a relation is unset. */
function follow(hop: Hop, row: Rep, u: Universe): Rep[] {
  const rows = u.get(hop.target.label)!;
  if (hop.kind === 'link') {
    // Forward: the objects the row's list names; back: the objects whose list names the row.
    if (!hop.back) return ((row[hop.field.name] as Rep[] | undefined) ?? []).map((x) => rows.get(x.id as number)).filter((x): x is Rep => !!x);
    return [...rows.values()].filter((r) => ((r[hop.field.name] as Rep[] | undefined) ?? []).some((x) => x.id === row.id));
  }
  if (hop.kind === 'rows') {
    const holds = (r: Rep) => Object.entries(hop.where).every(([k, v]) => (Array.isArray(v) ? v.includes(choiceValue(r[k])) : choiceValue(r[k]) === v));
    if (hop.generic) {
      const g = genericNames(hop.via);
      return [...rows.values()].filter((r) => r[g.type] === hop.generic && r[g.id] === row.id && holds(r));
    }
    return [...rows.values()].filter((r) => idOf(r[hop.via.name]) === row.id && holds(r));
  }
  const id = hop.kind === 'fk' ? idOf(row[hop.field.name]) : narrowedId(hop, row);
  const next = id === null ? undefined : rows.get(id);
  return next ? [next] : [];
}

/** The rows holding the route's final field, reached from a row. */
export function holdersOf(route: Route, row: Rep, u: Universe): Rep[] {
  let at = [row];
  for (const hop of route.hops) at = at.flatMap((r) => follow(hop, r, u));
  return at;
}

/**
 * The values a row has along a route, `read` giving a holder's (null: the path is broken before it).
 * A single-valued path always has its holder's values, those of "unset" when broken; a path through
 * rows has the values of every holder it reaches, none when it reaches none.
 */
function along(route: Route, row: Rep, u: Universe, read: (holder: Rep | null) => unknown[]): unknown[] {
  const holders = holdersOf(route, row, u);
  return route.multi ? holders.flatMap((h) => read(h)) : read(holders[0] ?? null);
}

/** Every model the oracle reads for a route: those along it, the final relation's target, the rows pointing at a reverse generic field. */
export function routeModels(route: Route): string[] {
  const out = route.hops.map((h) => h.target.label);
  if (route.narrowed) out.push(route.narrowed.target.label);
  else if (route.field.target) out.push(route.field.target.label);
  if (route.field.kind === 'reverse_generic') out.push(route.field.reverse!.model.label);
  return out;
}

/** How the routes get to their holders, for the coverage label: ", several paths, through children". */
function routeKind(routes: Route[]): string {
  const rows = routes.flatMap((r) => r.hops).filter((h): h is Extract<Hop, { kind: 'rows' }> => h.kind === 'rows');
  const parts = [
    routes.length > 1 ? 'several paths' : '',
    rows.some((h) => h.children) ? 'through children' : '',
    rows.some((h) => !h.children && !h.generic) ? 'through a reverse relation' : '',
    rows.some((h) => h.generic) ? 'through a generic relation back' : '',
    routes.some((r) => r.hops.some((h) => h.kind === 'link' && !h.back)) ? 'through a many-to-many link' : '',
    routes.some((r) => r.hops.some((h) => h.kind === 'link' && h.back)) ? 'through a many-to-many link back' : '',
  ];
  return parts.filter(Boolean).map((p) => `, ${p}`).join('');
}

const qualified = (base: string, quals: string[]) => {
  const q = [...new Set(quals.filter(Boolean))];
  return q.length ? `${base} (${q.join(', ')})` : base;
};

/** Whether the route's final field is set on a holder: a relation that points somewhere, a flag that is on, a value. */
function isSetOn(route: Route, holder: Rep, u: Universe): boolean {
  const f = route.field;
  if (route.narrowed) return narrowedId(route.narrowed, holder) !== null;
  switch (f.kind) {
    case 'generic_fk':
      return holder[genericNames(f).type] != null;
    case 'fk':
      return idOf(holder[f.name]) !== null;
    case 'reverse_generic': {
      // Some row of the other model points at the holder through its generic relation (an interface's cable termination).
      const g = genericNames(f.reverse!.via);
      return [...u.get(f.reverse!.model.label)!.values()].some((r) => r[g.type] === f.model.label && r[g.id] === holder.id);
    }
    case 'boolean':
      return holder[f.name] === true;
    case 'image':
      // Shown as its URL, or null when there is no file.
      return typeof holder[f.name] === 'string' && holder[f.name] !== '';
    default:
      return holder[f.name] !== null && holder[f.name] !== undefined;
  }
}

/** The target a relation route's final field points at, and whether a match takes the target's descendants. */
function relationEnd(route: Route): { target: Model; descend: boolean; qual: string } | string {
  const f = route.field;
  if (route.narrowed) return { target: route.narrowed.target, descend: false, qual: 'generic, one type' };
  if (route.linkedBack) return { target: f.model, descend: false, qual: 'm2m followed back' };
  // A many-to-many link matches the ids it holds, without a tree's descendants.
  if (f.kind === 'm2m') return { target: f.target!, descend: false, qual: 'm2m' };
  if (f.kind === 'fk') return { target: f.target!, descend: descends(f), qual: descends(f) ? 'tree descendants' : '' };
  return `${route.path} ends on a ${f.kind} field, not a relation`;
}

/** The ids a relation route's final field holds on a holder (none for unset many-to-many links; null for an unset key). */
function relationIds(route: Route, holder: Rep | null): unknown[] {
  if (route.linkedBack) return holder ? [holder.id] : [];
  if (route.field.kind === 'm2m') return holder ? (holder[route.field.name] as Rep[]).map((x) => x.id) : [];
  if (!holder) return [null];
  return [route.narrowed ? narrowedId(route.narrowed, holder) : idOf(holder[route.field.name])];
}

/** A family whose values lie along paths; its `extract` (where query values are sampled) gives the first set one. */
function alongPaths(fam: Omit<Family, 'extract' | 'paths'>, paths: NonNullable<Family['paths']>): Family {
  return { ...fam, paths, extract: (r, u) => paths.flatMap((p) => p.values(r, u)).find((v) => v !== null && v !== undefined) ?? null };
}

/**
 * Declared filters ("filters" in a definition): one path or several, each through foreign keys,
 * narrowed generic relations, children and reverse relations. A filter matches a row when any value
 * along any of its paths does (see matches), so each path is one entry of Family.paths.
 */
function classifyDeclared(model: Model, name: string, spec: Filter): Family | string {
  const paths = Array.isArray(spec.field) ? spec.field : [spec.field ?? name];
  let routes: Route[];
  try {
    routes = paths.map((p) => routeOf(model, p));
  } catch (e) {
    return (e as Error).message;
  }
  const set = `path:${paths.join(' | ')}`;
  const how = routeKind(routes);
  const reads = [...new Set(routes.flatMap(routeModels))];
  switch (spec.lookup) {
    case 'is_set': {
      // Set when some holder along some path is set; unset when none is (a broken path holds nothing).
      const ends = routes.map((r) => (r.field.kind === 'reverse_generic' ? 'reverse generic' : r.field.kind === 'boolean' && !r.narrowed ? 'flag' : ''));
      return {
        kind: qualified('declared is_set', ends) + how,
        valueType: 'boolean',
        lookups: EXACT_ONLY,
        set,
        reads,
        extract: (r, u) => routes.some((route) => along(route, r, u, (h) => [h !== null && isSetOn(route, h, u)]).includes(true)),
      };
    }
    case 'is_unset':
      // True when some path reaches no set holder; false when every path does.
      return {
        kind: 'declared is_unset' + how,
        valueType: 'boolean',
        lookups: EXACT_ONLY,
        // The main set's objects have every path set (a cable with both ends); the paths' own sets set one each.
        set: `unset:${paths.join(' | ')}`,
        reads,
        extract: (r, u) => !routes.every((route) => along(route, r, u, (h) => [h !== null && isSetOn(route, h, u)]).includes(true)),
      };
    case 'fk_id':
    case 'fk_key': {
      const ends = routes.map(relationEnd);
      const bad = ends.find((e): e is string => typeof e === 'string');
      if (bad) return bad;
      const ok = ends as Array<Exclude<(typeof ends)[number], string>>;
      const target = ok[0]!.target;
      if (ok.some((e) => e.target !== target)) return `the paths of ${name} end on relations to different models`;
      if (spec.lookup === 'fk_key' && !naturalKey(target)) return `${name}: ${target.label} has no natural key to name its objects by`;
      return alongPaths(
        {
          kind: qualified(`declared ${spec.lookup}`, ok.map((e) => e.qual)) + how,
          valueType: 'relation',
          lookups: EQUAL_LOOKUPS,
          set,
          reads,
          target,
          descend: ok.some((e) => e.descend),
          byKey: spec.lookup === 'fk_key',
        },
        routes.map((route, i) => ({ descend: ok[i]!.descend, values: (r, u) => along(route, r, u, (h) => relationIds(route, h)) })),
      );
    }
    case 'generic_type':
    case 'generic_id': {
      const bad = routes.find((r) => r.field.kind !== 'generic_fk' || r.narrowed);
      if (bad) return `${bad.path} is not a generic relation`;
      const column = (route: Route) => genericNames(route.field)[spec.lookup === 'generic_type' ? 'type' : 'id'];
      return alongPaths(
        { kind: `declared ${spec.lookup}${how}`, valueType: spec.lookup === 'generic_type' ? 'generic-type' : 'generic-id', lookups: EQUAL_LOOKUPS, set, reads, someType: routes[0]!.field.genericTargets?.[0]?.label },
        routes.map((route) => ({ values: (r, u) => along(route, r, u, (h) => [h?.[column(route)] ?? null]) })),
      );
    }
    case 'field': {
      const own = routes[0]!;
      if (routes.length === 1 && !own.hops.length && own.field.kind === 'net_count') {
        // A count made when read (a prefix's children, depth), over nested networks of its own.
        const f = own.field;
        return { kind: 'declared field (net count)', valueType: 'ordered', order: 'number', lookups: ORDERED_LOOKUPS, set: `net:${String(f.def.of)}`, reads, extract: (r) => r[f.name] ?? null };
      }
      // Each path's own field family reads its holders; the paths must agree on the kind of value.
      const inners = routes.map((route) => scalarFamily(route.field, set, (h) => h[route.field.name]));
      const bad = inners.find((x): x is string => typeof x === 'string');
      if (bad) return bad;
      const ok = inners as Family[];
      if (new Set(ok.map((x) => x.kind)).size > 1) return `the paths of ${name} end on fields of different kinds`;
      // Over several paths the definition names the lookups (any path matches: exact; none does: a negated one).
      if (routes.length > 1 && !spec.lookups) return `${name}: a field filter over several paths, whose lookups the suite does not know`;
      // Through rows a row has several values, and "empty" is not one of them (docs/model-authors.md, filters);
      // the definition may keep only exact and the lookups it lists.
      const kept = routes[0]!.multi ? ok[0]!.lookups.filter((l) => l !== 'empty') : ok[0]!.lookups;
      const lookups = spec.lookups ? ['exact', ...spec.lookups] : kept;
      return alongPaths(
        { ...ok[0]!, kind: `declared field (${ok[0]!.kind})${how}`, lookups, reads },
        routes.map((route, i) => ({ values: (r, u) => along(route, r, u, (h) => [h ? ok[i]!.extract(h, u) : null]) })),
      );
    }
  }
  if (spec.lookup === 'at_least' || spec.lookup === 'at_most') {
    if (routes.length > 1 || routes[0]!.hops.length) return `${spec.lookup} on a field of the model itself only`;
    const field = routes[0]!.field;
    const inner = scalarFamily(field, set, (h) => h[field.name]);
    if (typeof inner === 'string') return inner;
    if (inner.valueType !== 'ordered') return `${spec.lookup} on ${field.name}, which is not ordered`;
    return { ...inner, kind: `declared ${spec.lookup} (${inner.kind})`, lookups: EXACT_ONLY, reads, bound: spec.lookup === 'at_least' ? 'gte' : 'lte' };
  }
  if (spec.lookup === 'usable_by_caller') {
    // The suite asks as the superuser "admin": enabled, and shared or theirs.
    if (routes.length > 1 || routes[0]!.hops.length) return `${name}: usable_by_caller on a field of the model itself only`;
    const owner = routes[0]!.field;
    const userModel = owner.target!;
    return {
      kind: 'declared usable_by_caller',
      valueType: 'boolean',
      lookups: EXACT_ONLY,
      set: 'main',
      reads: [userModel.label],
      extract: (r, u) => {
        const caller = [...u.get(userModel.label)!.values()].find((x) => x.username === 'admin')!.id;
        const flag = (f: string | undefined, dflt: boolean) => (f === undefined ? dflt : r[f] === true);
        return flag(spec.enabled, true) && (flag(spec.shared, false) || idOf(r[owner.name]) === caller);
      },
    };
  }
  if (spec.lookup === 'json_text') {
    // The strings inside the JSON value, at any depth.
    if (routes.length > 1 || routes[0]!.hops.length) return `${name}: json_text on a field of the model itself only`;
    const field = routes[0]!.field;
    const strings = (v: unknown): string[] => (typeof v === 'string' ? [v] : Array.isArray(v) ? v.flatMap(strings) : v && typeof v === 'object' ? Object.values(v).flatMap(strings) : []);
    return { kind: 'declared json_text', valueType: 'array', lookups: EXACT_ONLY, set: 'main', reads, extract: (r) => strings(r[field.name]) };
  }
  if (spec.lookup === 'holds') {
    // True when the row's list holds the element (a permission's actions holding "view").
    if (routes.length > 1 || routes[0]!.hops.length) return `${name}: holds on a field of the model itself only`;
    const field = routes[0]!.field;
    const element = spec.element;
    return { kind: 'declared holds', valueType: 'boolean', lookups: EXACT_ONLY, set: valuesSet(field.name, [[element], []]), reads, extract: (r) => ((r[field.name] as unknown[] | null) ?? []).map(choiceValue).includes(element) };
  }
  if (spec.lookup === 'choice_group') {
    // The group of the row's choice value: a listed group, else the rest (none without a value).
    if (routes.length > 1 || routes[0]!.hops.length) return `${name}: choice_group on a field of the model itself only`;
    const field = routes[0]!.field;
    const groups = Object.entries(spec.groups ?? {});
    const groupOf = (v: unknown): string | null => (v === null || v === undefined || v === '' ? null : groups.find(([, vs]) => vs.includes(String(v)))?.[0] ?? spec.rest ?? null);
    // One row per group: its first value, and for the rest a value no group lists.
    const values = groups.map(([, vs]) => vs[0]!);
    const other = field.choices?.values.find((c) => !groups.some(([, vs]) => vs.includes(String(c))));
    if (spec.rest !== undefined && other !== undefined) values.push(String(other));
    return { kind: 'declared choice_group', valueType: 'choice', lookups: EXACT_ONLY, set: valuesSet(field.name, values), reads, extract: (r) => groupOf(choiceValue(r[field.name])) };
  }
  if (spec.lookup === 'content_type_id') {
    // The type labels a row holds (a list, a value, a generic relation's type), as the ids of the content types table.
    const ct = model.modelWithRole('content_type');
    if (!ct) return 'content_type_id without a content_type model';
    if (routes.length > 1 || routes[0]!.hops.length) return `${name}: content_type_id on a field of the model itself only`;
    const f = routes[0]!.field;
    const labels = (r: Rep): string[] => {
      const v = f.kind === 'generic_fk' ? r[genericNames(f).type] : r[f.name];
      return (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === 'string' && x !== '');
    };
    const idOfLabel = (u: Universe, label: string) => [...u.get(ct.label)!.values()].find((c) => `${String(c.app_label)}.${String(c.model)}` === label)?.id as number | undefined;
    return {
      kind: `declared content_type_id${spec.empty_matches_all ? ' (empty matches all)' : ''}`,
      valueType: 'content-type',
      lookups: ['exact', 'n', ...(spec.lookups ?? [])],
      set: 'main',
      reads: [ct.label],
      emptyMatchesAll: spec.empty_matches_all === true,
      extract: (r, u) => labels(r).map((l) => idOfLabel(u, l)).filter((id): id is number => id !== undefined),
    };
  }
  if (spec.lookup.startsWith('net_')) {
    if (routes.length > 1 || routes[0]!.hops.length) return `${spec.lookup} on ${paths.join(', ')}: the suite generates networks for a field of the model itself`;
    const field = routes[0]!.field.name;
    // How the value is read ("value"), else what the lookup compares with: a mask length, an address, a network.
    const netValue = spec.value ?? (spec.lookup === 'net_mask_length' ? 'integer' : spec.lookup === 'net_contains_or_equals' ? 'inet' : 'cidr');
    // A mask length also takes the extra suffixes the definition lists; the containment lookups only equal.
    const lookups = spec.lookup === 'net_mask_length' ? ['exact', ...(spec.lookups ?? [])] : EXACT_ONLY;
    return { kind: `declared ${spec.lookup}`, valueType: 'net', lookups, set: `net:${field}`, reads, extract: (r) => r[field] ?? null, netLookup: spec.lookup, netValue };
  }
  return `no oracle for declared lookup ${spec.lookup}`;
}

/** An object and, in a tree, its ancestors. */
function lineage(target: Model, id: number, u: Universe): Set<number> {
  const out = new Set<number>();
  for (let at: number | null = id; at !== null && !out.has(at); at = idOf(u.get(target.label)!.get(at)?.parent ?? null)) {
    out.add(at);
    if (!target.tree) break;
  }
  return out;
}

/** What a row's relation at the end of a route points at: a foreign key's target, or a generic relation's type and id. */
function pointerOf(route: Route, holder: Rep | null): { type: string; id: number } | null {
  if (!holder) return null;
  const f = route.field;
  if (f.kind === 'generic_fk') {
    const g = genericNames(f);
    return holder[g.type] ? { type: holder[g.type] as string, id: holder[g.id] as number } : null;
  }
  const id = idOf(holder[f.name]);
  return id === null ? null : { type: f.target!.label, id };
}

/**
 * `available_on`: the rows one object of another model can use (VLANs on a device). A row is usable when
 * one of its `match` paths points at what the object reaches along the paired paths (`self`: the
 * object), or at an ancestor of it in a tree; or when every `unscoped` path of the row is unset.
 */
function classifyAvailableOn(model: Model, name: string, spec: Filter): Family | string {
  const of = model.modelByLabel(spec.of ?? '');
  if (!of) return `available_on names no model (${spec.of ?? ''})`;
  let terms: Array<{ row: Route; object?: Route }>;
  let unscoped: Route[];
  try {
    terms = Object.entries(spec.match ?? {}).flatMap(([rowPath, objectPaths]) => objectPaths.map((op) => ({ row: routeOf(model, rowPath), object: op === 'self' ? undefined : routeOf(of, op) })));
    unscoped = (spec.unscoped ?? []).map((p) => routeOf(model, p));
  } catch (e) {
    return (e as Error).message;
  }
  const reached = (route: Route | undefined, o: Rep, u: Universe): { target: Model; id: number } | null => {
    if (!route) return { target: of, id: o.id as number };
    const id = along(route, o, u, (h) => [h ? idOf(h[route.field.name]) : null])[0] as number | null;
    return id === null || id === undefined ? null : { target: route.field.target!, id };
  };
  const routes = [...terms.flatMap((t) => (t.object ? [t.row, t.object] : [t.row])), ...unscoped];
  return {
    kind: 'declared available_on',
    valueType: 'available-on',
    lookups: EXACT_ONLY,
    set: `available:${name}`,
    setOf: of,
    reads: [...new Set([of.label, ...routes.flatMap(routeModels)])],
    extract: (r) => r.id,
    availableTo(row, id, u) {
      const o = u.get(of.label)!.get(id);
      if (!o) return false;
      const scoped = terms.some((t) => {
        const hit = reached(t.object, o, u);
        if (!hit) return false;
        const ids = lineage(hit.target, hit.id, u);
        return along(t.row, row, u, (h) => [pointerOf(t.row, h)]).some((p) => {
          const ptr = p as { type: string; id: number } | null;
          return ptr !== null && ptr.type === hit.target.label && ids.has(ptr.id);
        });
      });
      const global = unscoped.length > 0 && unscoped.every((route) => !along(route, row, u, (h) => [h !== null && isSetOn(route, h, u)]).includes(true));
      return scoped || global;
    },
  };
}

/** The family of a declared filter ("filters" in a definition). */
/** Lookups comparing two values of rows (between two fields; against another object's network), tested by hand there. */
export const COMPARISONS_TEST = 'tests/filters/comparison-filters.test.ts';
const COMPARISON_LOOKUPS: Record<string, ValueType> = { between: 'net', net_within_object: 'relation' };

/** The name of a set of objects, one per value of a field (generate-sets makes them in order). */
export function valuesSet(field: string, values: unknown[]): string {
  return `values:${JSON.stringify({ field, values })}`;
}

/**
 * tagged_type / tagged_type_id on tags: the types of the objects a tag is applied to, read from every
 * taggable model's rows (as labels, or as the ids of the content types table).
 */
function classifyTaggedType(model: Model, spec: Filter): Family | string {
  const taggable = model.allModels().filter((m) => m.fieldList.some((f) => f.kind === 'tags' && f.target === model));
  if (!taggable.length) return `${spec.lookup}: no model takes tags`;
  const ct = model.modelWithRole('content_type');
  if (!ct) return `${spec.lookup} without a content_type model`;
  const labelsOf = (r: Rep, u: Universe) => taggable.filter((m) => [...(u.get(m.label)?.values() ?? [])].some((o) => ((o.tags as Rep[] | undefined) ?? []).some((x) => x.id === r.id))).map((m) => m.label);
  const idOf = (label: string, u: Universe) => [...u.get(ct.label)!.values()].find((c) => `${c.app_label}.${c.model}` === label)?.id;
  return {
    kind: `declared ${spec.lookup}`,
    // Labels are text; content type ids are numbers, checked as the other content_type_id filters.
    valueType: spec.lookup === 'tagged_type' ? 'array' : 'content-type',
    lookups: EXACT_ONLY,
    set: 'tagged',
    reads: [...taggable.map((m) => m.label), ct.label],
    extract: spec.lookup === 'tagged_type' ? labelsOf : (r, u) => labelsOf(r, u).map((l) => idOf(l, u)).filter((x): x is number => typeof x === 'number'),
  };
}

function classifySpec(model: Model, name: string, spec: Filter): Family | string {
  if (spec.lookup === 'tagged_type' || spec.lookup === 'tagged_type_id') return classifyTaggedType(model, spec);
  const stamp = spec.field === 'created' || spec.field === 'last_updated' ? spec.field : undefined;
  if (stamp && !model.fields.has(stamp) && (spec.lookup === 'at_least' || spec.lookup === 'at_most')) {
    // One bound of the model's own timestamp (created_after): compared as the created / last_updated filter is.
    const order = stamp === 'created' && model.timestamps === 'date' ? 'date' : 'datetime';
    return { kind: `declared ${spec.lookup} (${stamp})`, valueType: 'ordered', order, lookups: EXACT_ONLY, set: 'main', extract: (r) => r[stamp] ?? null, bound: spec.lookup === 'at_least' ? 'gte' : 'lte' };
  }
  if (spec.lookup === 'available_on') return classifyAvailableOn(model, name, spec);
  const comparison = COMPARISON_LOOKUPS[spec.lookup];
  // A path that matches only while the row holds given values (when): its oracle is written by hand there.
  if (spec.when) return { kind: `declared ${spec.lookup}, when`, valueType: 'string', lookups: ['exact', ...(spec.lookups ?? [])], set: 'main', extract: () => null, elsewhere: COMPARISONS_TEST };
  if (comparison) return { kind: `declared ${spec.lookup}`, valueType: comparison, lookups: EXACT_ONLY, set: 'main', extract: () => null, elsewhere: COMPARISONS_TEST };
  const fam = classifyDeclared(model, name, spec);
  if (typeof fam === 'string') return fam;
  // Rows the engine writes on its own (read-only or unexposed models: the change log, cable paths) cannot be made for a set.
  const paths = Array.isArray(spec.field) ? spec.field : [spec.field ?? name];
  const engineRows = paths.some((p) => routeOf(model, p).hops.some((h) => h.target.def.read_only === true || !h.target.exposed));
  return engineRows ? { ...fam, elsewhere: ENGINE_ROWS_TEST } : fam;
}

/** The filters of one field, by the rules of docs/filtering.md; none for kinds that have no filter. */
function fieldFilters(model: Model, field: Field): ExpectedFilter[] {
  const own = (name: string, fam: Family | string): ExpectedFilter => ({ name, fam, builtin: false });
  switch (field.kind) {
    case 'fk': {
      // <name>_id by id, <name> by the target's natural key when it has one; a tree's own parent is direct.
      const target = field.target!;
      const tree = descends(field) ? ' (tree descendants)' : target.tree ? ' (tree parent, direct)' : '';
      const fam = (byKey: boolean): Family => ({ kind: `fk ${byKey ? 'natural key' : '_id'}${tree}`, valueType: 'relation', lookups: EQUAL_LOOKUPS, set: 'main', extract: (r) => idOf(r[field.name]), target, descend: descends(field), byKey });
      return [own(`${field.name}_id`, fam(false)), ...(naturalKey(target) ? [own(field.name, fam(true))] : [])];
    }
    case 'm2m': {
      const target = field.target!;
      // A field written and shown by key (by_key) lists its targets' keys rather than nested objects.
      const ids = (r: Rep, u: Universe): number[] => (field.def.by_key ? (r[field.name] as string[]).map((k) => idOfKey(target, k, u)!) : (r[field.name] as Rep[]).map((x) => x.id));
      const fam = (byKey: boolean): Family => ({ kind: `m2m ${byKey ? 'natural key' : '_id'}`, valueType: 'set', lookups: EQUAL_LOOKUPS, set: 'main', extract: ids, target, byKey, all: false });
      // filter_name gives the filters a name of their own (NetBox's singular site, site_id).
      const name = field.def.filter_name ?? field.name;
      return [own(`${name}_id`, fam(false)), ...(naturalKey(target) ? [own(name, fam(true))] : [])];
    }
    case 'tags':
      // tag=<slug>: repeated tags must all be present (docs/filtering.md, tags).
      return [own('tag', { kind: 'tags', valueType: 'set', lookups: EQUAL_LOOKUPS, set: 'main', extract: (r) => (r[field.name] as Rep[]).map((x) => x.id), target: field.target!, byKey: true, all: true })];
    case 'generic_fk': {
      const g = genericNames(field);
      return [
        own(g.type, { kind: 'generic _type', valueType: 'generic-type', lookups: EQUAL_LOOKUPS, set: 'main', extract: (r) => r[g.type] ?? null, someType: field.genericTargets?.[0]?.label }),
        // The object id is a plain number, with every numeric lookup (as NetBox).
        own(g.id, { kind: 'generic _id', valueType: 'ordered', order: 'number', lookups: ORDERED_LOOKUPS, set: 'main', extract: (r) => r[g.id] ?? null }),
      ];
    }
    case 'computed':
      // Filterable when the definition gives it a choice set and a SQL name over a stored field (docs/model-authors.md).
      return field.choices && field.def.sql && model.fields.get(field.def.from?.[0] ?? '')?.column ? [own(field.name, scalarFamily(field, 'main', (r) => r[field.name] ?? null))] : [];
    default:
      // Secrets (write-only) are never filters; kinds without a column of their own have none; a list
      // filters by membership only when it is a list of strings (docs/filtering.md).
      // An image's stored name is served, not filtered (NetBox has no filter on it either).
      if (!field.column || field.writeOnly || field.kind === 'json' || field.kind === 'custom_fields' || field.kind === 'image') return [];
      if (field.array && !['string', 'text', 'slug', 'integer', 'positive_integer'].includes(field.kind)) return [];
      // A secret, or a field shown only with an action, matches by the whole value only (docs/filtering.md, secrets).
      if (field.def.secret || field.def.shown_with) {
        const fam = scalarFamily(field, 'main', (r) => (field.name in r ? r[field.name] : null));
        return [own(field.name, typeof fam === 'string' ? fam : { ...fam, lookups: ['exact'] })];
      }
      return [own(field.name, scalarFamily(field, 'main', (r) => (field.name in r ? r[field.name] : null)))];
  }
}

/**
 * Every filter a model's list must accept, from its definition as written: id, created and
 * last_updated (when it has timestamps), each field's filters by kind, then the declared filters, a
 * declared one replacing a field's of the same name.
 */
export function expectedFilters(model: Model): ExpectedFilter[] {
  const out = new Map<string, ExpectedFilter>();
  const add = (f: ExpectedFilter) => out.set(f.name, f);
  add({ name: 'id', fam: { kind: 'id', valueType: 'ordered', order: 'number', lookups: ORDERED_LOOKUPS, set: 'main', extract: (r) => r.id }, builtin: true });
  if (model.timestamps !== false) {
    // created compares as the API shows it: a date on most models, a timestamp where the definition says so.
    for (const name of model.lastUpdated ? (['created', 'last_updated'] as const) : (['created'] as const)) {
      const order = name === 'created' && model.timestamps === 'date' ? 'date' : 'datetime';
      add({ name, fam: { kind: name, valueType: 'ordered', order, lookups: ORDERED_LOOKUPS, set: 'main', extract: (r) => r[name] ?? null }, builtin: true });
    }
  }
  for (const field of model.fieldList) for (const f of fieldFilters(model, field)) add(f);
  for (const [name, spec] of Object.entries(model.def.filters ?? {})) add({ name, fam: classifySpec(model, name, spec), builtin: false });
  // Filters a generic relation pointing here gives every type it may point at (docs/model-authors.md, target_filters).
  for (const g of model.reverseGenerics) for (const [name, spec] of Object.entries(g.def.target_filters ?? {})) add({ name, fam: classifySpec(model, name, spec), builtin: false });
  return [...out.values()];
}

/** The lookups of an expected filter (none when the suite could not classify it). */
export function lookupsOf(f: ExpectedFilter): readonly string[] {
  return typeof f.fam === 'string' ? [] : f.fam.lookups;
}

const swapCase = (s: string) => [...s].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');

function keyOf(target: Model, id: number, u: Universe): string {
  const key = naturalKey(target);
  if (!key) throw new Error(`${target.label} has no natural key`);
  const v = u.get(target.label)!.get(id)?.[key.name];
  if (v === null || v === undefined) throw new Error(`${target.label} ${id} has no ${key.name}`);
  return String(v);
}

function idOfKey(target: Model, key: string, u: Universe): number | undefined {
  const k = naturalKey(target)!;
  for (const row of u.get(target.label)!.values()) if (String(row[k.name]) === key) return row.id;
  return undefined;
}

function descendantsOf(target: Model, ids: number[], u: Universe): Set<number> {
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
export function checksFor(fam: Family, name: string, set: Rep[], u: Universe, lookups: readonly string[] = fam.lookups, thin = false): Check[] {
  const [A, B] = set as [Rep, Rep];
  const a = fam.extract(A, u);
  const b = fam.extract(B, u);
  const what = `${name} of the generated objects`;
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
      const av = String(required((a as unknown[] | null)?.[0], what));
      const bv = String(required((b as unknown[] | null)?.[0], what));
      Object.assign(per, { exact: [[av], [av, bv]], n: [[av]] });
      // Labels ("dcim.site"): a piece of the first, in another case.
      const [app, model] = av.split('.');
      if (fam.lookups.includes('ic')) Object.assign(per, { ic: [[swapCase(av.slice(2, -2))]], nic: [[swapCase(av.slice(2, -2))]], isw: [[swapCase(`${app}.`)]], nisw: [[swapCase(`${app}.`)]], iew: [[swapCase(`.${model}`)]], niew: [[swapCase(`.${model}`)]], ie: [[swapCase(av)]], nie: [[swapCase(av)]] });
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
      // A bound under its own name (created_after): the later value for "at least", so the earlier row is left out.
      if (fam.bound) per.exact = fam.bound === 'gte' ? [[bv], [av]] : [[av], [bv]];
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
      const av = (a as string | null) ?? required(fam.someType, `a type to query ${name} with`);
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
    case 'content-type': {
      const av = required((a as number[])[0], what);
      const bv = required((b as number[])[0], what);
      Object.assign(per, {
        exact: [[String(av)], [String(av), String(bv)], ['999999']], n: [[String(av)]],
        lt: [[String(bv)]], lte: [[String(bv)]], gt: [[String(av)]], gte: [[String(av)]],
        empty: [['true'], ['false']],
      });
      break;
    }
    case 'available-on': {
      // The set holds the objects named: one reaching something along every path, one made plainly.
      const [oa, ob] = [String(A.id), String(B.id)];
      per.exact = [[oa], [ob], [oa, ob]];
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
    if (!values) throw new Error(`no generated query for lookup ${lookup} of ${fam.kind} filter ${name}`);
    for (const v of thin ? values.slice(0, 1) : values) checks.push({ lookup, values: v });
  }
  return checks;
}

/** Known filters given values they cannot take: each must be a 400 naming the parameter. */
export function invalidChecks(fam: Family): Check[] {
  const out: Check[] = [];
  const add = (lookup: string, value: string) => {
    if (fam.lookups.includes(lookup)) out.push({ lookup, values: [value] });
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
    case 'available-on':
      add('exact', 'abc');
      add('exact', '999999999');
      break;
    case 'content-type':
      add('exact', 'abc');
      add('lt', '1e400');
      add('empty', 'maybe');
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
  // The row's values: one, or (declared filters) every value along every path, any of which may match.
  const seen = fam.paths
    ? fam.paths.flatMap((p) => p.values(row, u).map((v) => ({ v, descend: p.descend ?? false })))
    : [{ v: fam.extract(row, u), descend: fam.descend ?? false }];
  const positive = (l: string): boolean => seen.some(({ v, descend }) => test(l === 'exact' && fam.bound ? fam.bound : l, v, descend));
  const test = (l: string, v: unknown, descend: boolean): boolean => {
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
      case 'array': {
        if (!Array.isArray(v)) return false;
        const text = (x: unknown, q: string) => {
          const e = String(x).toLowerCase();
          const w = q.toLowerCase();
          return { ic: e.includes(w), isw: e.startsWith(w), iew: e.endsWith(w), ie: e === w }[l] ?? (() => { throw new Error(`oracle: label list lookup ${l}`); })();
        };
        return l === 'exact' ? v.some((x) => values.includes(String(x))) : v.some((x) => values.some((q) => text(x, q)));
      }
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
        const set = descend ? descendantsOf(fam.target!, ids, u) : new Set(ids);
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
      case 'content-type': {
        const ids = v as number[];
        if (l === 'empty') return (ids.length === 0) === EMPTY_TRUE(values[0]!);
        if (fam.emptyMatchesAll && !ids.length) return true;
        return ids.some((id) => values.some((x) => ({ exact: id === Number(x), lt: id < Number(x), lte: id <= Number(x), gt: id > Number(x), gte: id >= Number(x) })[l] ?? (() => { throw new Error(`oracle: content type lookup ${l}`); })()));
      }
      case 'available-on':
        // 'null' names no object: it matches nothing.
        return values.some((x) => x !== 'null' && fam.availableTo!(row, Number(x), u));
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
    const n = netOf(fam.extract(row, u));
    return n !== null && values.every((x) => n.len !== Number(x));
  }
  if (lookup === 'n') return !positive(fam.valueType === 'set' ? 'any' : 'exact');
  if (NEGATED_PATTERNS.has(lookup)) return !positive(lookup.slice(1));
  return positive(lookup);
}
