import type { Db, DbHandle, DbTransaction, QueryEvent, QueryResult, Row, RunOptions, Statement } from './db';
import { positional } from './placeholders';
import { currentRequestScope, type StandbyRead } from './request-scope';

/**
 * The primary, with a request's single statements sent to the standby its scope reads from, if any
 * (engine/database/request-scope.ts: only safe reads set one). Transactions always run on the primary,
 * and so does everything outside a request (the event dispatcher, retention, migrations, commands).
 */
class RoutedDb implements DbHandle {
  readonly isTransaction = false;

  constructor(
    readonly primary: DbHandle,
    private readonly standbys: readonly DbHandle[],
    private readonly onStandbyError: (standby: StandbyRead, error: unknown) => void,
  ) {}

  raw<R = Row>(sql: string, bindings: readonly unknown[] = []): Promise<QueryResult<R>> {
    return this.run<R>(positional(sql, bindings));
  }

  async run<R = Row>(statement: Statement, options?: RunOptions): Promise<QueryResult<R>> {
    const standby = currentRequestScope()?.readFrom;
    if (!standby) return this.primary.run<R>(statement, options);
    try {
      return await standby.db.run<R>(statement, options);
    } catch (e) {
      // Whatever failed there (the standby went away, a recovery conflict cancelled the statement), the
      // primary answers, for this statement and the rest of the request. Were the statement wrong, the
      // primary reports it as it would have anyway.
      const scope = currentRequestScope();
      if (scope?.readFrom === standby) scope.readFrom = undefined;
      this.onStandbyError(standby, e);
      return this.primary.run<R>(statement, options);
    }
  }

  transaction<T>(work: (trx: DbTransaction) => Promise<T>): Promise<T> {
    return this.primary.transaction(work);
  }

  on(event: 'query', listener: (q: QueryEvent) => void): void {
    this.primary.on(event, listener);
    for (const s of this.standbys) s.on(event, listener);
  }

  /** Closes the primary's connections; the standbys' belong to their ReplicaSet. */
  destroy(): Promise<void> {
    return this.primary.destroy();
  }
}

export function routedDb(primary: DbHandle, standbys: readonly DbHandle[], onStandbyError: (standby: StandbyRead, error: unknown) => void): DbHandle {
  return new RoutedDb(primary, standbys, onStandbyError);
}

/** The primary behind a routed handle (the handle itself otherwise): for writes a read request must make. */
export function primaryOf(db: Db): Db {
  return db instanceof RoutedDb ? db.primary : db;
}
