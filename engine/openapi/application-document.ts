import type { OpenApiDocument } from './openapi-document';

/**
 * One application's share of the OpenAPI document (`/api/schema/?app=dcim`): its operations and the
 * components they reach, nothing else. The whole document is over 3 MB, and Swagger UI, which resolves it
 * entirely before drawing, takes minutes on it; an application's share draws in seconds. Built on top of the
 * finished document, so the two cannot disagree.
 */

interface Tag {
  name: string;
  description?: string;
}

const REF_PREFIX = '#/components/';

/** The applications the document groups its operations under (its tags), in the document's order. */
export function documentApplications(doc: OpenApiDocument): string[] {
  const tags = (doc.tags ?? []) as Tag[];
  return tags.map((t) => t.name);
}

function hasTag(item: Record<string, unknown>, app: string): boolean {
  return Object.values(item).some((op) => {
    const tags = (op as { tags?: unknown } | null)?.tags;
    return Array.isArray(tags) && tags.includes(app);
  });
}

/** Every `$ref` to a component inside value, as [kind, name]. */
function collectRefs(value: unknown, out: Array<[string, string]>): void {
  if (Array.isArray(value)) {
    for (const v of value) collectRefs(v, out);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  for (const [k, v] of Object.entries(value)) {
    if (k === '$ref' && typeof v === 'string' && v.startsWith(REF_PREFIX)) {
      const [kind, ...rest] = v.slice(REF_PREFIX.length).split('/');
      if (kind && rest.length) out.push([kind, rest.join('/').replace(/~1/g, '/').replace(/~0/g, '~')]);
    } else collectRefs(v, out);
  }
}

const built = new WeakMap<OpenApiDocument, Map<string, OpenApiDocument>>();

/** The document reduced to one application's operations and what they reference; null for an unknown application. */
export function applicationDocument(doc: OpenApiDocument, app: string): OpenApiDocument | null {
  if (!documentApplications(doc).includes(app)) return null;
  let byApp = built.get(doc);
  if (!byApp) built.set(doc, (byApp = new Map()));
  const cached = byApp.get(app);
  if (cached) return cached;

  const paths = Object.fromEntries(Object.entries(doc.paths).filter(([, item]) => hasTag(item, app)));
  const source = doc.components as Record<string, Record<string, unknown> | undefined>;
  const components: Record<string, Record<string, unknown>> = {};
  // Security schemes are named by `security`, not by $ref: all are kept.
  if (source.securitySchemes) components.securitySchemes = source.securitySchemes;
  const pending: Array<[string, string]> = [];
  collectRefs(paths, pending);
  // Components refer to each other, and may do so in cycles: each is visited once.
  while (pending.length) {
    const [kind, name] = pending.pop()!;
    const target = (components[kind] ??= {});
    if (Object.hasOwn(target, name)) continue;
    const component = source[kind]?.[name];
    if (component === undefined) continue;
    target[name] = component;
    collectRefs(component, pending);
  }
  const tags = ((doc.tags ?? []) as Tag[]).filter((t) => t.name === app);
  const info = doc.info as { title?: string } & Record<string, unknown>;
  const result = {
    ...doc,
    info: { ...info, title: `${info.title ?? 'API'}: ${app}` },
    paths,
    components: components as OpenApiDocument['components'],
    tags,
  } as OpenApiDocument;
  byApp.set(app, result);
  return result;
}
