import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Db } from './db';
import type { Sql } from '../sql/fragment';

/**
 * A standby a request reads from (engine/database/replica-routing.ts): its statements' handle, and the
 * condition its reads add to `current` so that a standby too far behind, or a user with a write lease, is
 * answered on the primary instead.
 */
export interface StandbyRead {
  readonly name: string;
  readonly db: Db;
  freshness(userId: number | null): Sql;
}

/** A database connection a request holds, and what to do with it if the request's client leaves. */
export interface HeldConnection {
  abandon(): void;
}

/**
 * One HTTP request's claim on database connections. When its client goes away before the response is
 * sent, the connections it holds are abandoned (their running queries cancelled) and it may take no more.
 */
export class RequestScope {
  private gone = false;
  private readonly held = new Set<HeldConnection>();
  /** Set while this request's statements may run on a standby; unset (the default), everything is on the primary. */
  readFrom: StandbyRead | undefined;

  get clientGone(): boolean {
    return this.gone;
  }

  /** Records a connection as held; the returned function records its release. */
  hold(connection: HeldConnection): () => void {
    this.held.add(connection);
    return () => this.held.delete(connection);
  }

  abandon(): void {
    this.gone = true;
    for (const c of [...this.held]) c.abandon();
    this.held.clear();
  }
}

const scopes = new AsyncLocalStorage<RequestScope>();

/** The scope of the request whose code is running now, if any (none in commands and tests). */
export function currentRequestScope(): RequestScope | undefined {
  return scopes.getStore();
}

/** Runs an HTTP handler inside a new request scope, abandoned if the client leaves before the response ends. */
export function handleInRequestScope(req: IncomingMessage, res: ServerResponse, handler: () => void): void {
  const scope = new RequestScope();
  res.once('close', () => {
    if (!res.writableFinished) scope.abandon();
  });
  scopes.run(scope, handler);
}

/**
 * Runs work outside any request's scope: timers and statements it starts belong to no request, so they
 * go to the primary and are not cancelled when some client leaves (background maintenance).
 */
export function outsideRequestScope<T>(work: () => T): T {
  return scopes.exit(work);
}
