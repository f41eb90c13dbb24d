import { orderable } from '../filters/ordering-param';
import type { Registry, ResolvedModel } from '../definitions/registry-types';
import { filterTable, type FilterDef } from '../filters/filter-table';
import type { JsonSchema } from '../validation/request-schema';
import { commonParameter } from './common-components';

/** What each lookup suffix means, as the parameter descriptions say it. */
export const LOOKUP_MEANINGS: Record<string, string> = {
  exact: 'equals',
  n: 'not equal to',
  lt: 'less than',
  lte: 'less than or equal to',
  gt: 'greater than',
  gte: 'greater than or equal to',
  ic: 'contains (case-insensitive)',
  nic: 'does not contain (case-insensitive)',
  isw: 'starts with (case-insensitive)',
  nisw: 'does not start with (case-insensitive)',
  iew: 'ends with (case-insensitive)',
  niew: 'does not end with (case-insensitive)',
  ie: 'equals (case-insensitive)',
  nie: 'does not equal (case-insensitive)',
  empty: 'is empty (true) or not (false)',
};

const PATTERN_LOOKUPS = new Set(['ic', 'nic', 'isw', 'nisw', 'iew', 'niew', 'ie', 'nie']);

/** Query parameters that shape the response rather than filter it; a filter of the same name is unreachable. */
const SHAPING = new Set(['limit', 'offset', 'ordering', 'brief', 'exclude', 'format', 'fields', 'include', 'q']);

/** One filter parameter's name: the filter itself for `exact`, `<name>__<lookup>` otherwise. */
export function parameterName(def: FilterDef, lookup: string): string {
  return lookup === 'exact' ? def.name : `${def.name}__${lookup}`;
}

/** The JSON Schema of one value of a filter with a lookup. */
function valueSchema(registry: Registry, def: FilterDef, lookup: string): JsonSchema {
  if (lookup === 'empty') return { type: 'boolean' };
  if (PATTERN_LOOKUPS.has(lookup)) return { type: 'string' };
  switch (def.kind) {
    case 'integer':
      return { type: 'integer' };
    case 'number':
      return { type: 'number' };
    case 'boolean':
      return { type: 'boolean' };
    case 'date':
      return { type: 'string', format: 'date' };
    case 'datetime':
      return { type: 'string', format: 'date-time' };
    case 'choice': {
      const set = def.field?.choices;
      if (!set) return { type: 'string' };
      return { type: set.numeric ? 'integer' : 'string', enum: set.entries.map((e) => e.value) };
    }
    case 'relation':
      return def.name.endsWith('_id') ? { type: 'integer' } : { type: 'string' };
    case 'content_type':
      return { type: 'string', enum: [...registry.models.keys()].sort() };
    default:
      return { type: 'string' };
  }
}

function describe(def: FilterDef, lookup: string): string {
  const f = def.field;
  const subject = f && def.name === f.name ? f.label : f && def.name === `${f.name}_id` ? `${f.label} (by id)` : def.name;
  const parts = [`${subject} ${LOOKUP_MEANINGS[lookup] ?? lookup}.`];
  if (lookup !== 'empty' && def.kind !== 'boolean') {
    if (lookup === 'n' || (lookup.startsWith('n') && PATTERN_LOOKUPS.has(lookup))) parts.push('Repeat to exclude several values.');
    else if (def.kind === 'tags') parts.push('Repeat to require several (AND).');
    else parts.push('Repeat for any of several values (OR).');
  }
  if (def.kind === 'relation' && lookup !== 'empty') parts.push('`null` matches objects without one.');
  return parts.join(' ');
}

/** Every filter parameter of a model's list: each filter with each of its lookups. */
export function filterParameters(registry: Registry, model: ResolvedModel): JsonSchema[] {
  const out: JsonSchema[] = [];
  const seen = new Set<string>();
  for (const def of filterTable(model).values()) {
    if (SHAPING.has(def.name)) continue;
    for (const lookup of def.lookups) {
      const name = parameterName(def, lookup);
      if (seen.has(name)) continue;
      seen.add(name);
      const value = valueSchema(registry, def, lookup);
      const single = lookup === 'empty' || def.kind === 'boolean';
      out.push({
        name,
        in: 'query',
        description: describe(def, lookup),
        ...(single ? { schema: value } : { schema: { type: 'array', items: value }, style: 'form', explode: true }),
      });
    }
  }
  return out;
}

/** Fields a list can be ordered by (stored columns, relations, computed SQL), for the ordering parameter's description. */
function orderableFields(model: ResolvedModel): string[] {
  const out = ['id'];
  if (model.timestamps !== false) out.push('created');
  if (model.lastUpdated) out.push('last_updated');
  for (const f of model.fieldList) if (orderable(model, f.name)) out.push(f.name);
  return [...new Set(out)];
}

/** `exclude`: fields to leave out of each object. */
function excludeParameter(model: ResolvedModel): JsonSchema {
  return {
    name: 'exclude',
    in: 'query',
    description: `Fields to leave out of each object, comma-separated (e.g. config_context where a type has it); the left-out fields are absent from the response. Fields: ${model.fieldList.filter((f) => !f.writeOnly).map((f) => f.name).join(', ')}.`,
    schema: { type: 'string' },
  };
}

/** The parameters of GET on a detail endpoint. */
export function detailParameters(model: ResolvedModel): JsonSchema[] {
  return [commonParameter('brief'), excludeParameter(model)];
}

/** The parameters of GET on a list endpoint: paging, shaping, ordering, search, every filter, custom field filters. */
export function listParameters(registry: Registry, model: ResolvedModel): JsonSchema[] {
  const out: JsonSchema[] = [commonParameter('limit'), commonParameter('offset'), commonParameter('brief'), excludeParameter(model)];
  const order = orderableFields(model);
  out.push({
    name: 'ordering',
    in: 'query',
    description: `Fields to order by, comma-separated; prefix a field with - for descending. Default: ${model.ordering.map((o) => `${o.descending ? '-' : ''}${o.field}`).join(',') || 'id'}. Fields: ${order.join(', ')}.`,
    schema: { type: 'string' },
  });
  if (model.search.length) out.push(commonParameter('q'));
  out.push(...filterParameters(registry, model));
  if (model.fieldList.some((f) => f.kind === 'custom_fields')) {
    out.push({
      name: 'custom_field_filters',
      in: 'query',
      description:
        'Custom field filters, sent as separate query parameters: `cf_<name>=<value>` and `cf_<name>__<lookup>=<value>` '
        + '(lookups n, ic, nic, isw, nisw, iew, niew, ie, nie, empty, lt, lte, gt, gte as the field\'s type allows). '
        + 'A text field\'s filter logic decides: loose matches contained text, exact the whole value. Example: {"cf_rack_owner": "ops"}.',
      style: 'form',
      explode: true,
      // An empty example, so interactive documentation sends no made-up cf_ parameters.
      example: {},
      schema: {
        type: 'object',
        propertyNames: { pattern: '^cf_[a-z0-9_]+(__(n|ic|nic|isw|nisw|iew|niew|ie|nie|empty|lt|lte|gt|gte))?$' },
        additionalProperties: { type: 'string' },
      },
    });
  }
  return out;
}
