import type { Request, Response } from 'express';
import type { Registry, ResolvedModel } from '../definitions/registry-types';
import type { CallContext } from './api-context';
import { HttpError, methodNotAllowed } from './http-error';
import { parseJsonBody } from './json-body';
import { sendJsonText } from './respond';
import { checkCredentials } from '../auth/credentials';
import { clientAddress } from '../auth/client-address';
import { createObjects } from '../writes/write-handlers';
import { badStringMessage } from '../validation/string-hygiene';
import { hasListAction, type ListActionName } from '../definitions/named-functions';

export const ANONYMOUS_BODY_BYTES = 64 * 1024;

/** An extra endpoint under a list path, named by a definition's "list_actions". */
export type ListAction = (ctx: CallContext, req: Request, res: Response, model: ResolvedModel) => Promise<void>;

/**
 * POST {username, password} without a token: valid credentials get a new write-enabled token for
 * that user (201, key included); invalid ones a 403 and nothing created.
 */
const provisionToken: ListAction = async (ctx, req, res, model) => {
  if (req.method !== 'POST') throw methodNotAllowed(req.method, ['POST']);
  // Anyone may call this: a small body (a username and a password) is all it takes.
  const body = await parseJsonBody(req, res, ANONYMOUS_BODY_BYTES);
  const errors: Record<string, string[]> = {};
  const fields = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  for (const name of ['username', 'password', 'description']) {
    const v = fields[name];
    if (name !== 'description' && (typeof v !== 'string' || !v)) errors[name] = ['This field is required.'];
    else if (typeof v === 'string' && badStringMessage(v)) errors[name] = [badStringMessage(v)!];
  }
  if (Object.keys(errors).length) throw new HttpError(400, errors);
  const address = clientAddress(req, ctx.config.trustedProxies)?.toString() ?? '';
  const userId = await checkCredentials(ctx, String(fields.username), String(fields.password), address);
  if (userId === null) throw new HttpError(403, { detail: 'Invalid username/password' });
  const owner = model.ownerField?.name ?? 'user';
  const out = await createObjects(ctx, model, { [owner]: userId, write_enabled: true, description: typeof fields.description === 'string' ? fields.description : '' }, []);
  sendJsonText(req, res, 201, out.body);
};

const ACTIONS: Record<ListActionName, ListAction> = { provision_token: provisionToken };

/** Actions meant for callers without credentials: LOGIN_REQUIRED does not stand in their way. */
const ANONYMOUS: ReadonlySet<ListActionName> = new Set(['provision_token']);

/** Whether an /api/ path (without the /api prefix) is a list action that anyone may call. */
export function anonymousActionPath(registry: Registry, apiPath: string): boolean {
  const [app, path, action, ...rest] = apiPath.split('/').filter(Boolean);
  if (rest.length || !app || !path || !action) return false;
  const name = registry.byPath.get(`${app}/${path}`)?.def.list_actions?.[action];
  return name !== undefined && hasListAction(name) && ANONYMOUS.has(name);
}

export function listAction(name: string): ListAction | undefined {
  return hasListAction(name) ? ACTIONS[name] : undefined;
}
