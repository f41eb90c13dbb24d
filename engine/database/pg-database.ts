import pg from 'pg';
import type { DbHandle, DbTransaction, QueryEvent, QueryResult, Row, RunOptions, Statement } from './db';
import { checkedValues } from './db';
import { positional } from './placeholders';
import { inTransaction } from './session-transaction';
import { QueryListeners } from './query-listeners';
import { MAX_PREPARED_PER_CONNECTION, preparedName } from './prepared-names';
import { currentRequestScope } from './request-scope';
import { markUnavailable, unavailableReason } from './db-unavailable';
import type { PoolMode } from './pool-mode';
import { isPoolerMismatch, poolerMismatchError } from './pooler-mismatch';
import { sendCancelRequest } from './cancel-request';
import { StartupError } from './startup-error';

export interface PgDatabaseOptions {
  url: string;
  poolMax: number;
  /** session (default): start-up options and named statements; transaction: neither (see pool-mode.ts). */
  poolMode?: PoolMode;
  /** The schema unqualified names resolve in (search_path), set when each connection starts. */
  schema?: string;
  /** Milliseconds, 0 for none; see DatabaseLimits in connect.ts. */
  statementTimeoutMs?: number;
  queryTimeoutMs: number;
  connectTimeoutMs: number;
  acquireTimeoutMs: number;
}

/** What this layer tracks per pooled connection. */
interface ConnectionState {
  /** Why the connection must not be handed out again, once it must not. */
  disposed?: string;
  running: boolean;
  /** Ends the request scope's hold on the connection. */
  release?: () => void;
  /** Names of the statements prepared on this connection. */
  prepared: Set<string>;
}

/** A query that got no answer within the client-side limit; its connection was closed, never reused. */
function queryTimeoutError(ms: number): Error {
  const reason = `no answer within PATCHBAY_DB_QUERY_TIMEOUT (${ms / 1000} s)`;
  return markUnavailable(Object.assign(new Error(`the database gave ${reason}`), { name: 'QueryTimeoutError' }), reason);
}

/** Raised when a request whose client has left asks for another connection. */
function clientGoneError(): Error {
  const reason = 'the client left before the response';
  return markUnavailable(Object.assign(new Error(reason), { name: 'ClientGoneError' }), reason);
}

function acquireTimeoutError(ms: number): Error {
  const reason = 'no database connection became free in time';
  return markUnavailable(Object.assign(new Error(`${reason} (PATCHBAY_DB_ACQUIRE_TIMEOUT, ${ms / 1000} s)`), { name: 'AcquireTimeoutError' }), reason);
}

/**
 * A driver error tagged when it is the database's unavailability (a 503), untouched otherwise; a session-mode
 * client on a transaction-mode pooler is told so in one line.
 */
function classified(e: unknown): unknown {
  if (isPoolerMismatch(e)) return poolerMismatchError(e);
  const reason = unavailableReason(e);
  return reason && e && typeof e === 'object' ? markUnavailable(e, reason) : e;
}

/** PostgreSQL's `-c` start-up options: a space or backslash in a value is escaped with a backslash. */
function startupOption(name: string, value: string): string {
  return `-c ${name}=${value.replace(/[\\\s]/g, (c) => `\\${c}`)}`;
}

/**
 * The URL without its `options` parameter, and that parameter: pg lets a URL's parameters override the
 * configuration's, so the URL's start-up options are put before this layer's instead of replacing them.
 */
function urlOptions(url: string): { url: string; options: string } {
  try {
    const u = new URL(url);
    const options = u.searchParams.get('options');
    if (options === null) return { url, options: '' };
    u.searchParams.delete('options');
    return { url: u.toString(), options };
  } catch {
    return { url, options: '' };
  }
}

/**
 * PostgreSQL through pg.Pool, with what neither gives by itself:
 * - a client-side query timeout. statement_timeout is enforced by the server, so a frozen or unreachable
 *   server enforces nothing; after queryTimeoutMs the connection is closed (a late answer could never be
 *   told apart from the next query's) and never handed out again;
 * - cancel on disconnect: a connection is recorded in the request scope of the code that acquires it,
 *   and when that request's client leaves, its running statement is cancelled (the protocol's
 *   CancelRequest, which a pooler forwards to the right server connection) and the connection retired;
 * - in session mode, named statements for the statements marked prepared, at most
 *   MAX_PREPARED_PER_CONNECTION per connection (past that the connection is retired, which frees their
 *   plans on the server); in transaction mode, unnamed statements and no start-up options (pool-mode.ts);
 * - an acquire timeout apart from the connect timeout (pg.Pool has one setting for both).
 * Errors are pg's own, never carrying the bound values.
 */
export function openPgDatabase(opts: PgDatabaseOptions): DbHandle {
  const transactionMode = opts.poolMode === 'transaction';
  // search_path lives in the session; a transaction-mode pooler hands each transaction a session of its own.
  if (transactionMode && opts.schema) throw new StartupError('a schema (search_path) cannot be kept with DATABASE_POOL_MODE=transaction: give each installation a database of its own');
  const fromUrl = urlOptions(opts.url);
  const options = transactionMode ? fromUrl.options : [
    ...(fromUrl.options ? [fromUrl.options] : []),
    // A read is one statement whose many correlated sub-selects make the planner's cost estimates large,
    // which would have PostgreSQL JIT-compile it: seconds of compiling for milliseconds of work. Set at
    // connection start-up, so it costs no round trip.
    startupOption('jit', 'off'),
    ...(opts.schema ? [startupOption('search_path', `"${opts.schema.replace(/"/g, '')}"`)] : []),
  ].join(' ');
  const clientConfig: pg.ClientConfig = {
    connectionString: fromUrl.url,
    application_name: 'patchbay',
    ...(options ? { options } : {}),
    // PgBouncer refuses statement_timeout as a start-up parameter: in transaction mode it is the role's or
    // the database's setting (docs/scaling-out/pgbouncer.md), and the query timeout below stays the backstop.
    ...(opts.statementTimeoutMs && !transactionMode ? { statement_timeout: opts.statementTimeoutMs } : {}),
    ...(opts.connectTimeoutMs ? { connectionTimeoutMillis: opts.connectTimeoutMs } : {}),
  };
  // pg.Pool applies its connectionTimeoutMillis to waiting for a free connection too; the connect timeout
  // goes to each client instead, and waiting is bounded below, by the acquire timeout.
  class TimedClient extends pg.Client {
    constructor() {
      super(clientConfig);
    }
  }
  const pool = new pg.Pool({ max: opts.poolMax, min: 0, idleTimeoutMillis: 30_000, Client: TimedClient });
  // An idle connection that breaks (the server restarted) is dropped by the pool; the next statement
  // reports the outage to whoever asked, so the pool's own report would only repeat it.
  pool.on('error', () => undefined);
  const state = new WeakMap<pg.PoolClient, ConnectionState>();
  const stateOf = (c: pg.PoolClient): ConnectionState => {
    let s = state.get(c);
    if (!s) state.set(c, (s = { running: false, prepared: new Set() }));
    return s;
  };
  pool.on('connect', (client) => {
    // A checked-out connection that breaks must not crash the process nor go back to the pool.
    client.on('error', () => {
      stateOf(client as pg.PoolClient).disposed = 'connection error';
    });
  });
  const listeners = new QueryListeners();

  /** A CancelRequest with the connection's key, on a connection of its own: the busy one cannot carry it. */
  async function cancel(client: pg.PoolClient): Promise<void> {
    const key = client as unknown as { processID?: number | null; secretKey?: number | null; host: string; port: number };
    if (!key.processID || key.secretKey === undefined || key.secretKey === null) return;
    await sendCancelRequest({ host: key.host, port: key.port, processID: key.processID, secretKey: key.secretKey });
  }

  /** The request holding this connection lost its client: retire the connection, cancel what it runs. */
  function abandon(client: pg.PoolClient): void {
    const s = stateOf(client);
    s.disposed = 'request abandoned by its client';
    if (!s.running) return;
    cancel(client).catch((e: unknown) => {
      console.error(`could not cancel the query of a request whose client left: ${(e as Error).message}`);
    });
  }

  function connectWithin(ms: number): Promise<pg.PoolClient> {
    if (!ms) return pool.connect().catch((e: unknown) => Promise.reject(classified(e)));
    return new Promise((resolve, reject) => {
      let late = false;
      const timer = setTimeout(() => {
        late = true;
        reject(acquireTimeoutError(ms));
      }, ms);
      pool.connect().then(
        (client) => {
          // Too late for the caller that asked: back to the pool, for the next one.
          if (late) client.release();
          else {
            clearTimeout(timer);
            resolve(client);
          }
        },
        (e: unknown) => {
          clearTimeout(timer);
          if (!late) reject(classified(e));
        },
      );
    });
  }

  async function acquire(): Promise<pg.PoolClient> {
    const scope = currentRequestScope();
    if (scope?.clientGone) throw clientGoneError();
    const client = await connectWithin(opts.acquireTimeoutMs);
    if (scope) {
      stateOf(client).release = scope.hold({ abandon: () => abandon(client) });
      if (scope.clientGone) abandon(client);
    }
    return client;
  }

  function release(client: pg.PoolClient): void {
    const s = stateOf(client);
    s.release?.();
    s.release = undefined;
    // A truthy argument has the pool close the connection instead of keeping it.
    client.release(s.disposed ? new Error(s.disposed) : undefined);
  }

  async function exec(client: pg.PoolClient, statement: Statement, runOptions?: RunOptions): Promise<QueryResult<Row>> {
    const values = checkedValues(statement.values);
    listeners.emit(statement.text, values);
    const s = stateOf(client);
    const config: pg.QueryConfig = { text: statement.text, values };
    if (runOptions?.prepared && !transactionMode) {
      // The same text always gets the same name, so pg prepares it once per connection and PostgreSQL
      // reuses its plan: a read's statement is large, and planning it on every request would cost more
      // than running it.
      config.name = preparedName(statement.text);
      if (!s.prepared.has(config.name)) {
        s.prepared.add(config.name);
        if (s.prepared.size >= MAX_PREPARED_PER_CONNECTION) s.disposed = 'too many prepared statements';
      }
    }
    let timedOut = false;
    const timer = opts.queryTimeoutMs > 0
      ? setTimeout(() => {
        timedOut = true;
        s.disposed = 'query timeout';
        // A server that is slow rather than frozen would run the query on after the socket is gone:
        // cancel it too (best effort: a frozen server will not take the cancelling connection either).
        cancel(client).catch(() => undefined);
        // With a query running, pg's end() destroys the socket at once and fails the query.
        void client.end().catch(() => undefined);
      }, opts.queryTimeoutMs)
      : undefined;
    s.running = true;
    try {
      const result = await client.query<Row>(config);
      return { rows: result.rows, rowCount: result.rowCount ?? result.rows.length };
    } catch (e) {
      if (timedOut) throw queryTimeoutError(opts.queryTimeoutMs);
      const err = classified(e);
      // A connection that failed as the database's unavailability is not trusted again.
      if (unavailableReason(err)) s.disposed = 'connection failed';
      throw err;
    } finally {
      s.running = false;
      clearTimeout(timer);
    }
  }

  const handle: DbHandle = {
    isTransaction: false,
    raw<R = Row>(sql: string, bindings: readonly unknown[] = []): Promise<QueryResult<R>> {
      return handle.run<R>(positional(sql, bindings));
    },
    async run<R = Row>(statement: Statement, runOptions?: RunOptions): Promise<QueryResult<R>> {
      const client = await acquire();
      try {
        return (await exec(client, statement, runOptions)) as QueryResult<R>;
      } finally {
        release(client);
      }
    },
    async transaction<T>(work: (trx: DbTransaction) => Promise<T>): Promise<T> {
      const client = await acquire();
      try {
        return await inTransaction((st, o) => exec(client, st, o), work, () => {
          stateOf(client).disposed = 'rollback failed';
        });
      } finally {
        release(client);
      }
    },
    on(event: 'query', listener: (q: QueryEvent) => void): void {
      listeners.add(listener);
    },
    destroy: () => pool.end(),
  };
  return handle;
}
