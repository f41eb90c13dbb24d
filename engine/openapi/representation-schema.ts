import type { ResolvedField, ResolvedModel } from '../definitions/registry-types';
import type { JsonSchema } from '../validation/request-schema';
import { fieldsOfForm, type Form } from '../reads/forms';
import { isConcealed } from '../definitions/concealed-fields';

/** Schema name of a model's representation in a form, e.g. DcimSite / DcimSiteBrief. */
export function representationName(model: ResolvedModel, form: Form): string {
  const base = `${pascal(model.app)}${pascal(model.name)}`;
  return form === 'brief' ? `${base}Brief` : base;
}

function pascal(s: string): string {
  return s.split(/[_-]/).map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
}

const nullable = (s: JsonSchema): JsonSchema => ({ anyOf: [s, { type: 'null' }] });

/**
 * JSON Schema of what the serializer emits for a model, derived from the same definitions:
 * used to document (and check) responses in the OpenAPI document.
 * References to other models point at `#/definitions/<Name>Brief` (the ref function may rewrite them).
 */
export function representationSchema(model: ResolvedModel, form: Form, ref: (m: ResolvedModel) => string = (m) => `#/definitions/${representationName(m, 'brief')}`): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const implicit: Record<string, JsonSchema> = {
    id: { type: 'integer' },
    url: { type: 'string', format: 'uri' },
    display: { type: 'string' },
    created: model.timestamps === 'date' ? { type: 'string', format: 'date' } : { type: 'string', format: 'date-time' },
    last_updated: { type: 'string', format: 'date-time' },
    _depth: { type: 'integer' },
  };
  const fields = fieldsOfForm(model, form);
  const names = form === 'brief' ? model.brief : ['id', 'url', 'display', ...(model.tree ? ['_depth'] : []), ...fields.map((f) => f.name)];
  for (const name of names) {
    const f = model.fields.get(name);
    if (!f) {
      // The type or id half of a generic relation, named on its own (as a brief form may), as the serializer shows it.
      const generic = model.fieldList.find((g) => g.kind === 'generic_fk' && (g.typeColumn === name || g.idColumn === name));
      if (generic) properties[name] = generic.typeColumn === name ? { type: ['string', 'null'] } : { type: ['integer', 'null'] };
      else if (implicit[name]) properties[name] = implicit[name]!;
      continue;
    }
    if (f.kind === 'generic_fk' && form === 'full') {
      properties[f.typeColumn] = { type: ['string', 'null'] };
      properties[f.idColumn] = { type: ['integer', 'null'] };
    }
    properties[name] = fieldSchema(f, form, ref);
  }
  if (form === 'full' && model.timestamps !== false) properties.created = implicit.created!;
  if (form === 'full' && model.lastUpdated) properties.last_updated = implicit.last_updated!;
  // A secret (a token's key) is left out unless the configuration reveals it (ALLOW_TOKEN_RETRIEVAL), a
  // shown_with field unless the caller may act on the object: neither is required.
  const required = Object.keys(properties).filter((name) => {
    const f = model.fields.get(name);
    return !f || !isConcealed(f);
  });
  return { type: 'object', title: representationName(model, form), additionalProperties: false, required, properties };
}

function scalar(f: ResolvedField): JsonSchema {
  switch (f.kind) {
    case 'integer': case 'positive_integer': case 'count': return { type: 'integer' };
    case 'boolean': return { type: 'boolean' };
    case 'decimal': case 'float': return { type: 'number' };
    case 'date': return { type: 'string', format: 'date' };
    case 'datetime': return { type: 'string', format: 'date-time' };
    case 'json': return {};
    case 'custom_fields': return { type: 'object' };
    case 'image': return { type: 'string', format: 'uri' };
    default: return { type: 'string' };
  }
}

const GENERIC_NESTED: JsonSchema = { type: 'object', properties: { id: { type: 'integer' }, url: { type: 'string' }, display: { type: 'string' } }, required: ['id', 'url'] };

function fieldSchema(f: ResolvedField, form: Form, ref: (m: ResolvedModel) => string): JsonSchema {
  if (f.kind === 'alias') return fieldSchema(f.aliasOf, form, ref);
  if (f.kind === 'config_context') return { type: 'object' };
  if (f.kind === 'children') {
    return { type: 'array', items: { type: 'object', required: ['object_type', 'object_id', 'object'], properties: { object_type: { type: 'string' }, object_id: { type: 'integer' }, object: nullable(GENERIC_NESTED) } } };
  }
  if (f.kind === 'reverse_generic') {
    const pick = f.reverse.pick;
    if (f.def.as === 'exists') return { type: 'boolean' };
    if (pick?.kind === 'fk') return nullable({ $ref: ref(pick.target) });
    return pick ? { type: ['string', 'integer', 'null'] } : { type: ['integer', 'null'] };
  }
  if (f.kind === 'link_peers') {
    if (f.def.as === 'type') return { type: ['string', 'null'] };
    if (f.def.as === 'reachable') return { type: ['boolean', 'null'] };
    if (f.def.as === 'endpoints') return nullable({ type: 'array', items: GENERIC_NESTED });
    if (f.def.as === 'status') return nullable({ type: 'object', required: ['value', 'label'], properties: { value: { type: 'boolean' }, label: { type: 'string' } } });
    return { type: 'array', items: GENERIC_NESTED };
  }
  if (f.kind === 'related') {
    const { shows, pick, rowAs } = f.relatedRows;
    const picked: JsonSchema | null = pick ? (rowAs ? { allOf: [{ $ref: ref(pick.target) }, { type: 'object', required: [rowAs], properties: { [rowAs]: { $ref: ref(f.countOf.model) } } }] } : { $ref: ref(pick.target) }) : null;
    const one: JsonSchema = picked ? picked : shows
      ? {
          type: 'object',
          required: ['id', 'url', 'display', ...shows.map((s) => s.name)],
          properties: { id: { type: 'integer' }, url: { type: 'string' }, display: { type: 'string' }, ...Object.fromEntries(shows.map((s) => [s.name, fieldSchema(s, 'brief', ref)])) },
        }
      : { $ref: ref(f.countOf.model) };
    return f.def.single ? nullable(one) : { type: 'array', items: one };
  }
  if (f.kind === 'fk') return nullable(f.def.plain ? { type: 'integer' } : { $ref: ref(f.target) });
  if (f.kind === 'm2m' && f.def.by_key) return { type: 'array', items: { type: 'string' } };
  if (f.kind === 'tags' || f.kind === 'm2m') return { type: 'array', items: { $ref: ref(f.target) } };
  if (f.kind === 'generic_fk') return nullable({ type: 'object', properties: { id: { type: 'integer' }, url: { type: 'string' }, display: { type: 'string' } }, required: ['id', 'url', 'display'] });
  if (f.choices) {
    const valueType = f.choices.numeric ? 'integer' : 'string';
    const values = f.choices.entries.map((e) => e.value);
    // A list of choices (a permission's actions) is rendered as its plain values, never null.
    if (f.kind === 'choice' && f.array) return { type: 'array', items: { type: valueType, enum: values } };
    if (form === 'brief' || f.def.plain) return nullable({ type: valueType, enum: values });
    return nullable({ type: 'object', additionalProperties: false, required: ['value', 'label'], properties: { value: { type: valueType, enum: values }, label: { type: 'string' } } });
  }
  if (f.kind === 'computed') return {};
  if (f.kind === 'net_count') return { type: 'integer' };
  let s = scalar(f);
  if (f.array) s = { type: 'array', items: s };
  // An image is null until a file is stored (its URL otherwise).
  return f.nullable || f.kind === 'json' || f.kind === 'image' ? (Object.keys(s).length ? nullable(s) : s) : s;
}
