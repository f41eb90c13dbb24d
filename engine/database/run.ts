import type { Db } from './db';
import type { Sql } from '../sql/fragment';

/**
 * Runs one statement built from fragments; its rows. The statement is prepared (a named statement, see
 * engine/database/pg-database.ts), so a request shape seen before on the connection is not planned again.
 */
export async function runRows<T>(db: Db, statement: Sql): Promise<T[]> {
  const result = await db.run<T>(statement.toPositional(), { prepared: true });
  return result.rows;
}
