import type { Knex } from 'knex';
import type { Registry, ResolvedModel } from '../definitions/registry-types';
import type { Representation, Serializer } from '../serialization/serialize';
import { quoteIdent } from '../storage/identifiers';
import { loadRelated, type Form } from './related-loader';
import { rowSelectList, type Row } from './row-columns';

/** Rows to representations: their related data loaded in a fixed number of queries, then serialized. */
export async function renderRows(
  db: Knex | Knex.Transaction,
  registry: Registry,
  serializer: Serializer,
  model: ResolvedModel,
  rows: Row[],
  form: Form,
  omit: ReadonlySet<string> = new Set(),
): Promise<Representation[]> {
  if (!rows.length) return [];
  const data = await loadRelated(db, registry, model, rows, form, omit);
  return rows.map((r) => serializer.render(model, r, form, data, omit));
}

/** Objects by id, in the order of the ids given (a bulk request is answered in request order). */
export async function readByIds(
  db: Knex | Knex.Transaction,
  registry: Registry,
  serializer: Serializer,
  model: ResolvedModel,
  ids: number[],
  form: Form = 'full',
): Promise<Representation[]> {
  if (!ids.length) return [];
  const result = await db.raw(`SELECT ${rowSelectList(model, 't')} FROM ${quoteIdent(model.table)} AS "t" WHERE "t"."id" = ANY(?)`, [ids]);
  const byId = new Map((result.rows as Row[]).map((r) => [r.id, r]));
  const rows = ids.map((id) => byId.get(id)).filter((r): r is Row => !!r);
  return renderRows(db, registry, serializer, model, rows, form);
}
