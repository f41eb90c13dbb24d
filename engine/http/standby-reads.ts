import type { NextFunction, Request, Response } from 'express';
import type { ApiContext } from './api-context';
import type { Principal } from '../auth/authenticate';
import { StaleCredentials } from '../auth/credential-cache';
import { currentRequestScope, type RequestScope } from '../database/request-scope';
import { wantsHtml } from './browsable/browsable-api';

/**
 * Whether a request may read from a standby: a GET or HEAD of a model's list or of one object, as JSON.
 * Their one statement carries the freshness check (engine/auth/credential-cache.ts). Everything else
 * (detail and list actions such as trace or available-ips, application views, the browsable pages, the
 * API root and /api/status/) runs statements without it, so stays on the primary.
 */
export function readsFromStandby(ctx: ApiContext, req: Request): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  if (!req.path.endsWith('/') || wantsHtml(req)) return false;
  const parts = req.path.split('/').filter(Boolean);
  if (parts[0] !== 'api' || parts.length < 3 || parts.length > 4) return false;
  const model = ctx.registry.byPath.get(`${parts[1]}/${parts[2]}`);
  if (!model) return false;
  return parts.length === 3 || /^\d{1,15}$/.test(parts[3]!);
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
export async function answeredOnStandby(ctx: ApiContext, scope: RequestScope, principal: Principal | null, answer: () => Promise<void>): Promise<boolean> {
  const standby = scope.readFrom;
  const set = ctx.replicas?.set;
  if (!standby || !set) return false;
  if (principal && ctx.replicas!.leases.holds(principal.userId)) {
    scope.readFrom = undefined;
    set.sentToPrimary(standby, 'write_lease');
    return false;
  }
  try {
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
