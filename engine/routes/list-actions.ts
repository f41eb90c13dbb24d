import type { Request, Response } from 'express';
import type { ResolvedModel } from '../definitions/registry-types';
import type { CallContext } from './api-context';
import { HttpError, methodNotAllowed } from './http-error';
import { parseJsonBody } from './json-body';
import { sendJson } from './respond';
import { checkCredentials } from '../auth/credentials';
import { clientAddress } from '../auth/client-address';
import { createObjects } from './write-handlers';
import { hasListAction, type ListActionName } from '../definitions/named-functions';

/** An extra endpoint under a list path, named by a definition's "list_actions". */
export type ListAction = (ctx: CallContext, req: Request, res: Response, model: ResolvedModel) => Promise<void>;

/**
 * POST {username, password} without a token: valid credentials get a new write-enabled token for
 * that user (201, key included); invalid ones a 403 and nothing created.
 */
const provisionToken: ListAction = async (ctx, req, res, model) => {
  if (req.method !== 'POST') throw methodNotAllowed(req.method, ['POST']);
  const body = parseJsonBody(req);
  const errors: Record<string, string[]> = {};
  const fields = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  for (const name of ['username', 'password']) {
    if (typeof fields[name] !== 'string' || !fields[name]) errors[name] = ['This field is required.'];
  }
  if (Object.keys(errors).length) throw new HttpError(400, errors);
  const address = clientAddress(req, ctx.config.trustedProxies)?.toString() ?? '';
  const userId = await checkCredentials(ctx, String(fields.username), String(fields.password), address);
  if (userId === null) throw new HttpError(403, { detail: 'Invalid username/password' });
  const owner = model.ownerField?.name ?? 'user';
  const out = await createObjects(ctx, model, { [owner]: userId, write_enabled: true, description: typeof fields.description === 'string' ? fields.description : '' }, []);
  sendJson(req, res, 201, out.body);
};

const ACTIONS: Record<ListActionName, ListAction> = { provision_token: provisionToken };

export function listAction(name: string): ListAction | undefined {
  return hasListAction(name) ? ACTIONS[name] : undefined;
}
