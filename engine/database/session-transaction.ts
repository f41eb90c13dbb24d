import { positional } from './placeholders';
import { commitFailure } from './commit-outcome';
import type { DbTransaction, QueryResult, Row, RunOptions, Statement } from './db';

/** Runs one statement on the session a transaction holds. */
export type SessionExec = (statement: Statement, options?: RunOptions) => Promise<QueryResult<Row>>;

const BEGIN: Statement = { text: 'BEGIN;', values: [] };
const COMMIT: Statement = { text: 'COMMIT;', values: [] };
const ROLLBACK: Statement = { text: 'ROLLBACK', values: [] };

/** One open transaction on a session both back ends share the semantics of. */
class SessionTransaction implements DbTransaction {
  readonly isTransaction = true;
  ended = false;
  private savepoints = 0;

  constructor(private readonly exec: SessionExec) {}

  raw<R = Row>(sql: string, bindings: readonly unknown[] = []): Promise<QueryResult<R>> {
    return this.run<R>(positional(sql, bindings));
  }

  async run<R = Row>(statement: Statement, options?: RunOptions): Promise<QueryResult<R>> {
    // A statement after the end would run outside the transaction, on a connection another request may hold.
    if (this.ended) throw new Error('Transaction query already complete');
    return (await this.exec(statement, options)) as QueryResult<R>;
  }

  /** A nested transaction is a savepoint: its failure undoes its own statements, not the outer ones. */
  async transaction<T>(work: (trx: DbTransaction) => Promise<T>): Promise<T> {
    const name = `pb_savepoint_${++this.savepoints}`;
    await this.run({ text: `SAVEPOINT ${name};`, values: [] });
    try {
      const result = await work(this);
      await this.run({ text: `RELEASE SAVEPOINT ${name};`, values: [] });
      return result;
    } catch (e) {
      if (!this.ended) await this.run({ text: `ROLLBACK TO SAVEPOINT ${name}`, values: [] });
      throw e;
    }
  }
}

/**
 * BEGIN, work, COMMIT; ROLLBACK when work rejects, and its rejection passed on. A failed COMMIT (a deferred
 * constraint, a serialization failure) has already ended the transaction on the server; it is passed on
 * too; a lost connection during COMMIT is marked as an unknown outcome. onBroken hears of a ROLLBACK that failed: the session's state is unknown, it must not be reused.
 */
export async function inTransaction<T>(exec: SessionExec, work: (trx: DbTransaction) => Promise<T>, onBroken: () => void): Promise<T> {
  await exec(BEGIN);
  const trx = new SessionTransaction(exec);
  let result: T;
  try {
    result = await work(trx);
  } catch (e) {
    trx.ended = true;
    await exec(ROLLBACK).catch(onBroken);
    throw e;
  }
  trx.ended = true;
  // A lost connection here leaves the outcome unknown (engine/database/commit-outcome.ts): told apart from a 503.
  await exec(COMMIT).catch((e: unknown) => {
    throw commitFailure(e);
  });
  return result;
}
