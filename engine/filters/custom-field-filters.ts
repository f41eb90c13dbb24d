import type { ResolvedModel } from '../definitions/registry-types';
import { column, ident, or, sql, type Sql } from '../sql/fragment';
import { runRows } from '../database/run';
import { unknownFilterMessage } from './filter-errors';
import type { FilterContext } from './filter-context';
import { parseAll, type ValueKind } from './filter-values';
import { emptyCondition, ORDERED_LOOKUPS, scalarCondition, STRING_LOOKUPS, type Cast } from './scalar-lookups';

/** A custom field definition as filtering needs it. */
interface CustomFieldRow {
  name: string;
  type: string;
  filter_logic: string;
}

export interface CustomFieldParam {
  param: string;
  name: string;
  lookup: string;
  values: string[];
}

const TEXT_TYPES = new Set(['text', 'longtext', 'url', 'select']);
const ORDERED_TYPES: Record<string, ValueKind> = { integer: 'number', decimal: 'number', date: 'date', datetime: 'datetime' };

/** Splits `cf_<name>[__<lookup>]`. */
export function parseCustomFieldParam(param: string, values: string[]): CustomFieldParam | null {
  const m = /^cf_([a-z0-9_]+?)(?:__(n|ic|nic|isw|nisw|iew|niew|ie|nie|empty|lt|lte|gt|gte))?$/.exec(param);
  if (!m) return null;
  return { param, name: m[1]!, lookup: m[2] ?? 'exact', values };
}

async function definitions(ctx: FilterContext, model: ResolvedModel, names: string[]): Promise<Map<string, CustomFieldRow>> {
  const cf = ctx.registry.roles.get('custom_field');
  if (!cf) return new Map();
  const rows = await runRows<CustomFieldRow>(ctx.db, sql`SELECT "name", "type", "filter_logic" FROM ${ident(cf.table)} WHERE ${model.label}::text = ANY("content_types") AND "name" = ANY(${names}::text[])`);
  return new Map(rows.map((r) => [r.name, r]));
}

/**
 * `cf_<name>` filters, compared by the custom field's type; a text field's filter_logic decides
 * (loose: contains, case-insensitive; exact: equals; disabled: no filter). One query for the definitions.
 */
export async function customFieldConditions(ctx: FilterContext, model: ResolvedModel, params: CustomFieldParam[]): Promise<Sql[]> {
  const store = model.fieldList.find((f) => f.kind === 'custom_fields');
  if (!store?.column || !params.length) {
    if (ctx.strict) for (const p of params) ctx.errors.add(p.param, unknownFilterMessage(p.param));
    return [];
  }
  const defs = await definitions(ctx, model, [...new Set(params.map((p) => p.name))]);
  const doc = column('t', store.column);
  const out: Sql[] = [];
  for (const p of params) {
    const def = defs.get(p.name);
    if (!def || def.filter_logic === 'disabled') {
      if (ctx.strict) ctx.errors.add(p.param, unknownFilterMessage(p.param));
      continue;
    }
    const c = compileOne(def, p, doc, ctx);
    if (c) out.push(c);
    // No condition and no error: a lookup this field's type does not take (cf_capacity__ic).
    else if (ctx.strict && !ctx.errors.has(p.param)) ctx.errors.add(p.param, unknownFilterMessage(p.param));
  }
  return out;
}

function compileOne(def: CustomFieldRow, p: CustomFieldParam, doc: Sql, ctx: FilterContext): Sql | null {
  const text = sql`(${doc} ->> ${p.name}::text)`;
  if (p.lookup === 'empty') {
    const flags = parseAll('boolean', p.values, p.param, ctx);
    return flags ? emptyCondition(text, flags[0] === true, true) : null;
  }
  if (TEXT_TYPES.has(def.type)) {
    if (!(STRING_LOOKUPS as readonly string[]).includes(p.lookup)) return null;
    // A loose text filter without a lookup means "contains, ignoring case".
    const lookup = p.lookup === 'exact' && def.filter_logic === 'loose' && def.type !== 'select' ? 'ic' : p.lookup;
    return scalarCondition(text, lookup, p.values);
  }
  const ordered = ORDERED_TYPES[def.type];
  if (ordered) {
    if (!(ORDERED_LOOKUPS as readonly string[]).includes(p.lookup)) return null;
    const vs = parseAll(ordered, p.values, p.param, ctx);
    if (!vs) return null;
    const cast: Cast = ordered === 'number' ? 'numeric' : ordered === 'date' ? 'date' : 'timestamptz';
    // Only values stored with the right JSON type are compared (a number stored as text is not a number).
    const typed = ordered === 'number'
      ? sql`(CASE WHEN jsonb_typeof(${doc} -> ${p.name}::text) = 'number' THEN (${doc} ->> ${p.name}::text)::numeric END)`
      : sql`(CASE WHEN jsonb_typeof(${doc} -> ${p.name}::text) = 'string' THEN (${doc} ->> ${p.name}::text)${castOf(cast)} END)`;
    return scalarCondition(typed, p.lookup, vs, cast);
  }
  if (def.type === 'boolean') {
    const vs = parseAll('boolean', p.values, p.param, ctx);
    if (!vs) return null;
    return sql`(${doc} -> ${p.name}::text) = ANY(${vs.map((v) => JSON.stringify(v))}::jsonb[])`;
  }
  if (def.type === 'multiselect' || def.type === 'multiobject' || def.type === 'object') {
    const parts = p.values.map((v) => {
      const value = def.type === 'multiselect' ? v : Number(v);
      const needle = def.type === 'object' ? JSON.stringify(value) : JSON.stringify([value]);
      return sql`(${doc} -> ${p.name}::text) @> ${needle}::jsonb`;
    });
    const any = or(parts);
    return p.lookup === 'n' ? sql`NOT (${any})` : any;
  }
  return null;
}

/** The cast of a date or timestamp read from JSON text. */
function castOf(cast: Cast): Sql {
  return cast === 'date' ? sql`::date` : sql`::timestamptz`;
}
