import type { Knex } from 'knex';
import type { OrderTerm, ResolvedModel } from '../definitions/registry-types';
import { quoteIdent } from '../storage/identifiers';
import { andAll, type Condition } from './conditions';
import { planOrdering } from './ordering';
import { rowSelectList, type Row } from './row-columns';

export interface ListQuery {
  model: ResolvedModel;
  conditions: Condition[];
  ordering: OrderTerm[];
  /** null: no limit */
  limit: number | null;
  offset: number;
}

/** One statement for the page: the rows, filtered, ordered and cut. */
export async function fetchPage(db: Knex | Knex.Transaction, q: ListQuery): Promise<Row[]> {
  const where = andAll(q.conditions);
  const order = planOrdering(q.model, q.ordering);
  const bindings: unknown[] = [...where.bindings];
  let sql = `SELECT ${rowSelectList(q.model, 't')} FROM ${quoteIdent(q.model.table)} AS "t" ${order.joins.join(' ')} WHERE ${where.sql} ORDER BY ${order.orderBy.join(', ')}`;
  if (q.limit !== null) {
    sql += ' LIMIT ?';
    bindings.push(q.limit);
  }
  if (q.offset) {
    sql += ' OFFSET ?';
    bindings.push(q.offset);
  }
  const result = await db.raw(sql, bindings as Knex.RawBinding[]);
  return result.rows as Row[];
}

export async function countRows(db: Knex | Knex.Transaction, model: ResolvedModel, conditions: Condition[]): Promise<number> {
  const where = andAll(conditions);
  const result = await db.raw(`SELECT count(*)::int AS "n" FROM ${quoteIdent(model.table)} AS "t" WHERE ${where.sql}`, where.bindings as Knex.RawBinding[]);
  return (result.rows as Array<{ n: number }>)[0]!.n;
}
