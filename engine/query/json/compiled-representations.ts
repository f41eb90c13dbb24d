import type { Registry, ResolvedModel } from '../../definitions/registry-types';
import type { Sql } from '../../sql/fragment';
import { JsonCompiler, type Form } from './object-json';

/** Beyond this many shapes (exclude= takes any field list) the cache starts again empty. */
const MAX_SHAPES = 2000;

const byRegistry = new WeakMap<Registry, Map<string, Sql>>();

/**
 * The representation of the row aliased "t" of `model`, compiled once per shape and kept: compiling a
 * large one (an interface, with its cable peers of every kind) costs more than PostgreSQL takes to run it.
 * The fragment holds the ORIGIN hole; the statement using it binds the request's origin.
 */
export function representationOf(registry: Registry, model: ResolvedModel, form: Form, omit: ReadonlySet<string>, revealSecrets: boolean): Sql {
  let shapes = byRegistry.get(registry);
  if (!shapes) byRegistry.set(registry, (shapes = new Map()));
  // Only names the model has count: anything else in exclude= changes nothing, and must not grow the cache.
  const omitted = [...omit].filter((name) => model.fields.has(name) || name === 'url' || name === 'display' || name === 'id').sort();
  const key = `${model.label}|${form}|${revealSecrets ? 1 : 0}|${omitted.join(',')}`;
  let compiled = shapes.get(key);
  if (!compiled) {
    compiled = new JsonCompiler(registry, { revealSecrets }).object(model, 't', form, { nested: false, omit: new Set(omitted) });
    if (shapes.size >= MAX_SHAPES) shapes.clear();
    shapes.set(key, compiled);
  }
  return compiled;
}
