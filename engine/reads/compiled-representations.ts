import type { Registry, ResolvedModel } from '../definitions/registry-types';
import { sql, type Sql } from '../sql/fragment';
import { JsonCompiler, type CompileOptions, type Form, type HoistedRelation, type JsonOptions } from './object-json';
import { namesOfForm } from './forms';
import { rowsKey, type Rows } from './reader-access';

/** Beyond this many shapes (exclude= takes any field list) the cache starts again empty. */
const MAX_SHAPES = 2000;
/** Beyond this many sets of permissions compiled for one shape, that shape's compilations start again. */
const MAX_VARIANTS = 100;

/** A compiled representation of the row aliased "t", and the relations it reads (hoisted nested objects of a list; none otherwise). */
export interface Compiled {
  object: Sql;
  /** By name. */
  relations: ReadonlyMap<string, HoistedRelation>;
}

interface Shape {
  /** The types whose viewable rows the representation depends on (objects at the far end of its links). */
  consulted: ResolvedModel[];
  /** Compiled, by what the reader may view of those types and whether shown_with fields show. */
  compiled: Map<string, Compiled>;
}

const byRegistry = new WeakMap<Registry, Map<string, Shape>>();

function shapeKey(model: ResolvedModel, form: Form, omitted: readonly string[], revealSecrets: boolean, hoistFrom: string | undefined): string {
  return `${model.label}|${form}|${revealSecrets ? 1 : 0}|${omitted.join(',')}|${hoistFrom ?? ''}`;
}

function compile(registry: Registry, model: ResolvedModel, form: Form, omitted: readonly string[], opts: CompileOptions): Compiled {
  const compiler = new JsonCompiler(registry, opts);
  const object = compiler.object(model, 't', form, { nested: false, omit: new Set(omitted) });
  return { object, relations: compiler.hoistedRelations() };
}

/**
 * The shape's exclude set, canonical: only names the form shows count (anything else in exclude= changes
 * nothing, and must not grow the cache), sorted, so every permutation of one exclude= shares one entry
 * and one compilation (an interface's full form takes tens of milliseconds to compile).
 */
function omittedOf(model: ResolvedModel, form: Form, omit: ReadonlySet<string>): string[] {
  if (!omit.size) return [];
  const shown = namesOfForm(model, form);
  return [...omit].filter((name) => shown.has(name)).sort();
}

function shapeOf(registry: Registry, model: ResolvedModel, form: Form, omitted: readonly string[], revealSecrets: boolean, hoistFrom?: string): Shape {
  let shapes = byRegistry.get(registry);
  if (!shapes) byRegistry.set(registry, (shapes = new Map()));
  const key = shapeKey(model, form, omitted, revealSecrets, hoistFrom);
  let shape = shapes.get(key);
  if (!shape) {
    // Compiled once as a reader who may view everything, noting which types it asked about: the
    // compiler asks about every type it may link to, whatever the answer, so these are all of them.
    const consulted = new Set<ResolvedModel>();
    const everything = compile(registry, model, form, omitted, { revealSecrets, revealShown: false, view: (m) => (consulted.add(m), true), hoistFrom });
    shape = { consulted: [...consulted].sort((a, b) => a.label.localeCompare(b.label)), compiled: new Map() };
    shape.compiled.set(variantKey(shape.consulted, () => true, false), everything);
    if (shapes.size >= MAX_SHAPES) shapes.clear();
    shapes.set(key, shape);
  }
  return shape;
}

function variantKey(consulted: readonly ResolvedModel[], view: (m: ResolvedModel) => Rows, revealShown: boolean): string {
  return `${revealShown ? 1 : 0}|${consulted.map((m) => rowsKey(view(m))).join(';')}`;
}

/** The types whose viewable rows a representation depends on: the caller's permissions for these are needed to build it. */
export function consultedTypes(registry: Registry, model: ResolvedModel, form: Form): readonly ResolvedModel[] {
  return shapeOf(registry, model, form, [], false).consulted;
}

/**
 * The representation of the row aliased "t" of `model`, compiled once per shape and per what the reader
 * may see, and kept: compiling a large one (an interface, with its cable peers of every kind) costs more
 * than PostgreSQL takes to run it. Readers with the same permissions share one (the key is the SQL of
 * their conditions). The fragment holds the ORIGIN hole; the statement using it binds the request's origin.
 * A model with shown_with fields shows them on the rows json.access.reveal gives, and leaves them out of
 * the others' (the two compiled forms, chosen row by row).
 */
export function representationOf(registry: Registry, model: ResolvedModel, form: Form, omit: ReadonlySet<string>, json: Pick<JsonOptions, 'revealSecrets' | 'access'>): Sql {
  return compiledRepresentation(registry, model, form, omit, json).object;
}

/**
 * As representationOf, for the rows of a list page held by the relation `page` (aliased "t" where the
 * representation is read): nested foreign-key objects come from the returned relations (CTEs of the
 * statement, joined after `FROM page AS "t"`), each built once per distinct row the page references.
 */
export function listRepresentationOf(registry: Registry, model: ResolvedModel, form: Form, omit: ReadonlySet<string>, json: Pick<JsonOptions, 'revealSecrets' | 'access'>, page: string): Compiled {
  return compiledRepresentation(registry, model, form, omit, json, page);
}

function compiledRepresentation(registry: Registry, model: ResolvedModel, form: Form, omit: ReadonlySet<string>, json: Pick<JsonOptions, 'revealSecrets' | 'access'>, hoistFrom?: string): Compiled {
  const omitted = omittedOf(model, form, omit);
  const shape = shapeOf(registry, model, form, omitted, json.revealSecrets, hoistFrom);
  const compiled = (revealShown: boolean): Compiled => {
    const key = variantKey(shape.consulted, json.access.view, revealShown);
    let c = shape.compiled.get(key);
    if (!c) {
      c = compile(registry, model, form, omitted, { revealSecrets: json.revealSecrets, revealShown, view: json.access.view, hoistFrom });
      if (shape.compiled.size >= MAX_VARIANTS) shape.compiled.clear();
      shape.compiled.set(key, c);
    }
    return c;
  };
  const guarded = model.fieldList.some((f) => f.def.shown_with && !omitted.includes(f.name)) && form === 'full';
  const reveal = guarded ? json.access.reveal(model) : false;
  if (typeof reveal === 'boolean') return compiled(reveal);
  // A relation of either form holds the same rows under the same name: nested objects never show shown_with fields.
  const shown = compiled(true);
  const hidden = compiled(false);
  return { object: sql`CASE WHEN ${reveal} THEN ${shown.object} ELSE ${hidden.object} END`, relations: new Map([...shown.relations, ...hidden.relations]) };
}
