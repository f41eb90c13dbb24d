import type { Registry, ResolvedModel } from '../definitions/registry-types';
import { requestSchema, type JsonSchema } from '../validation/request-schema';
import { modelPaths, modelSchemaNames, operationPrefix, responseRef, schemaRef } from './component-names';
import { detailParameters, listParameters } from './list-parameters';
import { fileFields } from '../writes/stored-files';

const json = (schema: JsonSchema) => ({ 'application/json': { schema } });

/**
 * A model with image fields also takes one object as a multipart/form-data form: its fields as form
 * fields, each image as a file part (required on create and PUT).
 */
function withForm(model: ResolvedModel, content: Record<string, unknown>, mode: 'create' | 'partial'): Record<string, unknown> {
  const files = fileFields(model);
  if (!files.length) return content;
  const schema = requestSchema(model, mode);
  const properties = { ...(schema.properties as Record<string, JsonSchema>) };
  for (const f of files) properties[f.name] = { type: 'string', format: 'binary', description: 'The image file (PNG, JPEG, GIF or WebP).' };
  const required = mode === 'create' ? [...((schema.required as string[] | undefined) ?? []), ...files.filter((f) => f.required).map((f) => f.name)] : [];
  return { ...content, 'multipart/form-data': { schema: { type: 'object', properties, ...(required.length ? { required } : {}) } } };
}
const arrayOf = (name: string, minItems = 1): JsonSchema => ({ type: 'array', items: schemaRef(name), minItems });
const body = (schema: JsonSchema, description: string) => ({ required: true, description, content: json(schema) });
const ok = (description: string, schema: JsonSchema) => ({ description, content: json(schema) });
const noContent = { description: 'Deleted; no body.' };

/** The errors every write can meet, plus those the operation names. */
function errors(...more: string[]): Record<string, unknown> {
  const codes: Record<string, string> = { 400: 'BadRequest', 403: 'Forbidden', 404: 'NotFound', 405: 'MethodNotAllowed', 409: 'Conflict', 413: 'PayloadTooLarge', 415: 'UnsupportedMediaType' };
  return Object.fromEntries(more.map((code) => [code, responseRef(codes[code]!)]));
}

const idParameter = (model: ResolvedModel) => ({
  name: 'id',
  in: 'path',
  required: true,
  description: `A unique integer value identifying this ${model.verboseName}.`,
  schema: { type: 'integer', minimum: 1 },
});

/**
 * The two path items of an object type: the list (GET, POST one or many, bulk PUT/PATCH/DELETE)
 * and the detail (GET, PUT, PATCH, DELETE), with NetBox's operationIds (dcim_sites_list ...).
 */
export function modelPathItems(registry: Registry, model: ResolvedModel): Record<string, Record<string, unknown>> {
  const items = allPathItems(registry, model);
  if (!model.def.read_only) return items;
  // A read-only type (content types) answers GET only: its writes are not documented, as they are not served.
  return Object.fromEntries(Object.entries(items).map(([p, item]) => [p, Object.fromEntries(Object.entries(item).filter(([k]) => k === 'get'))]));
}

function allPathItems(registry: Registry, model: ResolvedModel): Record<string, Record<string, unknown>> {
  const n = modelSchemaNames(model);
  const op = operationPrefix(model);
  const tags = [model.app];
  const one = model.verboseName;
  // "an IP address", "a site": by the first letter, which is right for the type names there are.
  const a = /^[aeiou]/i.test(one) ? 'an' : 'a';
  const capitalA = a === 'an' ? 'An' : 'A';
  const many = model.verboseNamePlural;
  const about = model.def.description ? `\n\n${model.def.description}` : '';
  const { list, detail } = modelPaths(model);
  return {
    [list]: {
      get: {
        operationId: `${op}_list`,
        tags,
        summary: `List ${many}`,
        description: `A page of ${many}, filtered, searched and ordered by the query parameters: different parameters combine with AND, a repeated parameter with OR. brief=1 returns the brief form of each object.${about}`,
        parameters: listParameters(registry, model),
        responses: {
          200: ok(`A page of ${many} (${n.list}), or of their brief form with brief=1 (${n.briefList}).`, { anyOf: [schemaRef(n.list), schemaRef(n.briefList)] }),
          ...errors('400', '403'),
        },
      },
      post: {
        operationId: `${op}_create`,
        tags,
        summary: `Create one or more ${many}`,
        description: `One object creates one ${one} (answered with it and a Location header); a list creates several in one transaction, answered in request order. Related objects are given by id or by an object of attributes that identifies exactly one.${about}`,
        requestBody: { ...body({ oneOf: [schemaRef(n.create), arrayOf(n.create)] }, `${capitalA} ${one}, or a list of them.`), content: withForm(model, json({ oneOf: [schemaRef(n.create), arrayOf(n.create)] }), 'create') },
        responses: {
          201: ok(`The created ${one}, or the list of created ${many}.`, { oneOf: [schemaRef(n.full), arrayOf(n.full, 0)] }),
          ...errors('400', '403', '413', '415'),
        },
      },
      put: {
        operationId: `${op}_bulk_update`,
        tags,
        summary: `Replace several ${many}`,
        description: `A list of ${many}, each with its id and all of its required fields; all or none are updated.`,
        requestBody: body(arrayOf(n.bulkUpdate), `The ${many} to update, each with its id.`),
        responses: { 200: ok(`The updated ${many}.`, arrayOf(n.full, 0)), ...errors('400', '403', '413', '415') },
      },
      patch: {
        operationId: `${op}_bulk_partial_update`,
        tags,
        summary: `Update fields of several ${many}`,
        description: `A list of objects, each with an id and the fields to change (which may differ between elements); all or none are updated.`,
        requestBody: body(arrayOf(n.bulkPartialUpdate), `The ${many} to update, each with its id.`),
        responses: { 200: ok(`The updated ${many}.`, arrayOf(n.full, 0)), ...errors('400', '403', '413', '415') },
      },
      delete: {
        operationId: `${op}_bulk_destroy`,
        tags,
        summary: `Delete several ${many}`,
        description: `A list of objects each naming an id; all or none are deleted. 409 when other objects depend on one of them.`,
        requestBody: body(arrayOf('BulkDeleteRequest'), `The ${many} to delete.`),
        responses: { 204: noContent, ...errors('400', '403', '409', '413', '415') },
      },
    },
    // The id is each operation's own parameter, as drf-spectacular writes NetBox's, not the path item's.
    [detail]: {
      get: {
        operationId: `${op}_retrieve`,
        tags,
        summary: `Retrieve ${a} ${one}`,
        description: `The ${one} (${n.full}), or its brief form with brief=1 (${n.brief}).${about}`,
        parameters: [idParameter(model), ...detailParameters(model)],
        responses: { 200: ok(`The ${one}.`, { anyOf: [schemaRef(n.full), schemaRef(n.brief)] }), ...errors('403', '404') },
      },
      put: {
        operationId: `${op}_update`,
        tags,
        summary: `Replace ${a} ${one}`,
        parameters: [idParameter(model)],
        description: `All required fields must be sent; a field left out keeps its value unless it can be reset.`,
        requestBody: { ...body(schemaRef(n.create), `The ${one}.`), content: withForm(model, json(schemaRef(n.create)), 'create') },
        responses: { 200: ok(`The updated ${one}.`, schemaRef(n.full)), ...errors('400', '403', '404', '413', '415') },
      },
      patch: {
        operationId: `${op}_partial_update`,
        tags,
        summary: `Update fields of ${a} ${one}`,
        parameters: [idParameter(model)],
        description: 'Only the fields to change are sent.',
        requestBody: { ...body(schemaRef(n.partial), `The fields of the ${one} to change.`), content: withForm(model, json(schemaRef(n.partial)), 'partial') },
        responses: { 200: ok(`The updated ${one}.`, schemaRef(n.full)), ...errors('400', '403', '404', '413', '415') },
      },
      delete: {
        operationId: `${op}_destroy`,
        tags,
        summary: `Delete ${a} ${one}`,
        parameters: [idParameter(model)],
        description: `409 when other objects depend on the ${one} and protect it.`,
        responses: { 204: noContent, ...errors('403', '404', '409') },
      },
    },
  };
}
