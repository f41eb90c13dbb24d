import type { Registry, ResolvedModel } from '../definitions/registry-types';
import { and, ident, join, sql, type Sql } from '../sql/fragment';
import type { JsonOptions } from '../reads/object-json';
import { representationOf } from '../reads/compiled-representations';
import { assignments, jsonRecord } from './write-row-sets';

/**
 * What a write made in one statement was prepared against, checked by that statement before it writes:
 * the caller's cached credentials, and the custom field definitions it validated with (their text as
 * read FOR SHARE, against the text it had; null when the model has none).
 */
export interface WriteGuard {
  current: Sql;
  definitions: { now: Sql; seen: string } | null;
}

/** Columns "current" and "defs"; the write's WHERE requires both. */
function guardCte(g: WriteGuard): Sql {
  const defs = g.definitions ? sql`${g.definitions.now} = ${g.definitions.seen}::text` : sql`TRUE`;
  return sql`"guard" AS (SELECT ${g.current} AS "current", ${defs} AS "defs")`;
}

/** The answer's columns: the guard's verdicts, and the written row's id and representation (NULL when none was written). */
function answer(registry: Registry, model: ResolvedModel, json: JsonOptions): Sql {
  const object = representationOf(registry, model, 'full', new Set(), json);
  return sql`SELECT "guard"."current", "guard"."defs", (SELECT "w"."id" FROM "w") AS "id", (SELECT (${object})::text FROM "w" AS "t") AS "body" FROM "guard"`;
}

export interface InsertOne {
  model: ResolvedModel;
  /** The columns written (at least one), and the row as a JSON document holding them. */
  names: readonly string[];
  row: Record<string, unknown>;
  json: JsonOptions;
  guard: WriteGuard;
}

/**
 * A create as one statement (a data-modifying CTE): the guard, the INSERT, and the new object's
 * representation read from the inserted row. Nothing else can refer to a row this statement creates,
 * so the representation's reverse relations and counts, read from the statement's snapshot, are right.
 */
export function insertOneStatement(registry: Registry, q: InsertOne): Sql {
  const cols = join(q.names.map((n) => ident(n)));
  const values = join(q.names.map((n) => sql`"v".${ident(n)}`));
  return sql`WITH ${guardCte(q.guard)}, "w" AS (
    INSERT INTO ${ident(q.model.table)} (${cols}) SELECT ${values} FROM ${jsonRecord(q.model, q.row)} AS "v", "guard" WHERE "guard"."current" AND "guard"."defs"
    RETURNING *)
  ${answer(registry, q.model, q.json)}`.bindParams({ origin: q.json.origin });
}

/**
 * A create whose definition has checks, as the first statement of its transaction: the guard, the INSERT
 * and the checks' locks over the row it wrote (`lockRows`, CompiledChecks), answered with the new id only.
 * The verdicts and the representation are read together by the next statement (checkedAnswerStatement),
 * whose snapshot comes after the locks. The locks' CTE is read by the answer, so it always runs.
 */
export function insertGuardedStatement(q: Omit<InsertOne, 'json'> & { lockRows: ((rows: Sql) => Sql) | null }): Sql {
  const cols = join(q.names.map((n) => ident(n)));
  const values = join(q.names.map((n) => sql`"v".${ident(n)}`));
  const locks = q.lockRows ? sql`, "locks" AS (${q.lockRows(sql`"w" AS "t"`)})` : sql``;
  const locked = q.lockRows ? sql`, (SELECT "locks"."locks" FROM "locks") AS "locks"` : sql``;
  return sql`WITH ${guardCte(q.guard)}, "w" AS (
    INSERT INTO ${ident(q.model.table)} (${cols}) SELECT ${values} FROM ${jsonRecord(q.model, q.row)} AS "v", "guard" WHERE "guard"."current" AND "guard"."defs"
    RETURNING *)${locks}
  SELECT "guard"."current", "guard"."defs", (SELECT "w"."id" FROM "w") AS "id"${locked} FROM "guard"`;
}

/** The checks' columns (compileChecks) on one written row, beside its representation ("body"): one statement. */
export function checkedAnswerStatement(registry: Registry, model: ResolvedModel, id: number, checks: Sql, json: JsonOptions): Sql {
  const object = representationOf(registry, model, 'full', new Set(), json);
  return sql`SELECT ${checks}, (${object})::text AS "body" FROM ${ident(model.table)} AS "t" CROSS JOIN (SELECT ${[id]}::bigint[] AS "ids") AS "req"
  WHERE "t"."id" = ${id}::bigint`.bindParams({ origin: json.origin });
}

export interface UpdateOne {
  model: ResolvedModel;
  id: number;
  names: readonly string[];
  row: Record<string, unknown>;
  /** JSON columns whose written keys are merged into the stored object (custom fields). */
  mergeColumns: ReadonlySet<string>;
  /** Conditions on the row aliased "t" it must meet to be written (the caller's view scope). */
  conditions: readonly Sql[];
  json: JsonOptions;
  guard: WriteGuard;
}

/**
 * A change of one object as one statement: the guard, the UPDATE of the row if it exists and is in
 * scope (the row lock it takes re-checks the conditions on the row as a concurrent change leaves it),
 * and the changed row's representation. "body" is NULL when no row was written.
 */
export function updateOneStatement(registry: Registry, q: UpdateOne): Sql {
  const sets = assignments(q.model, q.names, q.mergeColumns);
  // Nothing to change still answers with the object, unchanged (not even last_updated), as the transactional path does.
  if (!sets.length) sets.push(sql`"id" = "t"."id"`);
  const where = and([sql`"t"."id" = ${q.id}::bigint`, ...q.conditions, sql`"guard"."current"`, sql`"guard"."defs"`]);
  return sql`WITH ${guardCte(q.guard)}, "w" AS (
    UPDATE ${ident(q.model.table)} AS "t" SET ${join(sets)} FROM ${jsonRecord(q.model, q.row)} AS "v", "guard" WHERE ${where}
    RETURNING "t".*)
  ${answer(registry, q.model, q.json)}`.bindParams({ origin: q.json.origin });
}
