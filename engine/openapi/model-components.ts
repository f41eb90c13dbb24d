import type { ResolvedModel } from '../definitions/registry-types';
import { representationName, representationSchema } from './representation-schema';
import { requestSchema, type JsonSchema } from '../validation/request-schema';
import { modelSchemaNames, schemaRef } from './component-names';
import { paginatedOf } from './paginated-schema';

/** Nested objects are the related model's brief form, in this document's components. */
const briefRef = (m: ResolvedModel): string => schemaRef(representationName(m, 'brief')).$ref;

function paginated(item: string): JsonSchema {
  return paginatedOf(schemaRef(item));
}

function withId(base: string, title: string): JsonSchema {
  return {
    title,
    allOf: [schemaRef(base), { type: 'object', required: ['id'], properties: { id: { type: 'integer', minimum: 1, description: 'The object to update.' } } }],
  };
}

/**
 * The schemas of one model: its full and brief representations (from representationSchema, the
 * serializer's own description), the paginated lists of each, and its request bodies (from
 * requestSchema, the very schemas the body validator compiles): create (also PUT), partial (PATCH),
 * and the elements of bulk PUT and PATCH.
 */
export function modelComponents(model: ResolvedModel, exposed: boolean): Record<string, JsonSchema> {
  const n = modelSchemaNames(model);
  const out: Record<string, JsonSchema> = {
    [n.full]: representationSchema(model, 'full', briefRef),
    [n.brief]: representationSchema(model, 'brief', briefRef),
  };
  if (!exposed) return out;
  out[n.list] = paginated(n.full);
  out[n.briefList] = paginated(n.brief);
  out[n.create] = { title: n.create, ...requestSchema(model, 'create') };
  out[n.partial] = { title: n.partial, ...requestSchema(model, 'partial') };
  out[n.bulkUpdate] = withId(n.create, n.bulkUpdate);
  out[n.bulkPartialUpdate] = withId(n.partial, n.bulkPartialUpdate);
  return out;
}
