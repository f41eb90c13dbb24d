import type { Knex } from 'knex';
import type { ResolvedModel } from '../definitions/registry-types';
import type { Condition } from '../query/conditions';
import { quoteIdent } from '../storage/identifiers';
import type { FilterContext } from './filter-context';
import { parseAll, type ValueKind } from './filter-values';
import { emptyCondition, ORDERED_LOOKUPS, scalarCondition, STRING_LOOKUPS } from './scalar-lookups';

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
  const result = await ctx.db.raw(
    `SELECT "name", "type", "filter_logic" FROM ${quoteIdent(cf.table)} WHERE ? = ANY("content_types") AND "name" = ANY(?)`,
    [model.label, names] as Knex.RawBinding[],
  );
  return new Map((result.rows as CustomFieldRow[]).map((r) => [r.name, r]));
}

/**
 * `cf_<name>` filters, compared by the custom field's type; a text field's filter_logic decides
 * (loose: contains, case-insensitive; exact: equals; disabled: no filter). One query for the definitions.
 */
export async function customFieldConditions(ctx: FilterContext, model: ResolvedModel, params: CustomFieldParam[]): Promise<Condition[]> {
  const store = model.fieldList.find((f) => f.kind === 'custom_fields');
  if (!store || !params.length) return [];
  const defs = await definitions(ctx, model, [...new Set(params.map((p) => p.name))]);
  const doc = `"t".${quoteIdent(store.column!)}`;
  const out: Condition[] = [];
  for (const p of params) {
    const def = defs.get(p.name);
    if (!def || def.filter_logic === 'disabled') continue;
    const text = { sql: `(${doc} ->> ?)`, bindings: [p.name] };
    const c = await compileOne(def, p, text, doc, ctx);
    if (c) out.push(c);
  }
  return out;
}

/** Inlines a column expression that itself carries bindings into a condition built around a placeholder column. */
function around(expr: { sql: string; bindings: unknown[] }, build: (col: string) => Condition): Condition {
  const c = build('__CF__');
  const pieces = c.sql.split('__CF__');
  // Each occurrence of the column contributes its bindings before the condition's own that follow it.
  const sql = pieces.join(expr.sql);
  const bindings: unknown[] = [];
  let consumed = 0;
  for (let i = 0; i < pieces.length; i++) {
    const marks = (pieces[i]!.match(/\?/g) ?? []).length;
    bindings.push(...c.bindings.slice(consumed, consumed + marks));
    consumed += marks;
    if (i < pieces.length - 1) bindings.push(...expr.bindings);
  }
  return { sql, bindings };
}

async function compileOne(def: CustomFieldRow, p: CustomFieldParam, text: { sql: string; bindings: unknown[] }, doc: string, ctx: FilterContext): Promise<Condition | null> {
  if (p.lookup === 'empty') {
    const flags = parseAll('boolean', p.values, p.param, ctx);
    return flags ? around(text, (col) => emptyCondition(col, flags[0] === true, true)) : null;
  }
  if (TEXT_TYPES.has(def.type)) {
    if (!(STRING_LOOKUPS as readonly string[]).includes(p.lookup)) return null;
    // A loose text filter without a lookup means "contains, ignoring case".
    const lookup = p.lookup === 'exact' && def.filter_logic === 'loose' && def.type !== 'select' ? 'ic' : p.lookup;
    return around(text, (col) => scalarCondition(col, lookup, p.values));
  }
  const ordered = ORDERED_TYPES[def.type];
  if (ordered) {
    if (!(ORDERED_LOOKUPS as readonly string[]).includes(p.lookup)) return null;
    const vs = parseAll(ordered, p.values, p.param, ctx);
    if (!vs) return null;
    const cast = ordered === 'number' ? '::numeric' : ordered === 'date' ? '::date' : '::timestamptz';
    const typeCheck = ordered === 'number' ? 'number' : 'string';
    const typed = { sql: `(CASE WHEN jsonb_typeof(${doc} -> ?) = '${typeCheck}' THEN (${doc} ->> ?)${cast} END)`, bindings: [p.name, p.name] };
    return around(typed, (col) => scalarCondition(col, p.lookup, vs, cast));
  }
  if (def.type === 'boolean') {
    const vs = parseAll('boolean', p.values, p.param, ctx);
    if (!vs) return null;
    return { sql: `(${doc} -> ?) = ANY(?::jsonb[])`, bindings: [p.name, vs.map((v) => JSON.stringify(v))] };
  }
  if (def.type === 'multiselect' || def.type === 'multiobject' || def.type === 'object') {
    const parts = p.values.map((v) => {
      const value = def.type === 'multiselect' ? v : Number(v);
      const needle = def.type === 'object' ? JSON.stringify(value) : JSON.stringify([value]);
      return { sql: `(${doc} -> ?) @> ?::jsonb`, bindings: [p.name, needle] };
    });
    const any = { sql: parts.map((x) => `(${x.sql})`).join(' OR '), bindings: parts.flatMap((x) => x.bindings) };
    return p.lookup === 'n' ? { sql: `NOT (${any.sql})`, bindings: any.bindings } : any;
  }
  return null;
}
