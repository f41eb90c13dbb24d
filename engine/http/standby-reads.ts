import type { NextFunction, Request, Response } from 'express';
import type { ApiContext } from './api-context';
import type { Principal } from '../auth/authenticate';
import { credentialsAreCurrent, StaleCredentials } from '../auth/credential-cache';
import { runRows } from '../database/run';
import { sql } from '../sql/fragment';
import { currentRequestScope, type RequestScope } from '../database/request-scope';
import { wantsHtml } from './browsable/browsable-api';

/**
 * Whether a request may read from a standby: a GET or HEAD of a model's list, of one object, or of an
 * action of either (trace, paths, available-ips...), as JSON. A list's or an object's one statement carries
 * the freshness check (engine/auth/credential-cache.ts); an action runs statements of its own, so it is
 * checked first (freshnessCheckedFirst). Application views, the browsable pages, the API root and
 * /api/status/ stay on the primary.
 */
export function readsFromStandby(ctx: ApiContext, req: Request): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  if (!req.path.endsWith('/') || wantsHtml(req)) return false;
  const parts = req.path.split('/').filter(Boolean);
  if (parts[0] !== 'api' || parts.length < 3 || parts.length > 5) return false;
  return ctx.registry.byPath.has(`${parts[1]}/${parts[2]}`);
}

/**
 * An action's statements do not carry the freshness check, so one statement asks the standby first. The
 * standby only moves forward: what the action then reads there is at least as recent as what was checked.
 */
export function freshnessCheckedFirst(parts: readonly string[]): boolean {
  return !(parts.length === 2 || (parts.length === 3 && /^\d{1,15}$/.test(parts[2] ?? '')));
}

/** Middleware: picks the standby an eligible request reads from (none: the primary answers). */
export function chooseStandby(ctx: ApiContext) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const scope = currentRequestScope();
    if (ctx.replicas && scope && readsFromStandby(ctx, req)) scope.readFrom = ctx.replicas.set.pick();
    next();
  };
}

/**
 * Answers a read on the standby the request was given, unless the caller holds a write lease this instance
 * knows of. True when answered there; false when the caller must answer on the primary: the read was not
 * fresh enough (its `current` was false: the standby is behind, the user has a lease it shows, or the
 * credentials changed) or the standby failed. Never an error for a standby's sake.
 */
export async function answeredOnStandby(ctx: ApiContext, scope: RequestScope, principal: Principal | null, answer: () => Promise<void>, checkFirst = false): Promise<boolean> {
  const standby = scope.readFrom;
  const set = ctx.replicas?.set;
  if (!standby || !set) return false;
  if (principal && ctx.replicas!.leases.holds(principal.userId)) {
    scope.readFrom = undefined;
    set.sentToPrimary(standby, 'write_lease');
    return false;
  }
  try {
    if (checkFirst) {
      // Through the routed handle: a standby that fails here moves the request to the primary, fresh by definition.
      const [row] = await runRows<{ current: boolean }>(ctx.knex, sql`SELECT ${credentialsAreCurrent(principal)} AS "current"`);
      if (!row?.current) throw new StaleCredentials();
    }
    await answer();
  } catch (e) {
    if (!(e instanceof StaleCredentials)) {
      // A refusal or a 404 the standby's data decided is an answer from the standby too.
      if (scope.readFrom === standby) set.served(standby);
      throw e;
    }
    // Already counted when a standby error moved the request to the primary on the way.
    if (scope.readFrom === standby) set.sentToPrimary(standby, 'not_fresh');
    scope.readFrom = undefined;
    return false;
  }
  if (scope.readFrom === standby) set.served(standby);
  return true;
}

/** Before a signed-in user's write, with standbys: their lease, so that their next reads see it anywhere. */
export async function takeWriteLease(ctx: ApiContext, method: string, principal: Principal | null): Promise<void> {
  if (!ctx.replicas || !principal || method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return;
  await ctx.replicas.leases.take(principal.userId);
}
