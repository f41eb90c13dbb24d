import type { NextFunction, Request, Response } from 'express';
import type { ApiContext } from '../api-context';
import type { HtmlRenderer } from '../respond';
import { endpointInfo } from './endpoint-info';
import { renderPage } from './render-page';
import { readCookie, SESSION_COOKIE, sessionPrincipal } from '../../auth/sessions';

/**
 * Whether a request asks for the browsable page: a GET or HEAD whose Accept prefers text/html to JSON
 * (a browser), unless ?format=json forces JSON; ?format=api forces the page.
 */
export function wantsHtml(req: Request): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const format = new URL(req.originalUrl, 'http://x').searchParams.get('format');
  if (format === 'json') return false;
  if (format === 'api') return true;
  if (!req.headers.accept) return false;
  return req.accepts(['application/json', 'text/html']) === 'text/html';
}

function originOf(req: Request): string {
  return `${req.protocol}://${req.get('host') ?? 'localhost'}`;
}

/**
 * The browsable API: for a browser, every JSON answer under /api/ (success or error) is rendered as an
 * HTML page around the very body the JSON API produced for that caller, through the renderer sendJson
 * consults. The handlers, their authentication and permission checks are unchanged.
 */
export function browsableApi(ctx: ApiContext) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.method === 'GET' || req.method === 'HEAD') res.vary('Accept');
    if (!wantsHtml(req)) return next();
    // Where the request sits under the API mount is taken now: an error is rendered by the app's last
    // handler, outside the mount, where req.baseUrl is '' and req.path the whole path.
    const base = req.baseUrl;
    const path = req.path;
    // The page's header offers logging in, or names the session's user and offers logging out.
    const user = readCookie(req, SESSION_COOKIE) ? sessionPrincipal(ctx, req).then((p) => p?.username, () => undefined) : Promise.resolve(undefined);
    user.then((username) => {
      const renderer: HtmlRenderer = (status, body) => {
        try {
          return renderPage({
            info: endpointInfo(ctx.registry, ctx.version, base, path),
            method: req.method,
            origin: originOf(req),
            url: req.originalUrl,
            status,
            body,
            authenticated: !!req.headers.authorization || !!req.headers.cookie,
            user: username,
          });
        } catch (err) {
          // A page that cannot be drawn must not cost the answer: the JSON goes out instead.
          console.error(`[${String(res.locals.requestId ?? '')}] browsable page for ${req.originalUrl} failed:`, err);
          return null;
        }
      };
      res.locals.htmlRenderer = renderer;
      next();
    }, next);
  };
}
