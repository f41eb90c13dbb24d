import type { Knex } from 'knex';
import type { Sql } from '../../sql/fragment';

type Db = Knex | Knex.Transaction;

/** Runs one statement built from fragments; its rows. */
export async function runRows<T>(db: Db, statement: Sql): Promise<T[]> {
  const { sql, bindings } = statement.toKnex();
  const result = await db.raw(sql, bindings as Knex.RawBinding[]);
  return result.rows as T[];
}
