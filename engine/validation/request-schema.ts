import type { ResolvedField, ResolvedModel } from '../definitions/registry-types';

export type JsonSchema = Record<string, unknown>;

export const SLUG_PATTERN = '^[-a-zA-Z0-9_]+$';
const INT32 = { minimum: -2147483648, maximum: 2147483647 };
const ID_SCHEMA: JsonSchema = { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER };
const PK_STRING: JsonSchema = { type: 'string', pattern: '^[0-9]+$' };

/** A related object is written as its id, or as an object of attributes identifying exactly one. */
function relatedSchema(nullable: boolean): JsonSchema {
  const options: JsonSchema[] = [ID_SCHEMA, PK_STRING, { type: 'object' }];
  if (nullable) options.push({ type: 'null' });
  return { anyOf: options };
}

function scalarSchema(field: ResolvedField): JsonSchema {
  const f = field.def;
  switch (field.kind) {
    case 'string':
    case 'text':
    case 'slug':
    case 'password': {
      const s: JsonSchema = { type: 'string' };
      const max = field.kind === 'slug' ? (f.max_length ?? 100) : f.max_length;
      if (max) s.maxLength = max;
      if (!f.blank) s.minLength = 1;
      if (field.kind === 'slug') s.pattern = SLUG_PATTERN;
      // A field that may be blank takes "" whatever its pattern says (dns_name, email).
      else if (f.pattern) s.pattern = f.blank ? `(?:${f.pattern})|^$` : f.pattern;
      return s;
    }
    case 'integer':
    case 'positive_integer': {
      const min = f.min ?? (field.kind === 'positive_integer' ? 0 : INT32.minimum);
      // Bounds past 2**53 (a bigint column's) are not exact as JSON numbers: keep to what is (and ajv's
      // "integer" lets Infinity through, which only a maximum stops).
      return { type: 'integer', minimum: Math.max(min, Number.MIN_SAFE_INTEGER), maximum: Math.min(f.max ?? INT32.maximum, Number.MAX_SAFE_INTEGER) };
    }
    case 'boolean':
      return { type: 'boolean' };
    case 'decimal':
    case 'float': {
      const s: JsonSchema = { type: 'number' };
      if (f.min !== undefined) s.minimum = f.min;
      if (f.max !== undefined) s.maximum = f.max;
      return s;
    }
    case 'date':
      return { type: 'string', format: 'date' };
    case 'datetime':
      return { type: 'string', format: 'date-time' };
    case 'json':
      // A definition's own schema (a list of pairs, an object of parameters) narrows it.
      if (f.json_schema) return { ...(f.json_schema as JsonSchema) };
      // Any JSON value but null, which a NOT NULL column cannot hold (withNull adds it back when the field allows it).
      return { type: ['object', 'array', 'string', 'number', 'boolean'] };
    case 'choice': {
      const values: unknown[] = field.choices.entries.map((e) => e.value);
      if (f.blank) values.push('');
      return { enum: values };
    }
    case 'cidr':
    case 'inet':
    case 'mac':
      return { type: 'string', minLength: 1, maxLength: 64 };
    case 'custom_fields':
      return { type: 'object' };
    case 'image':
      // A file comes as a multipart/form-data part, never in JSON: prepare-write tells a JSON value why it is refused.
      return { description: 'An image file (PNG, JPEG, GIF or WebP), uploaded as a multipart/form-data part.' };
    default:
      return {};
  }
}

function withNull(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  if (Array.isArray(schema.enum)) return { ...schema, enum: [...(schema.enum as unknown[]), null] };
  if (!Object.keys(schema).length) return schema;
  return { anyOf: [schema, { type: 'null' }] };
}

/** Properties a client may write: name -> schema. A generic relation is written as its _type and _id pair. */
export function writableProperties(model: ResolvedModel): Record<string, JsonSchema> {
  const props: Record<string, JsonSchema> = {};
  for (const field of model.fieldList) {
    if (field.readOnly) continue;
    const f = field.def;
    const doc: JsonSchema = {};
    if (f.label) doc.title = f.label;
    if (f.help_text) doc.description = f.help_text;
    switch (field.kind) {
      case 'fk':
        props[field.name] = { ...doc, ...relatedSchema(field.nullable) };
        break;
      case 'children':
        props[field.name] = {
          ...doc,
          type: 'array',
          items: { type: 'object', required: ['object_type', 'object_id'], properties: { object_type: { type: 'string' }, object_id: ID_SCHEMA } },
        };
        break;
      case 'm2m':
      case 'tags':
        props[field.name] = { ...doc, type: 'array', items: field.def.by_key ? { type: 'string' } : relatedSchema(false) };
        break;
      case 'generic_fk':
        props[field.typeColumn] = { type: field.nullable ? ['string', 'null'] : 'string' };
        props[field.idColumn] = { type: field.nullable ? ['integer', 'null'] : 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER };
        break;
      default: {
        let s = scalarSchema(field);
        if (field.array) s = { type: 'array', items: s, ...(f.min_items ? { minItems: f.min_items } : {}) };
        if (field.nullable) s = withNull(s);
        if (f.default !== undefined && f.default !== null && !field.array) s = { ...s, default: f.default };
        props[field.name] = { ...doc, ...s };
      }
    }
  }
  return props;
}

/** Fields that must be present when creating (and on PUT). */
export function requiredFields(model: ResolvedModel): string[] {
  const out: string[] = [];
  for (const field of model.fieldList) {
    if (field.readOnly || !field.required) continue;
    if (field.def.default !== undefined || field.def.default_fn) continue;
    // An upload is not part of the JSON document: its absence is told by prepare-write ("No file was submitted.").
    if (field.kind === 'image') continue;
    if (field.kind === 'generic_fk') out.push(field.typeColumn, field.idColumn);
    else out.push(field.name);
  }
  return out;
}

/** The JSON Schema of a create (mode 'create', also used for PUT) or partial update body. */
export function requestSchema(model: ResolvedModel, mode: 'create' | 'partial'): JsonSchema {
  const schema: JsonSchema = { type: 'object', properties: writableProperties(model) };
  const required = requiredFields(model);
  if (mode === 'create' && required.length) schema.required = required;
  return schema;
}
