import type { SqlValue } from '../sql/fragment';

/** A row as PostgreSQL returns it; callers name the shape they expect with the type parameter. */
export type Row = Record<string, unknown>;

/** What a statement gave back: its rows (none for most writes) and how many rows it touched or returned. */
export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

/** A statement with PostgreSQL's own `$1, $2...` holes and their values in order. */
export interface Statement {
  text: string;
  values: readonly unknown[];
}

export interface RunOptions {
  /**
   * Run as a named (prepared) statement: planned once per connection and then only bound and executed.
   * For the statements the engine sends on every request; a statement run once gains nothing.
   */
  prepared?: boolean;
}

/** What the 'query' listeners are told of each statement, before it runs (tests count and inspect them). */
export interface QueryEvent {
  /** The text as sent, with `$n` holes. */
  sql: string;
  bindings: readonly unknown[];
}

/**
 * Where statements run: the database (each statement on a connection of its own choosing) or one open
 * transaction (every statement on its connection). Code that runs statements takes a Db and works in both.
 */
export interface Db {
  /**
   * A statement with `?` holes, the values bound in order. `\?` is a literal `?` (jsonb's operators);
   * the values never become SQL text.
   */
  raw<R = Row>(sql: string, bindings?: readonly unknown[]): Promise<QueryResult<R>>;
  /** A statement with `$n` holes, as engine/sql/fragment.ts compiles it. */
  run<R = Row>(statement: Statement, options?: RunOptions): Promise<QueryResult<R>>;
  /**
   * Runs work in a transaction: committed when work's promise resolves, rolled back when it rejects (and
   * the rejection passed on). Inside a transaction, a nested one is a savepoint.
   */
  transaction<T>(work: (trx: DbTransaction) => Promise<T>): Promise<T>;
}

/** An open transaction: one connection, statements in order. Used after it ends, it refuses. */
export interface DbTransaction extends Db {
  readonly isTransaction: true;
}

/** The database itself: a Db that can also be watched and closed. */
export interface DbHandle extends Db {
  readonly isTransaction: false;
  on(event: 'query', listener: (q: QueryEvent) => void): void;
  /** Closes every connection (PostgreSQL) or the embedded database; statements after it fail. */
  destroy(): Promise<void>;
}

/** The values of a statement, checked: an undefined is a caller's bug, not a NULL. */
export function checkedValues(values: readonly unknown[]): unknown[] {
  const undefinedAt = values.findIndex((v) => v === undefined);
  if (undefinedAt >= 0) throw new Error(`Undefined binding(s) detected for the statement's value ${undefinedAt + 1}`);
  return values as unknown[];
}

export type { SqlValue };
