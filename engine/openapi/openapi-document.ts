import type { Registry } from '../definitions/registry-types';
import { API_VERSION_HEADER, NETBOX_API_VERSION } from '../http/api-root';
import type { JsonSchema } from '../validation/request-schema';
import { commonResponses, commonSchemas, securitySchemes, TOKEN_SCHEME } from './common-components';
import { modelComponents } from './model-components';
import { modelPathItems } from './model-operations';
import { specialPaths, specialSchemas } from './special-paths';
import { listActionPaths } from './list-action-paths';
import { addIdempotencyKeyParameter } from './idempotency-parameter';
import { appViewPaths, detailActionPaths } from './action-paths';

export type OpenApiDocument = Record<string, unknown> & {
  openapi: string;
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, JsonSchema> } & Record<string, unknown>;
};

const DESCRIPTION = `Patchbay speaks NetBox ${NETBOX_API_VERSION}'s REST dialect: every object type below is generated from its definition in schema/.

**Authentication.** Send \`Authorization: Token <key>\` (click *Authorize* and enter \`Token <key>\`). Writes need a write-enabled token; reads need a token unless EXEMPT_VIEW_PERMISSIONS exempts the type.

**Lists** are paginated with \`limit\` and \`offset\` (\`count\`, \`next\`, \`previous\`, \`results\`); \`brief=1\` returns brief objects; filters are query parameters named after fields, with lookups appended as \`__<lookup>\` (\`name__ic=core\`); \`ordering=-name\` orders.

**Errors** are JSON: \`{"detail": "..."}\`, or for invalid input each field with its messages. A method an endpoint does not support is a 405 with an Allow header.`;

/** Builds the OpenAPI 3.1 document of everything the engine serves, from the registry alone. */
export function buildOpenApiDocument(registry: Registry, version: string): OpenApiDocument {
  const schemas: Record<string, JsonSchema> = { ...commonSchemas, ...specialSchemas };
  const exposed = new Set(registry.byPath.values());
  const models = [...registry.models.values()].sort((a, b) => a.label.localeCompare(b.label));
  for (const model of models) Object.assign(schemas, modelComponents(model, exposed.has(model)));

  // Roots and status first, then each object type's list, detail and extra endpoints (tokens/provision/).
  const paths: Record<string, Record<string, unknown>> = { ...(specialPaths(registry) as Record<string, Record<string, unknown>>) };
  const actions = listActionPaths(registry);
  const details = detailActionPaths(registry);
  const views = appViewPaths(registry);
  Object.assign(schemas, actions.schemas, details.schemas, views.schemas);
  const listed = [...exposed].sort((a, b) => `${a.app}/${a.path}`.localeCompare(`${b.app}/${b.path}`));
  for (const model of listed) {
    Object.assign(paths, modelPathItems(registry, model));
    for (const [p, item] of Object.entries(actions.paths)) if (p.startsWith(`/api/${model.app}/${model.path}/`)) paths[p] = item;
    for (const [p, item] of Object.entries(details.paths)) if (p.startsWith(`/api/${model.app}/${model.path}/`)) paths[p] = item;
  }
  Object.assign(paths, views.paths);
  addIdempotencyKeyParameter(paths);

  const used = new Set(listed.map((m) => m.app));
  const tags = [
    { name: 'api', description: 'The API root.' },
    ...registry.applications.map((app) => ({ name: app.name, description: app.description || (used.has(app.name) ? `Object types of ${app.name}.` : app.name) })),
    { name: 'schema', description: 'This document.' },
    { name: 'status', description: 'Service status.' },
  ];

  return {
    openapi: '3.1.0',
    info: {
      title: 'Patchbay REST API',
      version: `${API_VERSION_HEADER} (Patchbay ${version})`,
      description: DESCRIPTION,
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    paths,
    components: {
      schemas,
      responses: commonResponses,
      securitySchemes,
    },
    security: [{ [TOKEN_SCHEME]: [] }],
    tags,
  };
}

const cache = new WeakMap<Registry, Map<string, OpenApiDocument>>();

/** The document of a registry, built once and kept (the registry does not change while the server runs). */
export function openApiDocument(registry: Registry, version: string): OpenApiDocument {
  let byVersion = cache.get(registry);
  if (!byVersion) cache.set(registry, (byVersion = new Map()));
  let doc = byVersion.get(version);
  if (!doc) byVersion.set(version, (doc = buildOpenApiDocument(registry, version)));
  return doc;
}
