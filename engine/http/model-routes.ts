import type { Request, Response } from 'express';
import type { ResolvedModel } from '../definitions/registry-types';
import type { CallContext } from './api-context';
import { HttpError, methodNotAllowed, notAuthenticated, permissionDenied } from './http-error';
import { getObject, listObjects } from './read-handlers';
import { authVersionIsCurrent, StaleCredentials } from '../auth/credential-cache';
import { bulkDeleteIds, bulkUpdate, createObjects, deleteByIds, updateObject, type WriteScopes } from '../writes/write-handlers';
import { parseJsonBody } from './json-body';
import { sendJson, sendJsonText } from './respond';
import { optionsFor } from './options-metadata';
import { exportList } from './export-list';
import { discardUploads, writeBody } from './uploads';
import type { Action } from '../auth/permissions';
import type { Sql } from '../sql/fragment';
import { csrfMatches, CSRF_HEADER } from '../auth/sessions';

const LIST_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
const DETAIL_METHODS = ['GET', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The objects the caller may act on, or a 403 (nobody logged in: "credentials were not provided"). */
async function allowedScope(ctx: CallContext, model: ResolvedModel, action: Action): Promise<Sql[]> {
  const scope = await ctx.scope(model, action);
  if (scope.allowed) return scope.conditions;
  // Refused on cached permissions: a grant given since then must not be missed.
  const version = ctx.principal?.authVersion;
  if (version !== undefined && !(await authVersionIsCurrent(ctx.knex, version))) throw new StaleCredentials();
  throw ctx.principal ? permissionDenied() : notAuthenticated();
}

/** Unsafe methods need credentials that may write: a write-enabled token, or a session with its CSRF token. */
export function checkWrite(ctx: CallContext, req: Request): void {
  const p = ctx.principal;
  if (!p) throw notAuthenticated();
  if (p.tokenId === null && !csrfMatches(p.csrfToken, req.headers[CSRF_HEADER])) {
    throw permissionDenied('CSRF Failed: CSRF token missing or incorrect.');
  }
  if (!p.writeEnabled) throw permissionDenied('This token does not have write permission.');
}

/** A write's body, read only now that the caller is known and allowed to make the write. */
function bodyOf(ctx: CallContext, req: Request, res: Response): Promise<unknown> {
  return parseJsonBody(req, res, ctx.config.dataUploadMaxMemorySize);
}

async function writeScopes(ctx: CallContext, model: ResolvedModel, action: Action): Promise<WriteScopes> {
  const act = await allowedScope(ctx, model, action);
  const viewScope = await ctx.scope(model, 'view');
  return { view: viewScope.allowed ? viewScope.conditions : null, act };
}

/** A read-only model (content types) answers GET, HEAD and OPTIONS only, as NetBox's read-only viewsets. */
function allowedMethods(model: ResolvedModel, methods: string[]): string[] {
  return model.def.read_only ? methods.filter((m) => SAFE.has(m)) : methods;
}

export async function handleList(ctx: CallContext, req: Request, res: Response, model: ResolvedModel, fullUrl: string): Promise<void> {
  const method = req.method;
  const allowed = allowedMethods(model, LIST_METHODS);
  if (!allowed.includes(method)) throw methodNotAllowed(method, allowed);
  if (!SAFE.has(method)) checkWrite(ctx, req);
  switch (method) {
    case 'GET':
    case 'HEAD': {
      const scope = await allowedScope(ctx, model, 'view');
      const exporting = ctx.query.get('export');
      if (exporting !== null) return exportList(ctx, res, model, exporting, scope);
      return sendJsonText(req, res, 200, await listObjects(ctx, model, fullUrl, scope));
    }
    case 'OPTIONS':
      if (!ctx.principal && ctx.config.loginRequired) throw notAuthenticated();
      return sendJson(req, res, 200, await optionsFor(ctx, model, true));
    case 'POST': {
      const scope = await allowedScope(ctx, model, 'add');
      const { body, files } = await writeBody(ctx, req, res, model);
      if (body === undefined) throw new HttpError(400, { non_field_errors: ['No data provided'] });
      const out = await createObjects(ctx, model, body, scope, files).catch(async (e: unknown) => {
        // Nothing was written: the files stored for the object go too.
        await discardUploads(ctx, files);
        throw e;
      });
      if (out.location) res.setHeader('Location', out.location);
      return sendJsonText(req, res, 201, out.body);
    }
    case 'PUT':
    case 'PATCH': {
      const scopes = await writeScopes(ctx, model, 'change');
      const body = await bodyOf(ctx, req, res);
      return sendJsonText(req, res, 200, await bulkUpdate(ctx, model, body, method === 'PUT' ? 'put' : 'patch', scopes));
    }
    case 'DELETE': {
      const scopes = await writeScopes(ctx, model, 'delete');
      const ids = bulkDeleteIds(ctx, await bodyOf(ctx, req, res));
      await deleteByIds(ctx, model, ids, false, scopes);
      res.status(204).end();
      return;
    }
  }
}

export async function handleDetail(ctx: CallContext, req: Request, res: Response, model: ResolvedModel, id: number): Promise<void> {
  const method = req.method;
  const allowed = allowedMethods(model, DETAIL_METHODS);
  if (!allowed.includes(method)) throw methodNotAllowed(method, allowed);
  if (!SAFE.has(method)) checkWrite(ctx, req);
  switch (method) {
    case 'GET':
    case 'HEAD':
      return sendJsonText(req, res, 200, await getObject(ctx, model, id, await allowedScope(ctx, model, 'view')));
    case 'OPTIONS':
      if (!ctx.principal && ctx.config.loginRequired) throw notAuthenticated();
      return sendJson(req, res, 200, await optionsFor(ctx, model, false));
    case 'PUT':
    case 'PATCH': {
      const scopes = await writeScopes(ctx, model, 'change');
      const { body, files } = await writeBody(ctx, req, res, model);
      const text = await updateObject(ctx, model, id, body === undefined ? {} : body, method === 'PUT' ? 'put' : 'patch', scopes, files).catch(async (e: unknown) => {
        await discardUploads(ctx, files);
        throw e;
      });
      return sendJsonText(req, res, 200, text);
    }
    case 'DELETE':
      await deleteByIds(ctx, model, [id], true, await writeScopes(ctx, model, 'delete'));
      res.status(204).end();
      return;
  }
}
