import type { Registry, ResolvedModel } from '../definitions/registry-types';
import type { Sql } from '../sql/fragment';
import type { JsonOptions } from './object-json';
import { writtenStatement } from './read-statements';
import { runRows } from '../database/run';
import type { Db } from '../database/db';

/**
 * The answer to a write: the objects it touched, by id, in the order given (a bulk request is answered
 * in request order), as JSON text built by PostgreSQL in one statement of the write's transaction.
 * `current` is false when the credentials the write was authorised with changed meanwhile (the caller
 * then rolls the write back and runs it again with fresh ones).
 */
export async function writtenObjects(
  db: Db,
  registry: Registry,
  json: JsonOptions,
  model: ResolvedModel,
  ids: readonly number[],
  single: boolean,
  current: Sql,
): Promise<{ current: boolean; body: string }> {
  const [row] = await runRows<{ current: boolean; body: string | null }>(db, writtenStatement(registry, { model, ids, single, json, current }));
  return { current: row?.current === true, body: row?.body ?? 'null' };
}

/** An object's URL, as its representation gives it. */
export function objectUrl(origin: string, model: ResolvedModel, id: number): string {
  return `${origin}/api/${model.app}/${model.path}/${id}/`;
}
