import type { ResolvedModel } from '../../../engine/definitions/registry-types';
import type { Prng } from './prng';
import { anyHostile, hostileFor, typeLabelLike } from './hostile-values';
import { nested, Obj, toJsonText, type Json } from './json-text';
import type { FuzzRequest } from './fuzz-request';
import type { Endpoint, World } from './world';

/**
 * Permission constraints are JSON stored now and read on every later request of the permission's
 * users: a case rewrites the probe user's permission (its types, actions and constraints, drawn from
 * the type's fields and their kinds) and then acts as that user.
 */

/** Lookups Django's ORM (and so NetBox's constraints) knows, and some it does not. */
const LOOKUPS = ['', '', '', '__exact', '__iexact', '__in', '__isnull', '__contains', '__icontains', '__startswith', '__iendswith', '__gt', '__gte', '__lt', '__lte', '__regex', '__n', '__'];

/** One `path__lookup` key: a field of the type, a path through a foreign key, the id, or junk. */
function constraintKey(rng: Prng, model: ResolvedModel): { key: string; model: ResolvedModel; field: string } {
  const fields = model.fieldList.filter((f) => !f.writeOnly);
  const f = fields.length ? rng.pick(fields) : undefined;
  return rng.weighted<() => { key: string; model: ResolvedModel; field: string }>([
    [6, () => ({ key: `${f?.name ?? 'id'}${rng.pick(LOOKUPS)}`, model, field: f?.name ?? 'id' })],
    [2, () => ({ key: `${rng.pick(['id', 'pk'])}${rng.pick(LOOKUPS)}`, model, field: 'id' })],
    [2, () => {
      const fk = fields.filter((x) => x.target);
      if (!fk.length) return { key: 'id', model, field: 'id' };
      const via = rng.pick(fk);
      const next = via.target!.fieldList.filter((x) => !x.writeOnly);
      const g = next.length ? rng.pick(next) : undefined;
      return { key: `${via.name}__${g?.name ?? 'id'}${rng.pick(LOOKUPS)}`, model: via.target!, field: g?.name ?? 'id' };
    }],
    [1, () => ({ key: rng.pick(['', '__proto__', 'constructor', 'nothing', 'a__b__c__d', `${f?.name ?? 'id'}_id`, 'x'.repeat(300)]), model, field: 'id' })],
  ])();
}

function constraintValue(rng: Prng, model: ResolvedModel, field: string, world: World): Json {
  const f = model.fields.get(field);
  return rng.weighted<() => Json>([
    [4, () => (f ? hostileFor(f, rng, world.vocab) : anyHostile(rng))],
    [2, () => anyHostile(rng)],
    [1, () => '$user'],
    [1, () => [rng.pick<Json>([1, 'a', null, '$user']), rng.pick<Json>([2, true, '2024-02-30'])]],
  ])();
}

function constraintsJson(rng: Prng, model: ResolvedModel, world: World): Json {
  const one = (): Json => {
    const out = new Obj();
    for (let i = rng.between(1, 2); i > 0; i--) {
      const k = constraintKey(rng, model);
      out.set(k.key, constraintValue(rng, k.model, k.field, world));
    }
    return out;
  };
  // Constraints that hold for some objects of the type, so the cases also write within (and just outside) them.
  const ids = world.vocab.idsOf(model.label);
  const holding = (): Json => rng.pick<Json>([
    new Obj([['id__in', ids.slice(0, rng.between(1, 2))]]),
    new Obj([['id__gte', 1]]),
    new Obj([['id', ids[0] ?? 1]]),
    new Obj([['id__lt', ids[1] ?? 2]]),
    [new Obj([['id', ids[1] ?? 2]]), one()],
  ]);
  return rng.weighted<() => Json>([
    [4, one],
    [3, holding],
    [2, () => [one(), one()]],
    [1, () => rng.pick<Json>([null, new Obj(), [], [new Obj()], 'id=1', 5, true, [[new Obj([['id', 1]])]], nested(90, '[', '{}', ']'), [null]])],
  ])();
}

/** The permission rewrite that comes first, as the superuser. */
export function constraintSetup(rng: Prng, ep: Endpoint, world: World): FuzzRequest {
  const actions = rng.some(['view', 'add', 'change', 'delete'], rng.between(1, 4));
  const types: Json = rng.chance(0.9) ? [ep.model.label] : [typeLabelLike(rng, world.vocab, [ep.model.label])];
  const body = new Obj([['object_types', types], ['actions', actions], ['enabled', true], ['constraints', constraintsJson(rng, ep.model, world)]]);
  const perms = world.endpoints.find((e) => e.model.def.role === 'permission');
  return {
    surface: 'constraints',
    settings: 'default',
    method: 'PATCH',
    path: `${perms?.list ?? '/api/users/permissions/'}${world.fixtures.probe.permissionId}/`,
    headers: { Authorization: `Token ${world.fixtures.tokens.superuser}`, 'Content-Type': 'application/json' },
    body: Buffer.from(toJsonText(body), 'utf8'),
    htmlOk: false,
  };
}
