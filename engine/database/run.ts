import type { Knex } from 'knex';
import type { Sql } from '../sql/fragment';

type Db = Knex | Knex.Transaction;

/**
 * Runs one statement built from fragments; its rows. The statement is prepared on PostgreSQL (see
 * engine/database/pg-client.ts), so a request shape seen before on the connection is not planned again.
 */
export async function runRows<T>(db: Db, statement: Sql): Promise<T[]> {
  const { sql, bindings } = statement.toKnex();
  const result = await db.raw(sql, bindings as Knex.RawBinding[]).options({ prepared: true });
  return result.rows as T[];
}
