import type { Registry, ResolvedModel } from '../../definitions/registry-types';
import { modelPaths, operationPrefix } from '../../openapi/component-names';
import { openApiDocument } from '../../openapi/openapi-document';

export type EndpointKind = 'root' | 'app' | 'status' | 'list' | 'detail' | 'action' | 'other';

/** What the page says about the endpoint a browser asked for. */
export interface EndpointInfo {
  kind: EndpointKind;
  model?: ResolvedModel;
  /** The API's path prefix, e.g. /api */
  base: string;
  /** Breadcrumbs: label and path (the last is the page itself). */
  crumbs: Array<{ label: string; href: string }>;
  /** The methods the endpoint answers, as the OpenAPI document lists them, plus HEAD and OPTIONS. */
  allow: string[];
  /** The operation in the interactive documentation (Swagger UI deep link: tag/operationId). */
  docsAnchor?: string;
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** The methods the OpenAPI document gives a path (plus HEAD with GET, and OPTIONS), so the page and the document cannot disagree. */
function allowedMethods(registry: Registry, version: string, docPath: string, options: boolean): string[] {
  const item = openApiDocument(registry, version).paths[docPath];
  if (!item) return ['GET', 'HEAD', 'OPTIONS'];
  const methods = METHODS.filter((m) => m in item).map((m) => m.toUpperCase());
  if (methods.includes('GET')) methods.push('HEAD');
  if (options) methods.push('OPTIONS');
  return methods;
}

/**
 * Classifies a path under the API mount (`/dcim/sites/3/`) the way the router does, without touching
 * the database: the page is rendered around a response the handlers already produced.
 */
export function endpointInfo(registry: Registry, version: string, base: string, path: string): EndpointInfo {
  const parts = path.split('/').filter(Boolean);
  const crumbs = [{ label: 'API Root', href: `${base}/` }];
  if (parts.length === 0) return { kind: 'root', base, crumbs, allow: allowedMethods(registry, version, '/api/', true) };
  if (parts.length === 1 && parts[0] === 'status') {
    crumbs.push({ label: 'Status', href: `${base}/status/` });
    return { kind: 'status', base, crumbs, allow: allowedMethods(registry, version, '/api/status/', true) };
  }
  crumbs.push({ label: parts[0]!, href: `${base}/${parts[0]}/` });
  if (parts.length === 1) return { kind: 'app', base, crumbs, allow: allowedMethods(registry, version, `/api/${parts[0]}/`, true) };
  const view = registry.applications.find((a) => a.name === parts[0])?.views.get(parts[1]!);
  if (view) {
    crumbs.push({ label: parts.slice(1).join('/'), href: `${base}/${parts.join('/')}/` });
    const docPath = parts.length === 2 ? `/api/${parts[0]}/${parts[1]}/` : `/api/${parts[0]}/${parts[1]}/{id}/`;
    return { kind: 'action', base, crumbs, allow: allowedMethods(registry, version, docPath, false) };
  }
  const model = registry.byPath.get(`${parts[0]}/${parts[1]}`);
  if (!model || parts.length > 4) return { kind: 'other', base, crumbs, allow: ['GET', 'HEAD', 'OPTIONS'] };
  const paths = modelPaths(model);
  crumbs.push({ label: capital(model.verboseNamePlural), href: `${base}/${model.app}/${model.path}/` });
  const op = operationPrefix(model);
  if (parts.length === 2) {
    return { kind: 'list', model, base, crumbs, allow: allowedMethods(registry, version, paths.list, true), docsAnchor: `${model.app}/${op}_list` };
  }
  crumbs.push({ label: parts[2]!, href: `${base}/${model.app}/${model.path}/${parts[2]}/` });
  if (parts.length === 4) {
    if (!model.detailActions.has(parts[3]!)) return { kind: 'other', base, crumbs, allow: ['GET', 'HEAD', 'OPTIONS'] };
    crumbs.push({ label: parts[3]!, href: `${base}/${model.app}/${model.path}/${parts[2]}/${parts[3]}/` });
    const action = `${paths.detail}${parts[3]}/`;
    const first = Object.values(openApiDocument(registry, version).paths[action] ?? {})[0] as { operationId?: string } | undefined;
    return { kind: 'action', model, base, crumbs, allow: allowedMethods(registry, version, action, false), docsAnchor: first?.operationId ? `${model.app}/${first.operationId}` : undefined };
  }
  if (model.def.list_actions?.[parts[2]!]) {
    const action = `${paths.list}${parts[2]}/`;
    return { kind: 'action', model, base, crumbs, allow: allowedMethods(registry, version, action, false), docsAnchor: `${model.app}/${op}_${parts[2]!.replace(/[^A-Za-z0-9_]/g, '_')}_create` };
  }
  return { kind: 'detail', model, base, crumbs, allow: allowedMethods(registry, version, paths.detail, true), docsAnchor: `${model.app}/${op}_retrieve` };
}
