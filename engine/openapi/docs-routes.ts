import path from 'node:path';
import type { NextFunction, Request, Response } from 'express';
import YAML from 'yaml';
import type { ApiContext } from '../http/api-context';
import { sendJson } from '../http/respond';
import { openApiDocument, type OpenApiDocument } from './openapi-document';
import { swaggerInitScript, swaggerPage, type DocumentChoice } from './swagger-page';
import { applicationDocument, documentApplications } from './application-document';

/** Where swagger-ui-dist keeps its built assets; served from here, never from a CDN. */
const SWAGGER_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui.css.map': 'application/json',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-bundle.js.map': 'application/json',
  'favicon-16x16.png': 'image/png',
  'favicon-32x32.png': 'image/png',
};
const INIT_SCRIPT = 'patchbay-init.js';

/** The two places Swagger UI answers: Patchbay's /api/docs/ and NetBox's /api/schema/swagger-ui/. */
const DOC_ROOTS = ['/docs/', '/schema/swagger-ui/'];
const READ = ['GET', 'HEAD'];

const rendered = new WeakMap<OpenApiDocument, { json?: string; yaml?: string }>();

function serialized(doc: OpenApiDocument, format: 'json' | 'yaml'): string {
  let r = rendered.get(doc);
  if (!r) rendered.set(doc, (r = {}));
  if (format === 'json') return (r.json ??= JSON.stringify(doc));
  return (r.yaml ??= YAML.stringify(doc, { aliasDuplicateObjects: false, lineWidth: 0 }));
}

/** ?format=json|yaml wins; otherwise the Accept header; JSON by default. */
function schemaFormat(req: Request): { format: 'json' | 'yaml'; type: string } | null {
  const asked = new URL(req.originalUrl, 'http://x').searchParams.get('format');
  if (asked === 'json') return { format: 'json', type: 'application/vnd.oai.openapi+json' };
  if (asked === 'yaml') return { format: 'yaml', type: 'application/yaml' };
  if (asked !== null) return null;
  const best = req.accepts(['application/json', 'application/vnd.oai.openapi+json', 'application/yaml', 'application/vnd.oai.openapi', 'text/yaml']);
  if (best === 'application/yaml' || best === 'application/vnd.oai.openapi' || best === 'text/yaml') return { format: 'yaml', type: best };
  if (best === 'application/vnd.oai.openapi+json') return { format: 'json', type: best };
  return { format: 'json', type: 'application/json' };
}

function refuseMethod(req: Request, res: Response): void {
  res.setHeader('Allow', READ.join(', '));
  sendJson(req, res, 405, { detail: `Method "${req.method}" not allowed.` });
}

function serveSchema(ctx: ApiContext, req: Request, res: Response): void {
  if (!READ.includes(req.method)) return refuseMethod(req, res);
  const chosen = schemaFormat(req);
  if (!chosen) return sendJson(req, res, 400, { format: ['Select a valid format: json or yaml.'] });
  const whole = openApiDocument(ctx.registry, ctx.version);
  const app = new URL(req.originalUrl, 'http://x').searchParams.get('app');
  const doc = app === null ? whole : applicationDocument(whole, app);
  if (!doc) return sendJson(req, res, 400, { app: [`Select a valid choice. ${app} is not one of the available choices.`] });
  res.setHeader('Vary', 'Accept');
  res.status(200).type(`${chosen.type}; charset=utf-8`).send(serialized(doc, chosen.format));
}

/** What the docs page offers: each application's document (the real applications first), then the whole one. */
function documentChoices(ctx: ApiContext): { choices: DocumentChoice[]; first: string } {
  const tags = documentApplications(openApiDocument(ctx.registry, ctx.version));
  const real = ctx.registry.applications.map((a) => a.name).filter((name) => tags.includes(name));
  const rest = tags.filter((name) => !real.includes(name));
  const choices = [...real, ...rest].map((app) => ({ app, label: app }));
  choices.push({ app: 'all', label: 'all (the whole document: slow to draw)' });
  return { choices, first: choices[0]!.app };
}

function serveDocs(ctx: ApiContext, req: Request, res: Response, rest: string): void {
  if (!READ.includes(req.method)) return refuseMethod(req, res);
  const schemaUrl = `${req.baseUrl}/schema/?format=json`;
  if (rest === '') {
    res.status(200).type('text/html; charset=utf-8').send(swaggerPage(req.baseUrl, documentChoices(ctx).choices));
    return;
  }
  if (rest === INIT_SCRIPT) {
    const { choices, first } = documentChoices(ctx);
    const apps = choices.map((c) => c.app).filter((a) => a !== 'all');
    res.status(200).type('text/javascript; charset=utf-8').send(swaggerInitScript(schemaUrl, apps, first));
    return;
  }
  const type = ASSETS[rest]!;
  res.setHeader('Cache-Control', 'public, max-age=86400');
  res.type(type).sendFile(path.join(SWAGGER_DIR, rest));
}

/** Swagger UI's own files (style sheets, scripts, icons): static assets, served even when LOGIN_REQUIRED holds. */
export function isDocsAsset(apiPath: string): boolean {
  return DOC_ROOTS.some((root) => apiPath.startsWith(root) && Object.hasOwn(ASSETS, apiPath.slice(root.length)));
}

/**
 * /api/schema/ (the OpenAPI document, JSON or YAML) and the interactive documentation at /api/docs/
 * and /api/schema/swagger-ui/, with every asset from the swagger-ui-dist package. Anything else falls
 * through to the API (a path without its trailing slash is redirected there, as every API path is).
 */
export function apiDocs(ctx: ApiContext) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const p = req.path;
    if (p === '/schema/') return serveSchema(ctx, req, res);
    for (const root of DOC_ROOTS) {
      if (!p.startsWith(root)) continue;
      const rest = p.slice(root.length);
      if (rest === '' || rest === INIT_SCRIPT || Object.hasOwn(ASSETS, rest)) return serveDocs(ctx, req, res, rest);
    }
    next();
  };
}
