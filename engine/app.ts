import crypto from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { ApiContext, CallContext } from './http/api-context';
import { HttpError, methodNotAllowed, notFound } from './http/http-error';
import { sendJson } from './http/respond';
import { apiRoot, appRoot, status, API_VERSION_HEADER } from './http/api-root';
import { handleDetail, handleList } from './http/model-routes';
import { authenticate, type Principal } from './auth/authenticate';
import { authVersionIsCurrent, CredentialCache, StaleCredentials } from './auth/credential-cache';
import { CustomFieldCache } from './validation/custom-field-cache';
import type { ResolvedModel } from './definitions/registry-types';
import { loadGrants, scopeFor, type Grant } from './auth/permissions';
import { listAction } from './http/list-actions';
import { detailAction } from './http/detail-actions';
import { appView } from './http/app-views';
import { accountPages } from './http/ui/account-pages';
import { ValidationError } from './validation/field-errors';
import { badStringMessage } from './validation/string-hygiene';
import { apiDocs } from './openapi/docs-routes';
import { browsableApi } from './http/browsable/browsable-api';
import { allowedHosts } from './http/allowed-hosts';
import { closeUnreadBodies } from './http/request-body';
import { knownPrincipal, loginRequired } from './auth/login-required';
import { overHttps } from './auth/sessions';
import { RETRY_AFTER_SECONDS, unavailableDetail, unavailableReason } from './database/db-unavailable';
import { commitOutcomeUnknown, commitOutcomeUnknownDetail } from './database/commit-outcome';
import { idempotently } from './idempotency/idempotent-write';
import { databaseReachable } from './database/database-ping';
import { serveMedia } from './http/media-files';
import { configureSharedSandbox } from './sandbox/shared-sandbox';
import { frameHeaders } from './http/frame-headers';
import { firstUserHint } from './auth/first-user';
import { acceptVersion } from './http/accept-version';
import { answeredOnStandby, chooseStandby, freshnessCheckedFirst, takeWriteLease } from './http/standby-reads';
import { currentRequestScope } from './database/request-scope';

/** Scheme and host of the URLs in answers: HTTPS when the connection is, or when a trusted proxy says so. */
function originOf(ctx: ApiContext, req: Request): string {
  return `${overHttps(req, ctx.config.trustedProxies) ? 'https' : 'http'}://${req.get('host') ?? 'localhost'}`;
}

/** The HTTP application: every route derived from the registry; no route written for a particular model. */
export function createApp(given: ApiContext): express.Express {
  const ctx: ApiContext = { ...given, credentials: given.credentials ?? new CredentialCache(), customFields: given.customFields ?? new CustomFieldCache() };
  configureSharedSandbox(ctx.config);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');

  app.use((req, res, next) => {
    const id = crypto.randomUUID();
    res.locals.requestId = id;
    res.setHeader('API-Version', API_VERSION_HEADER);
    res.setHeader('X-Request-ID', id);
    next();
  });
  app.use(frameHeaders);
  app.use(allowedHosts(ctx.config));
  // Bodies are read by the handlers that need them, once the caller is known and allowed (request-body.ts).
  app.use(closeUnreadBodies);

  // Before anything authenticates: a read that may use a standby looks its caller up there too.
  if (ctx.replicas) app.use(chooseStandby(ctx));
  app.use('/api', browsableApi(ctx));
  // DRF checks the version before it authenticates: a wrong version is a 406 even without a token.
  app.use('/api', acceptVersion);
  app.use('/api', loginRequired(ctx));
  app.use('/api', apiDocs(ctx));
  app.use(accountPages(ctx));
  app.use('/api', (req, res, next) => {
    handleApi(ctx, req, res).catch(next);
  });
  app.use('/media', (req, res, next) => {
    handleMedia(ctx, req, res).catch(next);
  });
  // The site root leads to the API root (NetBox's / is its UI, which Patchbay does not have): the browsable
  // page there links everything else, login included.
  app.get('/', (req, res) => res.redirect(302, '/api/'));
  app.use((req, res) => sendJson(req, res, 404, { detail: 'Not found.' }));
  const withHint = firstUserHint(ctx.knex, ctx.registry);
  app.use((err: unknown, req: Request, res: Response, next: NextFunction) => {
    // Asynchronous now (the hint may ask the database): a failure past this point goes to Express's own handler.
    withHint(err).then((e) => handleError(e, req, res), () => handleError(err, req, res)).catch(next);
  });
  return app;
}

async function handleApi(ctx: ApiContext, req: Request, res: Response): Promise<void> {
  const origin = originOf(ctx, req);
  const path = req.path;
  const parts = path.split('/').filter(Boolean);
  const query = new URL(req.originalUrl, 'http://x').searchParams;
  const fullUrl = `${origin}${req.originalUrl}`;
  for (const [name, value] of query) {
    // A NUL cannot reach PostgreSQL text; refuse it here, naming the parameter, whatever reads the query.
    const bad = badStringMessage(name) ?? badStringMessage(value);
    if (bad) throw new HttpError(400, { [name]: [bad] });
  }

  if (!path.endsWith('/')) {
    // Every API path ends with a slash; NetBox redirects (the spec says 302).
    const q = req.originalUrl.slice(req.originalUrl.indexOf('?') >= 0 ? req.originalUrl.indexOf('?') : req.originalUrl.length);
    res.redirect(302, `${req.baseUrl}${path}/${q}`);
    return;
  }
  if (parts.length === 0) return sendReadOnly(req, res, apiRoot(ctx.registry, origin));
  if (parts.length === 1 && parts[0] === 'status') return sendStatus(ctx, req, res);
  if (parts.length === 1) {
    const body = appRoot(ctx.registry, origin, parts[0]!);
    if (!body) throw notFound();
    return sendReadOnly(req, res, body);
  }
  const known = knownPrincipal(res);
  const application = ctx.registry.applications.find((a) => a.name === parts[0]);
  const view = application?.views.get(parts[1]!);
  const requestId = String(res.locals.requestId);
  if (application && view) {
    const principal = known === undefined ? await authenticate(ctx, req) : known;
    await takeWriteLease(ctx, req.method, principal);
    return idempotently(ctx, req, res, principal?.userId ?? null, (c) =>
      appView(view.view)!.handle(callContext(c, principal, origin, query, requestId), req, res, { app: application, segment: parts[1]!, rest: parts.slice(2), options: view.options }),
    );
  }
  const model = ctx.registry.byPath.get(`${parts[0]}/${parts[1]}`);
  if (!model || parts.length > 4) throw notFound();

  const cached = usesCachedCredentials(req.method, parts);
  const scope = currentRequestScope();
  // LOGIN_REQUIRED's check found the token without the cache, so without the auth version a read on a
  // standby must check: look again (from the cache, no query).
  const again = known === undefined || (scope?.readFrom !== undefined && known?.tokenId != null && known.authVersion === undefined);
  let principal = again ? await authenticate(ctx, req, cached ? ctx.credentials : undefined) : known;
  if (scope?.readFrom) {
    const onStandby = principal;
    if (await answeredOnStandby(ctx, scope, onStandby, () => routeToModel(req, res, model, parts, callContext(ctx, onStandby, origin, query, requestId), fullUrl), freshnessCheckedFirst(parts))) return;
    // Answered again on the primary, the caller looked up there (from the cache: the primary's read checks it).
    principal = await authenticate(ctx, req, cached ? ctx.credentials : undefined);
  }
  await takeWriteLease(ctx, req.method, principal);
  const caller = principal;
  // With an Idempotency-Key, `c` is ctx with the write's transaction as its database (engine/idempotency).
  return idempotently(ctx, req, res, caller?.userId ?? null, async (c) => {
    const call = (p: Principal | null) => callContext(c, p, origin, query, requestId);
    if (!cached || caller?.authVersion === undefined) return routeToModel(req, res, model, parts, call(caller), fullUrl);
    try {
      return await routeToModel(req, res, model, parts, call(caller), fullUrl);
    } catch (e) {
      // A write refused on cached credentials (an object outside a scope that has since grown, say) is
      // confirmed against the auth version before the refusal is sent; a read's statement checked already.
      const stale = e instanceof StaleCredentials
        || (req.method !== 'GET' && isRefusal(e) && !(await authVersionIsCurrent(c.knex, caller.authVersion)));
      if (!stale) throw e;
      // Users, tokens or permissions changed since the cache was filled: look again, and answer with that.
      // A write rolled back with the stale statement, so running it again is safe (its body is kept).
      ctx.credentials?.clear();
      return routeToModel(req, res, model, parts, call(await authenticate(c, req)), fullUrl);
    }
  });
}

/** /media/<name>: a stored file, to a caller who may view an object naming it (engine/http/media-files.ts). */
async function handleMedia(ctx: ApiContext, req: Request, res: Response): Promise<void> {
  const principal = await authenticate(ctx, req);
  let relative: string;
  try {
    relative = decodeURIComponent(req.path.replace(/^\//, ''));
  } catch {
    throw notFound();
  }
  const call = callContext(ctx, principal, originOf(ctx, req), new URLSearchParams(), String(res.locals.requestId));
  return serveMedia(call, req, res, relative);
}

/**
 * Requests whose statements check that cached credentials are still current: a GET of a list or an object
 * (in its one statement), a create or change (in the statement that writes or reads back the answer,
 * before commit), and a delete (in the statement that locks what it deletes).
 */
function usesCachedCredentials(method: string, parts: readonly string[]): boolean {
  // A detail action (available-ips, trace...) runs statements of its own: it authenticates afresh.
  const target = parts.length === 2 || (parts.length === 3 && /^\d{1,15}$/.test(parts[2] ?? ''));
  if (!target) return false;
  if (method === 'GET' || method === 'PUT' || method === 'PATCH' || method === 'DELETE') return true;
  return method === 'POST' && parts.length === 2;
}

/** An answer that refuses the request (4xx), which stale credentials could explain. */
function isRefusal(e: unknown): boolean {
  return e instanceof ValidationError || (e instanceof HttpError && e.status >= 400 && e.status < 500);
}

/** A model's list, one of its list actions, one of its objects, or one of its objects' detail actions. */
async function routeToModel(req: Request, res: Response, model: ResolvedModel, parts: string[], call: CallContext, fullUrl: string): Promise<void> {
  if (parts.length === 2) return handleList(call, req, res, model, fullUrl);
  const idText = parts[2]!;
  const actionName = parts.length === 3 ? model.def.list_actions?.[idText] : undefined;
  if (actionName) {
    const action = listAction(actionName);
    if (!action) throw notFound();
    return action(call, req, res, model);
  }
  if (!/^\d{1,15}$/.test(idText) || Number(idText) === 0) throw notFound();
  if (parts.length === 3) return handleDetail(call, req, res, model, Number(idText));
  const segment = parts[3]!;
  const use = model.detailActions.get(segment);
  const action = use && detailAction(use.action);
  if (!use || !action) throw notFound();
  return action.handle(call, req, res, { ...use, model, id: Number(idText), segment });
}

const READ_ONLY_METHODS = ['GET', 'HEAD', 'OPTIONS'];

/** The API root, an application root and /api/status/ are read-only views: other methods are 405, as NetBox. */
function sendReadOnly(req: Request, res: Response, body: unknown): void {
  if (!READ_ONLY_METHODS.includes(req.method)) throw methodNotAllowed(req.method, READ_ONLY_METHODS);
  sendJson(req, res, 200, body);
}

/** /api/status/: a 503 while the database does not answer, so that a load balancer's health check sees it. */
async function sendStatus(ctx: ApiContext, req: Request, res: Response): Promise<void> {
  if (!READ_ONLY_METHODS.includes(req.method)) throw methodNotAllowed(req.method, READ_ONLY_METHODS);
  const reachable = await databaseReachable(ctx.knex);
  if (!reachable) res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
  const body = status(ctx.version, ctx.embedded ?? false, reachable);
  // NetBox's fields as they are; Patchbay's own beside them, only when there are standbys to report.
  if (ctx.replicas) body.patchbay = { replicas: ctx.replicas.set.status() };
  sendJson(req, res, reachable ? 200 : 503, body);
}

/** Per-request context: the caller, and their permissions loaded at most once, on first need. */
function callContext(ctx: ApiContext, principal: Principal | null, origin: string, query: URLSearchParams, requestId: string): CallContext {
  let grants: Promise<Grant[]> | undefined;
  const load = async (): Promise<Grant[]> => {
    if (!principal) return [];
    const version = principal.authVersion;
    const cached = version === undefined ? undefined : ctx.credentials?.grants(principal.userId, version);
    if (cached) return cached;
    // On a standby the permissions may be older than the version the principal was read with (looked up
    // on the primary when the standby did not have the token): used for this read only, whose statement
    // checks that version on the standby, and never cached under it.
    const onStandby = currentRequestScope()?.readFrom !== undefined;
    const loaded = await loadGrants(ctx.knex, ctx.registry, principal.userId);
    // Kept under the version the principal was read with: if permissions changed in between, the read's
    // check of that version fails and everything is looked up again.
    if (version !== undefined && !onStandby) ctx.credentials?.setGrants(principal.userId, version, loaded);
    return loaded;
  };
  const loadOnce = () => (grants ??= load());
  return {
    ...ctx,
    principal,
    origin,
    query,
    requestId,
    scope: (model, action) => scopeFor(principal, ctx.config, model, action, loadOnce),
  };
}

function handleError(err: unknown, req: Request, res: Response): void {
  if (err instanceof HttpError) {
    for (const [k, v] of Object.entries(err.headers)) res.setHeader(k, v);
    return sendJson(req, res, err.status, err.body);
  }
  if (err instanceof ValidationError) return sendJson(req, res, 400, err.errors);
  const e = err as { type?: string; status?: number; statusCode?: number; message?: string };
  if (e && typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
    return sendJson(req, res, e.status, { detail: e.message ?? 'Bad request.' });
  }
  const requestId = String(res.locals.requestId ?? '');
  if (commitOutcomeUnknown(err)) {
    // The write may have committed: no Retry-After, since a blind retry could write it twice.
    console.error(`[${requestId}] ${req.method} ${req.originalUrl}: connection lost during COMMIT (${unavailableReason(err) ?? 'unknown'}), outcome unknown`);
    return sendJson(req, res, 504, { detail: commitOutcomeUnknownDetail(requestId), request_id: requestId });
  }
  const unavailable = unavailableReason(err);
  if (unavailable) {
    // The database's state, not a bug: one line in the log, and a 503 the client may retry.
    console.error(`[${requestId}] ${req.method} ${req.originalUrl}: database unavailable (${unavailable})`);
    res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
    return sendJson(req, res, 503, { detail: unavailableDetail(), request_id: requestId });
  }
  console.error(`[${requestId}] ${req.method} ${req.originalUrl} failed:`, err);
  sendJson(req, res, 500, { detail: 'Internal server error.', request_id: requestId });
}
