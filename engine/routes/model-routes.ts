import type { Request, Response } from 'express';
import type { ResolvedModel } from '../definitions/registry-types';
import type { CallContext } from './api-context';
import { HttpError, methodNotAllowed, notAuthenticated, permissionDenied } from './http-error';
import { getObject, listObjects } from './read-handlers';
import { bulkDeleteIds, bulkUpdate, createObjects, deleteByIds, updateObject } from './write-handlers';
import { parseJsonBody } from './json-body';
import { sendJson } from './respond';
import { optionsFor } from './options-metadata';

const LIST_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
const DETAIL_METHODS = ['GET', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

function mayRead(ctx: CallContext, model: ResolvedModel): boolean {
  if (ctx.principal) return true;
  const exempt = ctx.config.exemptViewPermissions;
  return !ctx.config.loginRequired && (exempt === '*' || exempt.includes(model.label));
}

/** Who may do what: reads need a user unless the type is exempt; writes need a user whose token may write. */
function authorize(ctx: CallContext, model: ResolvedModel, method: string): void {
  if (SAFE.has(method)) {
    if (!mayRead(ctx, model)) throw notAuthenticated();
    return;
  }
  if (!ctx.principal) throw notAuthenticated();
  if (!ctx.principal.writeEnabled) throw permissionDenied('This token does not have write permission.');
}

export async function handleList(ctx: CallContext, req: Request, res: Response, model: ResolvedModel, fullUrl: string): Promise<void> {
  const method = req.method;
  if (!LIST_METHODS.includes(method)) throw methodNotAllowed(method, LIST_METHODS);
  authorize(ctx, model, method);
  switch (method) {
    case 'GET':
    case 'HEAD':
      return sendJson(req, res, 200, await listObjects(ctx, model, fullUrl, []));
    case 'OPTIONS':
      return sendJson(req, res, 200, optionsFor(ctx, model, true));
    case 'POST': {
      const body = parseJsonBody(req);
      if (body === undefined) throw new HttpError(400, { non_field_errors: ['No data provided'] });
      const out = await createObjects(ctx, model, body);
      if (out.location) res.setHeader('Location', out.location);
      return sendJson(req, res, 201, out.body);
    }
    case 'PUT':
    case 'PATCH':
      return sendJson(req, res, 200, await bulkUpdate(ctx, model, parseJsonBody(req), method === 'PUT' ? 'put' : 'patch'));
    case 'DELETE': {
      await deleteByIds(ctx, model, bulkDeleteIds(parseJsonBody(req)), false);
      res.status(204).end();
      return;
    }
  }
}

export async function handleDetail(ctx: CallContext, req: Request, res: Response, model: ResolvedModel, id: number): Promise<void> {
  const method = req.method;
  if (!DETAIL_METHODS.includes(method)) throw methodNotAllowed(method, DETAIL_METHODS);
  authorize(ctx, model, method);
  switch (method) {
    case 'GET':
    case 'HEAD':
      return sendJson(req, res, 200, await getObject(ctx, model, id, []));
    case 'OPTIONS':
      return sendJson(req, res, 200, optionsFor(ctx, model, false));
    case 'PUT':
    case 'PATCH': {
      const body = parseJsonBody(req);
      return sendJson(req, res, 200, await updateObject(ctx, model, id, body ?? {}, method === 'PUT' ? 'put' : 'patch'));
    }
    case 'DELETE':
      await deleteByIds(ctx, model, [id], true);
      res.status(204).end();
      return;
  }
}
