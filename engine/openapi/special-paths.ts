import type { Registry } from '../definitions/registry-types';
import { appEndpoints } from '../http/api-root';
import type { JsonSchema } from '../validation/request-schema';
import { schemaRef } from './component-names';

const links: JsonSchema = { type: 'object', additionalProperties: { type: 'string', format: 'uri' } };
const ok = (description: string, schema: JsonSchema) => ({ description, content: { 'application/json': { schema } } });

/** Schemas of the endpoints that are not object types. */
export const specialSchemas: Record<string, JsonSchema> = {
  Status: {
    type: 'object',
    required: ['netbox-version', 'patchbay-version', 'installed-apps', 'plugins'],
    properties: {
      'netbox-version': { type: 'string', description: 'The NetBox release whose REST dialect is spoken.' },
      'patchbay-version': { type: 'string' },
      'node-version': { type: 'string' },
      'database': { type: 'string' },
      'installed-apps': { type: 'object' },
      'plugins': { type: 'object' },
      'rq-workers-running': { type: 'integer' },
    },
  },
};

/** The API root, each application's root and /api/status/: public, read-only, answering GET. */
function rootPaths(registry: Registry): Record<string, unknown> {
  const out: Record<string, unknown> = {
    '/api/': {
      get: {
        operationId: 'root_retrieve',
        tags: ['api'],
        summary: 'API root',
        description: 'Each application with the URL of its root.',
        security: [],
        responses: { 200: ok('Application name -> URL.', { ...links, required: registry.applications.map((a) => a.name) }) },
      },
    },
    '/api/status/': {
      get: {
        operationId: 'status_retrieve',
        tags: ['status'],
        summary: 'Service status',
        description: 'The NetBox API version spoken, this release and the database in use.',
        security: [],
        responses: { 200: ok('The status.', schemaRef('Status')) },
      },
    },
  };
  for (const { name: app } of registry.applications) {
    const models = appEndpoints(registry, app);
    out[`/api/${app}/`] = {
      get: {
        operationId: `${app}_root_retrieve`,
        tags: [app],
        summary: `${app} root`,
        description: `Each object type of ${app} with the URL of its list.`,
        security: [],
        responses: { 200: ok('Object type path -> URL of its list.', { ...links, ...(models.length ? { required: models } : {}) }) },
      },
    };
  }
  return out;
}

/** The OpenAPI document itself. */
const schemaPath = {
  '/api/schema/': {
    get: {
      operationId: 'schema_retrieve',
      tags: ['schema'],
      summary: 'This OpenAPI document',
      description: 'OpenAPI 3.1, generated from the object type definitions. JSON by default, with ?format=json or Accept: application/vnd.oai.openapi+json; YAML with ?format=yaml or Accept: application/yaml.',
      security: [],
      parameters: [{ name: 'format', in: 'query', schema: { type: 'string', enum: ['json', 'yaml'] } }],
      responses: {
        200: {
          description: 'The OpenAPI document.',
          content: {
            'application/vnd.oai.openapi+json': { schema: { type: 'object' } },
            'application/json': { schema: { type: 'object' } },
            'application/yaml': { schema: { type: 'string' } },
          },
        },
      },
    },
  },
};

/** Every path that is not an object type's list or detail. */
export function specialPaths(registry: Registry): Record<string, unknown> {
  return { ...rootPaths(registry), ...schemaPath };
}
