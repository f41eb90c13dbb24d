import { MAX_PREPARED_PER_CONNECTION, preparedName } from './prepared-names';
import type { Knex } from 'knex';
import type pg from 'pg';
import { currentRequestScope } from './request-scope';
import { markUnavailable, unavailableReason } from './db-unavailable';

/** A pooled connection: pg's client, with knex's mark and this file's. */
interface PooledClient extends pg.Client {
  /** knex's mark: the pool destroys a connection that carries it instead of handing it out again. */
  __knex__disposed?: unknown;
}

interface QueryObject {
  sql: string;
  bindings?: readonly unknown[];
  options?: { prepared?: boolean; name?: string };
}

/** The part of knex's PostgreSQL client (knex/lib/dialects/postgres, shipped without types) extended here. */
interface KnexPgClient {
  acquireConnection(): Promise<PooledClient>;
  releaseConnection(connection: PooledClient): Promise<unknown>;
  _query(connection: PooledClient, obj: QueryObject): Promise<QueryObject>;
  cancelQuery(connection: PooledClient): Promise<unknown>;
}
const KnexPg = require('knex/lib/dialects/postgres') as new (config: Knex.Config) => KnexPgClient;

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

export interface PgClientOptions {
  /** ms a query may go unanswered before its connection is dropped; 0: no limit. */
  queryTimeoutMs: number;
}

/** What this client tracks per pooled connection. */
interface ConnectionState {
  running: boolean;
  release?: () => void;
  /** Names of the statements prepared on this connection. */
  prepared: Set<string>;
}


/**
 * knex's PostgreSQL client with two guards the server cannot give itself:
 * - a client-side query timeout. statement_timeout is enforced by the server, so a frozen or unreachable
 *   server enforces nothing; after queryTimeoutMs the connection is closed (a late answer could never be
 *   told apart from the next query's) and marked so the pool never hands it out again;
 * - cancel on disconnect: connections are recorded in the request scope of the code that acquires them,
 *   and when that request's client leaves, its running queries are cancelled (pg_cancel_backend over a
 *   fresh connection, as knex cancels) and its connections are retired.
 */
export function pgClientClass(options: PgClientOptions): typeof Knex.Client {
  const state = new WeakMap<PooledClient, ConnectionState>();
  const stateOf = (c: PooledClient) => {
    let s = state.get(c);
    if (!s) state.set(c, (s = { running: false, prepared: new Set() }));
    return s;
  };

  class PatchbayPgClient extends KnexPg {
    override async acquireConnection(): Promise<PooledClient> {
      const scope = currentRequestScope();
      if (scope?.clientGone) throw clientGoneError();
      const connection = await super.acquireConnection();
      if (scope) {
        stateOf(connection).release = scope.hold({ abandon: () => this.abandon(connection) });
        if (scope.clientGone) this.abandon(connection);
      }
      return connection;
    }

    override releaseConnection(connection: PooledClient): Promise<unknown> {
      const s = stateOf(connection);
      s.release?.();
      s.release = undefined;
      return super.releaseConnection(connection);
    }

    override async _query(connection: PooledClient, obj: QueryObject): Promise<QueryObject> {
      const s = stateOf(connection);
      let timedOut = false;
      const timer = options.queryTimeoutMs > 0
        ? setTimeout(() => {
          timedOut = true;
          connection.__knex__disposed = 'query timeout';
          // A server that is slow rather than frozen would run the query on after the socket is gone:
          // cancel it too (best effort: a frozen server will not take the cancelling connection either).
          this.cancelQuery(connection).catch(() => undefined);
          // With a query running, pg's end() destroys the socket at once and fails the query.
          void connection.end().catch(() => undefined);
        }, options.queryTimeoutMs)
        : undefined;
      if (obj.options?.prepared) obj = this.prepare(connection, s, obj);
      s.running = true;
      try {
        return await super._query(connection, obj);
      } catch (e) {
        if (timedOut) throw queryTimeoutError(options.queryTimeoutMs);
        // Classified here, on pg's own error: knex is about to prefix its message with the SQL.
        const reason = unavailableReason(e);
        throw reason && e && typeof e === 'object' ? markUnavailable(e, reason) : e;
      } finally {
        s.running = false;
        clearTimeout(timer);
      }
    }

    /**
     * A statement the caller marked `prepared` gets a name, so pg prepares it once per connection and
     * PostgreSQL can reuse its plan: a read's statement is large, and planning it again on every request
     * would cost more than running it.
     */
    private prepare(connection: PooledClient, s: ConnectionState, obj: QueryObject): QueryObject {
      const { prepared: _, ...rest } = obj.options ?? {};
      const name = preparedName(obj.sql);
      if (!s.prepared.has(name)) {
        s.prepared.add(name);
        if (s.prepared.size >= MAX_PREPARED_PER_CONNECTION) connection.__knex__disposed = 'too many prepared statements';
      }
      return { ...obj, options: { ...rest, name } };
    }

    /** The request holding this connection lost its client: retire the connection, cancel what it runs. */
    private abandon(connection: PooledClient): void {
      connection.__knex__disposed = 'request abandoned by its client';
      if (!stateOf(connection).running) return;
      this.cancelQuery(connection).catch((e: unknown) => {
        console.error(`could not cancel the query of a request whose client left: ${(e as Error).message}`);
      });
    }
  }
  return PatchbayPgClient as unknown as typeof Knex.Client;
}
