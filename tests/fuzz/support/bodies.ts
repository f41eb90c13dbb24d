import type { ResolvedField } from '../../../engine/definitions/registry-types';
import type { Prng } from './prng';
import { anyHostile, hostileFor, TWO_TO_70, typeLabelLike } from './hostile-values';
import { fromPlain, nested, Obj, Raw, type Json } from './json-text';
import type { Endpoint, World } from './world';

/**
 * JSON bodies built from a valid body of the type (the one that made a fixture), with one or more
 * fields mutated: wrong kinds, nesting, numbers beyond a double, NUL and lone surrogates in keys and
 * values, generic relations pointing at wrong or private types; and bulk lists of mixed elements.
 */

const TEXTUAL = new Set(['string', 'text', 'slug']);

/** The valid body, its unique-looking text made fresh for this case so that a create may succeed. */
export function validBodyOf(ep: Endpoint, world: World, caseNo: number, element = 0): Obj {
  const body = fromPlain(world.fixtures.bodies.get(ep.model.label) ?? {}) as Obj;
  for (const [key, value] of body.entries) {
    const f = ep.model.fields.get(key);
    if (!f || !TEXTUAL.has(f.kind) || typeof value !== 'string' || f.array) continue;
    const fresh = `${value}-k${caseNo}-${element}`;
    const fits = fresh.length <= (f.def.max_length ?? 1000) && (!f.def.pattern || new RegExp(f.def.pattern, 'u').test(fresh));
    if (fits) body.set(key, fresh);
  }
  return body;
}

/** Names a body may carry that the type does not define, or that mean something to JavaScript. */
const ODD_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'id', 'url', 'display', 'created', 'last_updated', '', ' ', 'a\u0000b', '\u0000', '\ud800', 'name\udfff', 'x'.repeat(10_000), 'custom_fields', 'tags', 'pk'];

function mutateOnce(rng: Prng, body: Obj, ep: Endpoint, world: World): void {
  const op = rng.weighted<string>([
    [10, 'field'],
    [2, 'generic'],
    [2, 'remove'],
    [2, 'odd-key'],
    [1, 'duplicate'],
    [1, 'alias'],
    [1, 'read-only'],
  ]);
  const field = (list: ResolvedField[]) => (list.length ? rng.pick(list) : undefined);
  switch (op) {
    case 'field': {
      // Fields that are not plain text (numbers, dates, addresses, relations) are where a value can reach SQL wrongly typed: more often.
      const typed = ep.writable.filter((x) => !TEXTUAL.has(x.kind));
      const f = typed.length && rng.chance(0.6) ? field(typed) : field(ep.writable);
      if (f) body.set(f.name, hostileFor(f, rng, world.vocab));
      return;
    }
    case 'generic': {
      if (!ep.genericPairs.length) return mutateOnce(rng, body, ep, world);
      const g = rng.pick(ep.genericPairs);
      const good = (g.field.genericTargets ?? []).map((m) => m.label);
      if (rng.chance(0.8)) body.set(g.typeKey, typeLabelLike(rng, world.vocab, good));
      const typeLabel = body.get(g.typeKey);
      const ids = typeof typeLabel === 'string' ? world.vocab.idsOf(typeLabel) : [];
      body.set(g.idKey, rng.weighted<() => Json>([
        [3, () => (ids.length ? rng.pick(ids) : 1)],
        [1, () => new Raw(TWO_TO_70)],
        [1, () => new Raw('1e20')],
        [1, () => -1],
        [1, () => anyHostile(rng)],
      ])());
      return;
    }
    case 'remove': {
      const keys = body.keys();
      if (keys.length) body.remove(rng.pick(keys));
      return;
    }
    case 'odd-key':
      body.set(rng.pick(ODD_KEYS), anyHostile(rng));
      return;
    case 'duplicate': {
      const keys = body.keys();
      if (keys.length) body.entries.push([rng.pick(keys), anyHostile(rng)]);
      return;
    }
    case 'alias': {
      if (!ep.writeAliases.length) return mutateOnce(rng, body, ep, world);
      const alias = rng.pick(ep.writeAliases);
      const target = ep.model.fields.get(ep.model.writeAliases.get(alias)!);
      body.set(alias, target && rng.chance(0.5) ? hostileFor(target, rng, world.vocab) : anyHostile(rng));
      return;
    }
    default: {
      const f = field(ep.fields.filter((x) => x.readOnly));
      if (f) body.set(f.name, hostileFor(f, rng, world.vocab));
    }
  }
}

/** A valid body with one to three mutations (now and then none: a write that should succeed). */
export function mutatedBody(rng: Prng, ep: Endpoint, world: World, caseNo: number, element = 0): Obj {
  const body = validBodyOf(ep, world, caseNo, element);
  const n = rng.weighted<number>([[2, 0], [6, 1], [3, 2], [2, 3]]);
  for (let i = 0; i < n; i++) mutateOnce(rng, body, ep, world);
  return body;
}

/** Something that is not the object a body should be. */
function notAnObject(rng: Prng): Json {
  return rng.pick<Json>([null, 1, 'x', true, [], [[]], new Raw(TWO_TO_70), new Raw('1e400'), nested(rng.between(2, 99), '[', '{}', ']'), nested(rng.between(101, 5000), '[', '', ']')]);
}

/** POST to a list: one object, or a list mixing valid, mutated and non-object elements. */
export function createBody(rng: Prng, ep: Endpoint, world: World, caseNo: number): Json {
  return rng.weighted<() => Json>([
    [6, () => mutatedBody(rng, ep, world, caseNo)],
    [3, () => Array.from({ length: rng.between(1, 4) }, (_, i) => (rng.chance(0.75) ? mutatedBody(rng, ep, world, caseNo, i) : notAnObject(rng)))],
    [1, () => notAnObject(rng)],
  ])();
}

/** A PATCH (some fields) or PUT (the whole body) of one object. */
export function updateBody(rng: Prng, ep: Endpoint, world: World, caseNo: number, put: boolean): Json {
  if (rng.chance(0.08)) return notAnObject(rng);
  const full = mutatedBody(rng, ep, world, caseNo);
  if (put) return full;
  const keys = rng.some(full.keys(), rng.between(1, 3));
  const partial = new Obj(full.entries.filter(([k]) => keys.includes(k)));
  if (rng.chance(0.5)) mutateOnce(rng, partial, ep, world);
  return partial;
}

function idFor(rng: Prng, ids: number[]): Json {
  return rng.weighted<() => Json>([
    [14, () => (ids.length ? ids[0]! : 1)],
    [1, () => 0],
    [1, () => -1],
    [1, () => new Raw(TWO_TO_70)],
    [1, () => new Raw('1e400')],
    [1, () => String(ids[0] ?? 1)],
    [1, () => null],
    [1, () => anyHostile(rng)],
  ])();
}

/** Bulk PUT/PATCH on a list: elements naming objects by id, with mutated fields. */
export function bulkUpdateBody(rng: Prng, ep: Endpoint, world: World, caseNo: number, put: boolean): Json {
  if (rng.chance(0.1)) return rng.pick<Json>([mutatedBody(rng, ep, world, caseNo), notAnObject(rng), new Obj([['id', 1]])]);
  const ids = world.vocab.idsOf(ep.model.label);
  return Array.from({ length: rng.between(1, 3) }, (_, i) => {
    if (rng.chance(0.1)) return notAnObject(rng);
    const el = updateBody(rng, ep, world, caseNo * 10 + i, put);
    if (el instanceof Obj && rng.chance(0.9)) el.set('id', idFor(rng, ids.slice(0, 1)));
    return el;
  });
}

/** Bulk DELETE on a list: [{id}...], bare ids, or something else. The spare object is the one deleted. */
export function bulkDeleteBody(rng: Prng, ep: Endpoint, world: World): Json {
  const spare = world.vocab.idsOf(ep.model.label).slice(1);
  return rng.weighted<() => Json>([
    [5, () => Array.from({ length: rng.between(1, 3) }, () => new Obj([['id', idFor(rng, spare)]]))],
    [1, () => spare.length ? [spare[0]!] : [1]],
    [1, () => new Obj([['id', spare[0] ?? 1]])],
    [1, () => [new Obj([['id', spare[0] ?? 1]]), new Obj([['id', spare[0] ?? 1]])]],
    [1, () => notAnObject(rng)],
    [1, () => Array.from({ length: 1001 }, (_, i) => new Obj([['id', 1_000_000 + i]]))],
  ])();
}
