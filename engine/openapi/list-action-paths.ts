import type { Registry, ResolvedModel } from '../definitions/registry-types';
import type { JsonSchema } from '../validation/request-schema';
import { modelPaths, modelSchemaNames, operationPrefix, responseRef, schemaRef } from './component-names';

/** How one named list action (engine/http/list-actions.ts) is documented: its path item and the schemas it needs. */
interface ActionDoc {
  schemas: Record<string, JsonSchema>;
  pathItem(model: ResolvedModel, operationId: string): Record<string, unknown>;
}

/** Each named action, documented once by name, as the definitions reference it ("list_actions"). */
const ACTION_DOCS: Record<string, ActionDoc> = {
  provision_token: {
    schemas: {
      TokenProvisionRequest: {
        type: 'object',
        required: ['username', 'password'],
        properties: {
          username: { type: 'string', minLength: 1 },
          password: { type: 'string', minLength: 1 },
          description: { type: 'string', description: 'A description for the new token.' },
        },
      },
    },
    pathItem: (model, operationId) => ({
      post: {
        operationId,
        tags: [model.app],
        summary: `Provision ${/^[aeiou]/i.test(model.verboseName) ? 'an' : 'a'} ${model.verboseName}`,
        description: `Creates a ${model.verboseName} with a generated key and write enabled for the user whose credentials are given; no token is sent. Failed attempts are limited per username and per client address.`,
        security: [],
        requestBody: { required: true, content: { 'application/json': { schema: schemaRef('TokenProvisionRequest') } } },
        responses: {
          201: { description: `The new ${model.verboseName}, key included.`, content: { 'application/json': { schema: schemaRef(modelSchemaNames(model).full) } } },
          400: responseRef('BadRequest'),
          403: { description: 'Invalid username or password.', content: { 'application/json': { schema: schemaRef('ErrorDetail') } } },
          415: responseRef('UnsupportedMediaType'),
          429: responseRef('TooManyRequests'),
        },
      },
    }),
  },
};

/** The extra endpoints under list paths that definitions declare ("list_actions": {"provision": "provision_token"}). */
export function listActionPaths(registry: Registry): { paths: Record<string, Record<string, unknown>>; schemas: Record<string, JsonSchema> } {
  const paths: Record<string, Record<string, unknown>> = {};
  const schemas: Record<string, JsonSchema> = {};
  for (const model of registry.byPath.values()) {
    for (const [name, fn] of Object.entries(model.def.list_actions ?? {})) {
      const doc = ACTION_DOCS[fn];
      const path = `${modelPaths(model).list}${name}/`;
      const operationId = `${operationPrefix(model)}_${name.replace(/[^A-Za-z0-9_]/g, '_')}_create`;
      if (!doc) {
        // An action this generator has no words for yet: listed, so it is not hidden, but undescribed.
        paths[path] = { post: { operationId, tags: [model.app], summary: `${name} (${fn})`, responses: { default: { description: 'See the engine\'s named action.' } } } };
        continue;
      }
      Object.assign(schemas, doc.schemas);
      paths[path] = doc.pathItem(model, operationId);
    }
  }
  return { paths, schemas };
}

/** Whether a named action has its documentation here (a test checks every declared one does). */
export function isDocumentedAction(fn: string): boolean {
  return Object.hasOwn(ACTION_DOCS, fn);
}
