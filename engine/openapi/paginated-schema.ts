import type { JsonSchema } from '../validation/request-schema';

/** NetBox's page of results (LimitOffsetPagination), around the schema of one result. */
export function paginatedOf(items: JsonSchema): JsonSchema {
  return {
    type: 'object',
    required: ['count', 'next', 'previous', 'results'],
    additionalProperties: false,
    properties: {
      count: { type: 'integer', minimum: 0, description: 'Number of objects matching the query, on all pages.' },
      next: { type: ['string', 'null'], format: 'uri', description: 'The next page, or null on the last.' },
      previous: { type: ['string', 'null'], format: 'uri', description: 'The previous page, or null on the first.' },
      results: { type: 'array', items },
    },
  };
}
