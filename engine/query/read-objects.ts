import type { Knex } from 'knex';
import type { Registry, ResolvedModel } from '../definitions/registry-types';
import { sql } from '../sql/fragment';
import type { Form, JsonOptions } from './json/object-json';
import { objectsStatement } from './statements/read-statements';
import { runRows } from './statements/run';

export type Representation = Record<string, unknown>;

/**
 * Objects by id, in the order of the ids given (a bulk request is answered in request order): one
 * statement, the representations built by PostgreSQL. Used for the answer to a write.
 */
export async function readByIds(
  db: Knex | Knex.Transaction,
  registry: Registry,
  json: JsonOptions,
  model: ResolvedModel,
  ids: number[],
  form: Form = 'full',
): Promise<Representation[]> {
  if (!ids.length) return [];
  const rows = await runRows<{ id: number; body: string }>(db, objectsStatement(registry, { model, conditions: [sql`"t"."id" = ANY(${ids})`], form, omit: new Set(), json }));
  const byId = new Map(rows.map((r) => [Number(r.id), r.body]));
  return ids.flatMap((id) => {
    const body = byId.get(id);
    return body === undefined ? [] : [JSON.parse(body) as Representation];
  });
}

/** An object's URL, as its representation gives it. */
export function objectUrl(origin: string, model: ResolvedModel, id: number): string {
  return `${origin}/api/${model.app}/${model.path}/${id}/`;
}
