import type { PGlite, Results } from '@electric-sql/pglite';
import type { DbHandle, DbTransaction, QueryEvent, QueryResult, Row, RunOptions, Statement } from './db';
import { checkedValues } from './db';
import { positional } from './placeholders';
import { inTransaction } from './session-transaction';
import { QueryListeners } from './query-listeners';
import { SessionMutex } from './session-mutex';
import { queryNamed } from './pglite-named-statement';

/** PGlite attaches the statement's values to its errors; they stay out of logs and responses. */
function withoutValues(e: unknown): unknown {
  if (e && typeof e === 'object' && 'params' in e) delete (e as { params?: unknown }).params;
  return e;
}

function resultOf(r: Results): QueryResult<Row> {
  const rows = r.rows as Row[];
  // pg's rowCount: rows touched by a write, rows returned by a read.
  return { rows, rowCount: r.affectedRows || rows.length };
}

/**
 * The embedded database (PGlite): one session in this process. A statement takes the session for itself
 * alone, a transaction for all of its statements, through a mutex of this layer's; statements marked
 * prepared run as named statements (engine/database/pglite-named-statement.ts).
 */
export async function openPgliteDatabase(pglite: PGlite, schema: string | undefined): Promise<DbHandle> {
  const mutex = new SessionMutex();
  const listeners = new QueryListeners();

  async function exec(statement: Statement, options?: RunOptions): Promise<QueryResult<Row>> {
    const values = checkedValues(statement.values);
    listeners.emit(statement.text, values);
    try {
      return resultOf(options?.prepared ? await queryNamed(pglite, statement.text, values) : await pglite.query(statement.text, values));
    } catch (e) {
      throw withoutValues(e);
    }
  }

  await pglite.waitReady;
  if (schema) await pglite.query(`SET search_path TO "${schema.replace(/"/g, '')}"`);

  const handle: DbHandle = {
    isTransaction: false,
    raw<R = Row>(sql: string, bindings: readonly unknown[] = []): Promise<QueryResult<R>> {
      return handle.run<R>(positional(sql, bindings));
    },
    run<R = Row>(statement: Statement, options?: RunOptions): Promise<QueryResult<R>> {
      return mutex.run(() => exec(statement, options)) as Promise<QueryResult<R>>;
    },
    transaction<T>(work: (trx: DbTransaction) => Promise<T>): Promise<T> {
      // A failed ROLLBACK leaves nothing to retire: the session is the database.
      return mutex.run(() => inTransaction(exec, work, () => undefined));
    },
    on(event: 'query', listener: (q: QueryEvent) => void): void {
      listeners.add(listener);
    },
    destroy: () => pglite.close(),
  };
  return handle;
}
