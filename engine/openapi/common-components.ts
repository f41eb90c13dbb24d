import type { JsonSchema } from '../validation/request-schema';
import { schemaRef } from './component-names';

/** The security scheme: NetBox's token header, `Authorization: Token <key>`. */
export const TOKEN_SCHEME = 'tokenAuth';

export const securitySchemes: Record<string, JsonSchema> = {
  [TOKEN_SCHEME]: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description:
      'Token <key>: the word `Token`, a space, then the 40 hexadecimal characters of an API token, '
      + 'e.g. `Token 0123456789abcdef0123456789abcdef01234567`. Tokens are created under /api/users/tokens/ '
      + 'or with POST /api/users/tokens/provision/. Read-only tokens may only read.',
  },
};

/** Schemas every endpoint shares: the error bodies and the bulk delete element. */
export const commonSchemas: Record<string, JsonSchema> = {
  ErrorDetail: {
    type: 'object',
    description: 'An error that concerns the request as a whole.',
    required: ['detail'],
    properties: { detail: { type: 'string' } },
  },
  FieldErrors: {
    type: 'object',
    description: 'Validation errors: each invalid field (or query parameter) with its messages; `non_field_errors` for the object as a whole.',
    additionalProperties: { type: 'array', items: { type: 'string' } },
  },
  ValidationError: {
    description: 'A 400: field errors for one object, a list of them aligned with the elements of a bulk request, or a detail message (e.g. malformed JSON).',
    anyOf: [schemaRef('ErrorDetail'), schemaRef('FieldErrors'), { type: 'array', items: schemaRef('FieldErrors') }],
  },
  BulkDeleteRequest: {
    type: 'object',
    description: 'One object to delete, named by its id.',
    required: ['id'],
    properties: { id: { type: 'integer', minimum: 1 } },
  },
};

const detail = (description: string) => ({ description, content: { 'application/json': { schema: schemaRef('ErrorDetail') } } });

/** Reusable error responses; operations reference the ones they can give. */
export const commonResponses: Record<string, JsonSchema> = {
  BadRequest: { description: 'Invalid input: the body names each invalid field (or filter parameter) with its messages.', content: { 'application/json': { schema: schemaRef('ValidationError') } } },
  Forbidden: detail('No credentials where they are required, an invalid, expired or read-only token, or no permission.'),
  NotFound: detail('No such object (or not visible to the caller).'),
  MethodNotAllowed: detail('The endpoint does not support this HTTP method; the Allow header lists those it does.'),
  Conflict: detail('The object cannot be deleted: other objects depend on it (the message names them).'),
  PayloadTooLarge: detail('The request body is too large.'),
  UnsupportedMediaType: detail('The request body is not JSON (send Content-Type: application/json).'),
  TooManyRequests: detail('Too many failed attempts: try again after the time the Retry-After header gives.'),
};

/**
 * Query parameters every list (or every endpoint) shares. Each operation gets its own copy, written
 * inline as drf-spectacular writes NetBox's: clients such as the Ansible inventory plugin read
 * `parameters[].name` directly and do not follow a `$ref`.
 */
const commonParameters = {
  limit: {
    name: 'limit',
    in: 'query',
    description: 'Number of results to return per page (default PAGINATE_COUNT, at most MAX_PAGE_SIZE; 0 asks for the maximum).',
    schema: { type: 'integer', minimum: 0 },
  },
  offset: {
    name: 'offset',
    in: 'query',
    description: 'The index of the first result to return.',
    schema: { type: 'integer', minimum: 0 },
  },
  brief: {
    name: 'brief',
    in: 'query',
    description: 'Return the brief representation of each object (the fields nested objects show).',
    schema: { type: 'boolean' },
  },
  q: {
    name: 'q',
    in: 'query',
    description: 'General search: objects any of whose search fields contains this text (case-insensitive).',
    schema: { type: 'string' },
  },
} satisfies Record<string, JsonSchema>;

/** A fresh copy of a shared parameter, to write inline in one operation. */
export function commonParameter(name: keyof typeof commonParameters): JsonSchema {
  return structuredClone(commonParameters[name]);
}
