import type { Filter } from '../../../engine/definitions/generated/model-definition';
import { quoteIdent } from '../../../engine/migrations/identifiers';
import type { TestApp } from '../../support/test-app';
import { routeOf, type Family, type Hop, type Route } from './filter-plan';
import { naturalKey, urlOf, type Field, type Model } from './definitions';
import { genericNames, ObjectFactory, scalarValue, writtenFields, type Rep } from './object-factory';

const VARIANTS = ['A', 'B', 'C'] as const;
type V = (typeof VARIANTS)[number];

/** created / last_updated given to A and B (C keeps "now"), so timestamp filters can tell them apart. */
export const STAMPS: Record<'A' | 'B', string> = { A: '2020-01-02T03:04:05Z', B: '2020-03-04T05:06:07Z' };

/**
 * The main set: objects A, B and C that differ in every field. Foreign keys point at T1, T2 (T2 a
 * child of T1 in a tree) and null (or a third target when required); tags/m2m are [t1, t2], [t1], [];
 * generic relations point at objects of the first two allowed types, C at nothing.
 */
async function mainSet(f: ObjectFactory, model: Model): Promise<number[]> {
  const over: Record<V, Record<string, unknown>> = { A: {}, B: {}, C: {} };
  for (const field of writtenFields(model)) {
    const name = field.name;
    if (field.kind === 'fk') {
      const [t1, t2, t3] = await f.targets(field.target!);
      over.A[name] = t1.id;
      over.B[name] = t2.id;
      over.C[name] = field.nullable ? null : t3.id;
    } else if (field.kind === 'tags' || field.kind === 'm2m') {
      const [t1, t2] = await f.targets(field.target!);
      over.A[name] = [t1.id, t2.id];
      over.B[name] = [t1.id];
      over.C[name] = [];
    } else if (field.kind === 'generic_fk') {
      const targets = f.genericTargets(field);
      const g = genericNames(field);
      if (!targets.length) continue;
      for (const [v, target] of [['A', targets[0]!], ['B', targets[1] ?? targets[0]!], ['C', targets[0]!]] as const) {
        if (v === 'C' && field.nullable) continue;
        over[v][g.type] = target.label;
        over[v][g.id] = (await f.targets(target))[VARIANTS.indexOf(v)].id;
      }
    } else {
      // Each field its own numbers, so that no two fields of an object hold the same text (a name
      // filter that read the slug column would otherwise go unseen).
      for (const v of VARIANTS) {
        const value = scalarValue(field, field.kind === 'password' ? 'base' : v, f.uniq());
        if (value !== undefined) over[v][name] = value;
      }
    }
  }
  const ids: number[] = [];
  for (const v of VARIANTS) ids.push((await f.createForFilters(model, over[v])).id);
  // A read-only stored field (a choice set's base_choices) takes no value through the API: A, B and C
  // get theirs written directly, so that its filters have data to tell apart.
  for (const field of model.fieldList) {
    if (!field.readOnly || !field.column || field.kind === 'fk' || writtenFields(model).includes(field) || ['computed', 'count', 'json', 'custom_fields'].includes(field.kind)) continue;
    for (const [i, v] of VARIANTS.entries()) {
      const value = scalarValue(field, v, f.uniq());
      if (value !== undefined) await f.writeDirectly(model, ids[i]!, { [field.name]: value });
    }
  }
  for (const field of writtenFields(model)) {
    if (field.kind !== 'generic_fk' || f.genericTargets(field).length) continue;
    // None of the types this relation may point at is defined yet, so the API cannot set it: write the
    // columns directly (pointing A and B at rows of this model) so its filters still have data to tell apart.
    const g = genericNames(field);
    for (const [i, target] of [[0, ids[2]!], [1, ids[0]!]] as const) {
      await f.t.knex.raw(`UPDATE ${quoteIdent(model.table)} SET ${quoteIdent(g.type)} = ?, ${quoteIdent(g.id)} = ? WHERE "id" = ?`, [model.label, target, ids[i]!]);
      f.dirty.add(model.label);
    }
  }
  return ids;
}

/** What to write for a relation to point at `id` (null: unset): the fk, or the generic pair of `label`. */
function pointAt(field: Field, id: number | null, label?: string): Record<string, unknown> {
  if (field.kind !== 'generic_fk') return { [field.name]: id };
  const g = genericNames(field);
  return id === null ? { [g.type]: null, [g.id]: null } : { [g.type]: label, [g.id]: id };
}

/** Three new objects of a model to point at, as ObjectFactory.targets makes its shared ones. */
async function freshTargets(f: ObjectFactory, model: Model): Promise<[Rep, Rep, Rep]> {
  const t1 = await f.createTarget(model);
  const t2 = await f.createTarget(model, model.tree ? t1.id as number : undefined);
  return [t1, t2, await f.createTarget(model)];
}

/**
 * What the holder of a path's final field gets in one object of a set: values to write, and rows to
 * create pointing at it once it exists (a reverse generic relation: a cable termination on an interface).
 */
interface Ending {
  values: Record<string, unknown>;
  after?: (holder: Rep) => Promise<unknown>;
}

/**
 * The endings of A, B and C for a route's final field: T1, T2 (a child of T1 in a tree) and unset (or
 * T3 when required) for a relation; for a generic one objects of its first two types, for one narrowed
 * to a type unset meaning an object of another type; [T1], [T2], [] for many-to-many links; a row pointing
 * back at A and B for a reverse generic relation; otherwise three scalar values.
 */
async function endings(f: ObjectFactory, route: Route): Promise<Record<V, Ending>> {
  const last = route.field;
  const out = {} as Record<V, Ending>;
  if (route.linkedBack) {
    // The holders are the linking objects themselves, fresh ones per variant, each with its natural key
    // set (a VRF's rd may be unset), so fk_key has a value to name it by.
    const key = naturalKey(last.model);
    for (const v of VARIANTS) out[v] = { values: key ? { [key.name]: scalarValue(key, 'base', f.uniq()) } : {} };
    return out;
  }
  if (route.narrowed || last.kind === 'generic_fk') {
    const types = route.narrowed ? [route.narrowed.target] : f.genericTargets(last);
    const other = f.genericTargets(last).find((x) => x !== types[0]);
    for (const [i, v] of VARIANTS.entries()) {
      const type = v === 'C' ? (last.nullable ? undefined : route.narrowed ? other ?? types[0]! : types[0]!) : (types[i] ?? types[0]!);
      out[v] = { values: type ? pointAt(last, (await f.targets(type))[i]!.id, type.label) : pointAt(last, null) };
    }
  } else if (last.kind === 'fk') {
    // A one-to-one relation (a device's primary_ip4) cannot point this set's objects at the shared T1 and
    // T2 that another filter's set (primary_ip4_id's) already points at: targets of its own.
    const [t1, t2, t3] = (last.def as { unique?: boolean }).unique ? await freshTargets(f, last.target!) : await f.targets(last.target!);
    Object.assign(out, { A: { values: { [last.name]: t1.id } }, B: { values: { [last.name]: t2.id } }, C: { values: { [last.name]: last.nullable ? null : t3.id } } });
  } else if (last.kind === 'm2m') {
    const [t1, t2] = await f.targets(last.target!);
    Object.assign(out, { A: { values: { [last.name]: [t1.id] } }, B: { values: { [last.name]: [t2.id] } }, C: { values: { [last.name]: [] } } });
  } else if (last.kind === 'reverse_generic') {
    const { model: of, via } = last.reverse!;
    const pointBack = (holder: Rep) => f.createForFilters(of, pointAt(via, holder.id as number, last.model.label));
    Object.assign(out, { A: { values: {}, after: pointBack }, B: { values: {}, after: pointBack }, C: { values: {} } });
  } else {
    const u = f.uniq();
    for (const [i, v] of VARIANTS.entries()) {
      const value = scalarValue(last, v, u + i);
      out[v] = { values: value === undefined ? {} : { [last.name]: value } };
    }
  }
  return out;
}

/**
 * What a child row reached through a rows hop gets: the link to its parent and the hop's where; a
 * second child of the same parent takes B's values for its required plain fields, so a unique set
 * (a circuit's termination side) does not refuse it.
 */
function childValues(f: ObjectFactory, hop: Extract<Hop, { kind: 'rows' }>, parent: number, nth: number): Record<string, unknown> {
  // A generic relation followed back points at the parent by type and id; a condition's first value is written.
  const where = Object.fromEntries(Object.entries(hop.where).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));
  const out: Record<string, unknown> = { ...(hop.generic ? pointAt(hop.via, parent, hop.generic) : { [hop.via.name]: parent }), ...where };
  if (nth === 0) return out;
  const u = f.uniq();
  for (const field of hop.target.fieldList) {
    if (field.required && !(field.name in out) && field.column && field.kind !== 'fk') out[field.name] = scalarValue(field, 'B', u);
  }
  return out;
}

/**
 * Creates an object of `model` whose path (`hops`) reaches holders ending as `ends` say. With no rows
 * hop there is one holder (the first ending); at a rows hop the object gets one child row per ending,
 * each going on to its own holder (none: an object without rows). `own` goes into the object itself.
 */
/** Objects made for an ending at the end of a many-to-many link, reused when the ending is reached again. */
const linkedFor = new WeakMap<Ending, Rep>();

async function reach(f: ObjectFactory, model: Model, hops: Hop[], ends: Ending[], own: Record<string, unknown> = {}): Promise<Rep> {
  const [hop, ...rest] = hops;
  if (!hop) {
    const holder = await f.createForFilters(model, { ...own, ...ends[0]!.values });
    await ends[0]!.after?.(holder);
    return holder;
  }
  if (hop.kind === 'link' && !hop.back) {
    // A many-to-many link: one linked object per ending, the object listing them all.
    // The same ending reached again (set E links to A's and C's) links the object made for it: a linked
    // object may be shared, and its values may be unique (an ASN's number).
    const linked: number[] = [];
    for (const end of ends) {
      let holder = rest.length ? undefined : linkedFor.get(end);
      if (!holder) {
        holder = await reach(f, hop.target, rest, [end]);
        if (!rest.length) linkedFor.set(end, holder);
      }
      linked.push(holder.id as number);
    }
    return f.createForFilters(model, { ...own, [hop.field.name]: linked });
  }
  if (hop.kind === 'link') {
    // Followed back: one object per ending whose many-to-many field lists this one.
    // An ending reached again (set E) links the object made for it to this one as well, rather than
    // making a second with the same natural key.
    const parent = await f.createForFilters(model, own);
    for (const end of ends) {
      const made = rest.length ? undefined : linkedFor.get(end);
      if (made) await f.writeDirectly(hop.target, made.id as number, { [hop.field.name]: [parent.id] });
      else {
        const holder = await reach(f, hop.target, rest, [end], { [hop.field.name]: [parent.id] });
        if (!rest.length) linkedFor.set(end, holder);
      }
    }
    return parent;
  }
  if (hop.kind === 'rows') {
    const parent = await f.createForFilters(model, own);
    for (const [i, end] of ends.entries()) await reach(f, hop.target, rest, [end], childValues(f, hop, parent.id as number, i));
    return parent;
  }
  const next = await reach(f, hop.target, rest, ends);
  return f.createForFilters(model, { ...own, ...pointAt(hop.field, next.id as number, hop.kind === 'generic' ? hop.typeLabel : undefined) });
}

/**
 * A set for a declared filter through one path (site.region, assigned_object[dcim.interface].device,
 * a_terminations.termination, terminations.site): A, B and C reach holders ending as A, B and C (see
 * endings). D, when the first hop may be unset, reaches nothing: its relation is null, or it has no
 * rows. E, through rows, reaches two holders, ending as A and as C, so "any holder" and "no holder"
 * differ from "every holder".
 */
async function routeSet(f: ObjectFactory, model: Model, route: Route): Promise<number[]> {
  if (route.field.kind === 'image' && !route.hops.length) {
    // An uploaded file's name is written directly (the API takes files as multipart parts): A and B have one, C none, D ''.
    const ids: number[] = [];
    for (const file of ['filters/a.png', 'filters/b.png', null, '']) {
      const made = (await f.createForFilters(model, {})).id as number;
      await f.writeDirectly(model, made, { [route.field.name]: file });
      ids.push(made);
    }
    return ids;
  }
  if (route.reverseEnd) {
    // The rows pointing back are the holders: A and B have one, C none, E two.
    const row: Ending = { values: {} };
    const ids: number[] = [];
    for (const ends of [[row], [row], [], [row, { values: {} }]]) ids.push((await reach(f, model, route.hops, ends)).id as number);
    return ids;
  }
  const ends = await endings(f, route);
  const ids: number[] = [];
  for (const v of VARIANTS) ids.push((await reach(f, model, route.hops, [ends[v]])).id as number);
  const first = route.hops[0];
  if (first?.kind === 'rows' || first?.kind === 'link') ids.push((await reach(f, model, route.hops, [])).id as number);
  else if (first && first.field.nullable) ids.push((await f.createForFilters(model, pointAt(first.field, null))).id as number);
  if (route.multi) ids.push((await reach(f, model, route.hops, [ends.A, ends.C])).id as number);
  return ids;
}

/** A set for a declared filter: each of its paths' sets in turn (A and B of the first path first). */
async function pathSet(f: ObjectFactory, model: Model, paths: string[]): Promise<number[]> {
  const ids: number[] = [];
  for (const path of paths) ids.push(...(await routeSet(f, model, routeOf(model, path))));
  return ids;
}

/**
 * An object of `model` that reaches something along every path (fk steps: site.region, cluster.site):
 * fresh objects all the way, a tree's under its T1 so that it has an ancestor. The links are written
 * directly, past the checks tying them together (a device's rack on its site): only filters are tested.
 */
async function reachingEverything(f: ObjectFactory, model: Model, paths: string[]): Promise<Rep> {
  const byFirst = new Map<string, string[]>();
  for (const p of paths) {
    const [head, ...rest] = p.split('.');
    byFirst.set(head!, [...(byFirst.get(head!) ?? []), ...(rest.length ? [rest.join('.')] : [])]);
  }
  const links: Record<string, unknown> = {};
  for (const [name, rests] of byFirst) {
    const field = model.fields.get(name);
    if (field?.kind !== 'fk') throw new Error(`${model.label}.${name} is not a foreign key`);
    links[name] = (await reachingEverything(f, field.target!, rests)).id;
  }
  const created = await f.createForFilters(model, model.tree ? { parent: (await f.targets(model))[0].id } : {});
  await f.writeDirectly(model, created.id as number, links);
  return created;
}

/** An object read through the API. */
async function fetchRep(f: ObjectFactory, model: Model, id: number): Promise<Rep> {
  const res = await f.t.api.get(`${urlOf(model)}${id}/`).set(f.t.auth);
  if (res.status !== 200) throw new Error(`reading ${model.label} ${id}: ${res.status}`);
  return res.body as Rep;
}

/** What an object reaches along a path of foreign keys ('self': itself), read through the API; null when unset. */
async function reachedAlong(f: ObjectFactory, model: Model, id: number, path: string): Promise<{ target: Model; id: number } | null> {
  if (path === 'self') return { target: model, id };
  let at = { target: model, id };
  for (const name of path.split('.')) {
    const field = at.target.fields.get(name)!;
    const next = (await fetchRep(f, at.target, at.id))[name] as Rep | null;
    if (!next) return null;
    at = { target: field.target!, id: next.id as number };
  }
  return at;
}

/**
 * A set for an `available_on` filter: the objects named (of its "of" model), one reaching something
 * along every path the filter matches through, one made plainly. Rows of the list are made pointing, by
 * each `match` path, at what the first reaches, and in a tree at its parent (an ancestor: usable) and
 * at a new child (a descendant: not).
 */
async function availableSet(f: ObjectFactory, model: Model, spec: Filter): Promise<number[]> {
  const of = model.modelByLabel(spec.of!)!;
  const match = Object.entries(spec.match ?? {});
  const everywhere = await reachingEverything(f, of, [...new Set(match.flatMap(([, ops]) => ops))].filter((p) => p !== 'self'));
  const plain = await f.createForFilters(of, {});
  for (const [rowPath, objectPaths] of match) {
    const route = routeOf(model, rowPath);
    for (const op of objectPaths) {
      const hit = await reachedAlong(f, of, everywhere.id as number, op);
      if (!hit) continue;
      const points = [hit.id];
      if (hit.target.tree) {
        const parent = (await fetchRep(f, hit.target, hit.id)).parent as Rep | null;
        if (parent) points.push(parent.id as number);
        points.push((await f.createTarget(hit.target, hit.id)).id as number);
      }
      for (const id of points) await reach(f, model, route.hops, [{ values: pointAt(route.field, id, hit.target.label) }]);
    }
  }
  return [everywhere.id as number, plain.id as number];
}

/** A set for declared network filters on a field: nested IPv4 networks (or addresses) and one IPv6. */
async function netSet(f: ObjectFactory, model: Model, fieldName: string): Promise<number[]> {
  const field = model.fields.get(fieldName)!;
  const u = f.uniq();
  const o = 20 + (u % 200);
  const h = u.toString(16);
  const values = field.kind === 'cidr'
    ? [`${o}.1.0.0/16`, `${o}.1.2.0/24`, `${o}.1.2.128/25`, `2001:db8:${h}::/48`]
    : [`${o}.1.2.1/24`, `${o}.1.3.1/16`, `${o}.1.2.5/32`, `2001:db8:${h}::1/64`];
  const ids: number[] = [];
  for (const value of values) ids.push((await f.createForFilters(model, { [fieldName]: value })).id);
  return ids;
}

/**
 * An object set along every path (a cable with an A and a B end), for is_unset: the first path makes it,
 * each further path (through rows) gives it a child row of its own.
 */
async function everyPath(f: ObjectFactory, model: Model, paths: string[]): Promise<number> {
  const [first, ...more] = paths.map((p) => routeOf(model, p));
  const parent = await reach(f, model, first!.hops, [(await endings(f, first!)).A]);
  for (const route of more) {
    const [hop, ...rest] = route.hops;
    if (hop?.kind !== 'rows') throw new Error(`${model.label}: ${route.path} does not start through rows`);
    await reach(f, hop.target, rest, [(await endings(f, route)).A], childValues(f, hop, parent.id as number, 1));
  }
  return parent.id as number;
}

/** Tags A, B and C: A applied to an object of one taggable type, B to one of another, C to none. */
async function taggedSet(f: ObjectFactory, model: Model): Promise<number[]> {
  const taggable = model.allModels().filter((m) => m.fieldList.some((x) => x.kind === 'tags' && x.target === model)).filter((m) => m.exposed && !m.def.read_only);
  const ids: number[] = [];
  for (const v of VARIANTS) ids.push((await f.createForFilters(model, {})).id);
  for (const [i, m] of [taggable.find((x) => x.label === 'dcim.site') ?? taggable[0]!, taggable.find((x) => x.label === 'tenancy.tenant') ?? taggable[1]!].entries()) {
    await f.createForFilters(m, { tags: [ids[i]] });
  }
  return ids;
}

/** One object per value of a field (a choice group's members, a list holding an element or not). */
async function valuesSet(f: ObjectFactory, model: Model, spec: { field: string; values: unknown[] }): Promise<number[]> {
  const ids: number[] = [];
  for (const value of spec.values) ids.push((await f.createForFilters(model, { [spec.field]: value })).id);
  return ids;
}

/** Every set the model's filters sample from, keyed as Family.set; ids in order A, B, C[, D]. */
export async function generateSets(t: TestApp, f: ObjectFactory, model: Model, families: Family[]): Promise<Map<string, number[]>> {
  const sets = new Map<string, number[]>();
  const main = await mainSet(f, model);
  sets.set('main', main);
  if (model.timestamps !== false) {
    for (const [i, v] of (['A', 'B'] as const).entries()) {
      const set = model.lastUpdated ? `"created" = ?, "last_updated" = ?` : `"created" = ?`;
      await t.knex.raw(`UPDATE ${quoteIdent(model.table)} SET ${set} WHERE "id" = ?`, [...(model.lastUpdated ? [STAMPS[v], STAMPS[v]] : [STAMPS[v]]), main[i]!]);
      f.dirty.add(model.label);
    }
  }
  for (const fam of families) {
    if (sets.has(fam.set)) continue;
    if (fam.set.startsWith('path:')) sets.set(fam.set, await pathSet(f, model, fam.set.slice('path:'.length).split(' | ')));
    else if (fam.set.startsWith('available:')) sets.set(fam.set, await availableSet(f, model, model.def.filters![fam.set.slice('available:'.length)]!));
    else if (fam.set.startsWith('unset:')) {
      const paths = fam.set.slice('unset:'.length).split(' | ');
      sets.set(fam.set, [await everyPath(f, model, paths), ...(await pathSet(f, model, paths))]);
    }
    else if (fam.set === 'tagged') sets.set(fam.set, await taggedSet(f, model));
    else if (fam.set.startsWith('values:')) sets.set(fam.set, await valuesSet(f, model, JSON.parse(fam.set.slice('values:'.length)) as { field: string; values: unknown[] }));
    else if (fam.set.startsWith('net:')) sets.set(fam.set, await netSet(f, model, fam.set.slice('net:'.length)));
  }
  return sets;
}
