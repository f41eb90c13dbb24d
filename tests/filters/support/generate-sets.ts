import type { ResolvedModel } from '../../../engine/definitions/registry-types';
import { quoteIdent } from '../../../engine/storage/identifiers';
import type { TestApp } from '../../support/test-app';
import { pathFields, type Family, type Hop } from './filter-plan';
import { genericNames, ObjectFactory, scalarValue, writtenFields } from './object-factory';

const VARIANTS = ['A', 'B', 'C'] as const;
type V = (typeof VARIANTS)[number];

/** created / last_updated given to A and B (C keeps "now"), so timestamp filters can tell them apart. */
export const STAMPS: Record<'A' | 'B', string> = { A: '2020-01-02T03:04:05Z', B: '2020-03-04T05:06:07Z' };

/**
 * The main set: objects A, B and C that differ in every field. Foreign keys point at T1, T2 (T2 a
 * child of T1 in a tree) and null (or a third target when required); tags/m2m are [t1, t2], [t1], [];
 * generic relations point at objects of the first two allowed types, C at nothing.
 */
async function mainSet(f: ObjectFactory, model: ResolvedModel): Promise<number[]> {
  const u: Record<V, number> = { A: f.uniq(), B: f.uniq(), C: f.uniq() };
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
      for (const v of VARIANTS) {
        const value = scalarValue(field, field.kind === 'password' ? 'base' : v, u[v]);
        if (value !== undefined) over[v][name] = value;
      }
    }
  }
  const ids: number[] = [];
  for (const v of VARIANTS) ids.push((await f.createForFilters(model, over[v])).id);
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

/** What to write for a hop to point at `value` (an id, or null for unset): the fk, or the generic pair. */
function pointAt(f: ObjectFactory, hop: Hop, value: unknown): Record<string, unknown> {
  if (hop.field.kind !== 'generic_fk') return { [hop.field.name]: value };
  const g = genericNames(hop.field);
  const label = hop.typeLabel ?? f.genericTargets(hop.field)[0]?.label;
  return value === null || value === undefined ? { [g.type]: null, [g.id]: null } : { [g.type]: label, [g.id]: value };
}

/** The model a hop leads to (for a generic relation without a type: its first defined type). */
function hopTarget(f: ObjectFactory, hop: Hop): ResolvedModel | undefined {
  return hop.target ?? (hop.field.kind === 'generic_fk' ? f.genericTargets(hop.field)[0] : undefined);
}

/**
 * A set for a declared filter through a path (site.region, vlan.vid, assigned_object[dcim.interface].device):
 * A, B and C reach, at the end of the path, T1, T2 (child of T1 in a tree) and nothing (or, for a
 * scalar, three values); D, when the first hop may be unset, reaches nothing because the first hop is null.
 */
async function pathSet(f: ObjectFactory, model: ResolvedModel, path: string): Promise<number[]> {
  const hops = pathFields(model, path);
  const lastHop = hops[hops.length - 1]!;
  const last = lastHop.field;
  const finals: Record<V, unknown> = { A: undefined, B: undefined, C: undefined };
  const target = hopTarget(f, lastHop);
  if (target && (last.kind === 'fk' || last.kind === 'generic_fk')) {
    const [t1, t2, t3] = await f.targets(target);
    Object.assign(finals, { A: t1.id, B: t2.id, C: last.nullable ? null : t3.id });
  } else {
    const u = f.uniq();
    for (const v of VARIANTS) finals[v] = scalarValue(last, v, u + VARIANTS.indexOf(v));
  }
  const ids: number[] = [];
  for (const v of VARIANTS) {
    let value = finals[v];
    for (let i = hops.length - 1; i >= 1; i--) {
      const hop = hops[i]!;
      value = (await f.createForFilters(hop.field.model, value === undefined ? {} : pointAt(f, hop, value))).id;
    }
    ids.push((await f.createForFilters(model, value === undefined ? {} : pointAt(f, hops[0]!, value))).id);
  }
  if (hops.length > 1 && hops[0]!.field.nullable) ids.push((await f.createForFilters(model, pointAt(f, hops[0]!, null))).id);
  return ids;
}

/** A set for declared network filters on a field: nested IPv4 networks (or addresses) and one IPv6. */
async function netSet(f: ObjectFactory, model: ResolvedModel, fieldName: string): Promise<number[]> {
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

/** Every set the model's filters sample from, keyed as Family.set; ids in order A, B, C[, D]. */
export async function generateSets(t: TestApp, f: ObjectFactory, model: ResolvedModel, families: Family[]): Promise<Map<string, number[]>> {
  const sets = new Map<string, number[]>();
  const main = await mainSet(f, model);
  sets.set('main', main);
  if (model.timestamps !== false) {
    for (const [i, v] of (['A', 'B'] as const).entries()) {
      await t.knex.raw(`UPDATE ${quoteIdent(model.table)} SET "created" = ?, "last_updated" = ? WHERE "id" = ?`, [STAMPS[v], STAMPS[v], main[i]!]);
      f.dirty.add(model.label);
    }
  }
  for (const fam of families) {
    if (sets.has(fam.set)) continue;
    if (fam.set.startsWith('path:')) sets.set(fam.set, await pathSet(f, model, fam.set.slice('path:'.length)));
    else if (fam.set.startsWith('net:')) sets.set(fam.set, await netSet(f, model, fam.set.slice('net:'.length)));
  }
  return sets;
}
