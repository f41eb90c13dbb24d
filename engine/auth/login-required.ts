import type { NextFunction, Request, Response } from 'express';
import type { ApiContext } from '../http/api-context';
import { authenticate, type Principal } from './authenticate';
import { notAuthenticated } from '../http/http-error';
import { isDocsAsset } from '../openapi/docs-routes';
import { anonymousActionPath } from '../http/list-actions';
import { wantsHtml } from '../http/browsable/browsable-api';

/** The caller authenticated by an earlier step of this request (undefined: not yet asked). */
export function knownPrincipal(res: Response): Principal | null | undefined {
  return res.locals.principal as Principal | null | undefined;
}

/**
 * LOGIN_REQUIRED as NetBox has it: every path under /api/ — the root, /api/status/, the application
 * roots, the schema and the documentation included — needs a user, except static assets and the
 * endpoints meant for callers without credentials (token provisioning). A browser is sent to log in.
 */
export function loginRequired(ctx: ApiContext) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!ctx.config.loginRequired || isDocsAsset(req.path) || anonymousActionPath(ctx.registry, req.path)) return next();
    authenticate(ctx, req)
      .then((principal) => {
        res.locals.principal = principal;
        if (principal) return next();
        const page = req.path === '/docs/' || req.path === '/schema/swagger-ui/' || wantsHtml(req);
        if (page && (req.method === 'GET' || req.method === 'HEAD')) return res.redirect(302, `/login/?next=${encodeURIComponent(req.originalUrl)}`);
        next(notAuthenticated());
      })
      .catch(next);
  };
}
