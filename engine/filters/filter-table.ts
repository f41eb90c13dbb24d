import type { ChoiceSet, ResolvedField, ResolvedModel } from '../definitions/registry-types';
import { column, ident, or, sql, type Sql } from '../sql/fragment';
import type { FilterContext } from './filter-context';
import { parseAll, parseValue, type ValueKind } from './filter-values';
import { emptyCondition, ORDERED_LOOKUPS, scalarCondition, STRING_LOOKUPS, type Cast } from './scalar-lookups';
import { relationFilters } from './relation-filters';
import { domainFilters, targetFilters } from './domain-filters';
import { isConcealed } from '../definitions/concealed-fields';

/**
 * One filter parameter of a list endpoint. `compile` turns the lookup and the (possibly repeated)
 * raw values into a condition on the table aliased "t", or records a 400 in ctx.errors and returns null.
 */
export interface FilterDef {
  name: string;
  lookups: readonly string[];
  /** Which field the filter belongs to, for documentation (OpenAPI) and tests. */
  field?: ResolvedField;
  kind: string;
  compile(lookup: string, values: string[], param: string, ctx: FilterContext): Promise<Sql | null>;
}

export type FilterTable = Map<string, FilterDef>;

const TEXT_KINDS = new Set(['string', 'text', 'slug']);
const NUMBER_KINDS: Record<string, ValueKind> = { integer: 'integer', positive_integer: 'integer', decimal: 'number', float: 'number' };
/**
 * A filter value may be any integer of up to 15 digits: bound as bigint, it compares with an integer
 * column of any width (PostgreSQL's cross-type operators keep the column's index), where a parameter
 * typed after an int4 column would make 2147483648 a database error.
 */
const NUMBER_CASTS: Record<string, Cast> = { integer: 'bigint', positive_integer: 'bigint', decimal: null, float: null };

/** A filter over one column expression of a scalar kind, with the lookups that kind has. */
export function columnFilter(name: string, col: Sql, valueKind: ValueKind, lookups: readonly string[], cast: Cast = null, field?: ResolvedField): FilterDef {
  const textual = valueKind === 'string' || valueKind === 'text';
  return {
    name,
    lookups,
    field,
    kind: valueKind,
    async compile(lookup, values, param, ctx) {
      if (lookup === 'empty') return emptyLookup(col, textual, values, param, ctx);
      const patternLookup = ['ic', 'nic', 'isw', 'nisw', 'iew', 'niew', 'ie', 'nie'].includes(lookup);
      const parsed = parseAll(patternLookup ? 'text' : valueKind, values, param, ctx);
      return parsed ? scalarCondition(col, lookup, parsed, patternLookup ? null : cast) : null;
    },
  };
}

function choiceFilter(name: string, col: Sql, field: ResolvedField, set: ChoiceSet): FilterDef {
  return {
    name,
    lookups: ['exact', 'n', 'empty'],
    field,
    kind: 'choice',
    async compile(lookup, values, param, ctx) {
      if (lookup === 'empty') return emptyLookup(col, !set.numeric, values, param, ctx);
      const parsed: unknown[] = [];
      for (const raw of values) {
        const v = set.numeric && /^-?\d+$/.test(raw) ? Number(raw) : raw;
        if (!set.labels.has(v)) {
          ctx.errors.add(param, `Select a valid choice. ${raw} is not one of the available choices.`);
          return null;
        }
        parsed.push(v);
      }
      return scalarCondition(col, lookup, parsed);
    },
  };
}

/** The filters of one field; `at` overrides the column expression (declared path filters compile against a placeholder). */
export function fieldFilters(model: ResolvedModel, field: ResolvedField, at?: Sql): FilterDef[] {
  if (field.kind === 'fk' || field.kind === 'm2m' || field.kind === 'tags' || field.kind === 'generic_fk') return relationFilters(model, field);
  if (field.kind === 'computed') {
    const fn = field.def.sql;
    const src = fn && field.def.from?.[0] ? model.fields.get(field.def.from[0]) : undefined;
    if (!fn || !src?.column || !field.choices) return [];
    return [choiceFilter(field.name, sql`${ident(fn)}(${column('t', src.column)})`, field, field.choices)];
  }
  if (!field.column || field.writeOnly) return [];
  const col = at ?? column('t', field.column);
  // A concealed value matches only as a whole: a prefix, a range or an emptiness test would let it be guessed piece by piece.
  if (isConcealed(field)) {
    const exact = columnFilter(field.name, col, 'string', ['exact'], null, field);
    return [field.def.shown_with ? revealedOnly(exact) : exact];
  }
  if (field.array) {
    if (TEXT_KINDS.has(field.kind)) return [field.namesType ? labelListFilter(field.name, col, field) : arrayContainsFilter(field.name, col, field, 'string')];
    return NUMBER_KINDS[field.kind] === 'integer' ? [arrayContainsFilter(field.name, col, field, 'integer')] : [];
  }
  if (field.kind === 'choice') return [choiceFilter(field.name, col, field, field.choices)];
  if (TEXT_KINDS.has(field.kind)) return [columnFilter(field.name, col, 'string', STRING_LOOKUPS, null, field)];
  if (NUMBER_KINDS[field.kind]) return [columnFilter(field.name, col, NUMBER_KINDS[field.kind]!, ORDERED_LOOKUPS, NUMBER_CASTS[field.kind], field)];
  if (field.kind === 'date') return [columnFilter(field.name, col, 'date', ORDERED_LOOKUPS, 'date', field)];
  if (field.kind === 'datetime') return [columnFilter(field.name, col, 'datetime', ORDERED_LOOKUPS, 'timestamptz', field)];
  if (field.kind === 'boolean') return [columnFilter(field.name, col, 'boolean', ['exact'], null, field)];
  if (field.kind === 'mac') return [columnFilter(field.name, col, 'mac', STRING_LOOKUPS, 'macaddr', field)];
  if (field.kind === 'cidr') return [columnFilter(field.name, col, 'cidr', ['exact', 'n', 'empty'], 'cidr', field)];
  if (field.kind === 'inet') return [inetFilter(field.name, col, field)];
  return [];
}

/** An address filter as NetBox's net_in: with a mask it is that exact interface address, without one any mask. */
function inetFilter(name: string, col: Sql, field: ResolvedField): FilterDef {
  return {
    name,
    lookups: ['exact', 'n', 'empty'],
    field,
    kind: 'inet',
    async compile(lookup, values, param, ctx) {
      if (lookup === 'empty') return emptyLookup(col, false, values, param, ctx);
      const parts: Sql[] = [];
      for (const raw of values) {
        const p = parseValue('inet', raw);
        if (!p.ok) {
          ctx.errors.add(param, p.message);
          return null;
        }
        const host = String(p.value).split('/')[0]!;
        parts.push(raw.includes('/') ? sql`${col} = ${String(p.value)}::inet` : sql`(${col} >>= ${host}::inet AND host(${col}) = ${host})`);
      }
      const any = or(parts);
      return lookup === 'n' ? sql`NOT (${any})` : any;
    },
  };
}

/** A list-valued field filtered by membership: each value must be one of the list's elements (repeats OR). */
function arrayContainsFilter(name: string, col: Sql, field: ResolvedField, kind: 'string' | 'integer'): FilterDef {
  return {
    name,
    lookups: ['exact', 'n'],
    field,
    kind,
    async compile(lookup, values, param, ctx) {
      // Checked like any value of the kind: a NUL byte, a lone surrogate or "abc" for a number is a 400, not a database error.
      const parsed = parseAll(kind, values, param, ctx);
      if (!parsed) return null;
      const c = kind === 'integer' ? sql`${col}::bigint[] && ${parsed}::bigint[]` : sql`${col} && ${parsed}::text[]`;
      return lookup === 'n' ? sql`NOT (${c})` : c;
    },
  };
}

/**
 * A list of type labels (content_types): membership (exact, n) as any list, and the text lookups, as
 * NetBox's ContentTypeFilter accepts them: `ic` (and isw, iew, ie) matches when some label matches, the
 * negated ones (nic...) when none does.
 */
function labelListFilter(name: string, col: Sql, field: ResolvedField): FilterDef {
  const member = arrayContainsFilter(name, col, field, 'string');
  const text = ['ic', 'nic', 'isw', 'nisw', 'iew', 'niew', 'ie', 'nie'];
  return {
    ...member,
    lookups: [...member.lookups, ...text],
    async compile(lookup, values, param, ctx) {
      if (!text.includes(lookup)) return member.compile(lookup, values, param, ctx);
      const parsed = parseAll('text', values, param, ctx);
      if (!parsed) return null;
      const positive = lookup.startsWith('n') ? lookup.slice(1) : lookup;
      const some = sql`EXISTS (SELECT 1 FROM unnest(${col}) AS "label"("v") WHERE ${scalarCondition(sql`"label"."v"`, positive, parsed)})`;
      return positive === lookup ? some : sql`NOT ${some}`;
    },
  };
}

/** A filter on a shown_with field matches only rows whose value the caller may see: of the others it tells nothing. */
function revealedOnly(def: FilterDef): FilterDef {
  return {
    ...def,
    async compile(lookup, values, param, ctx) {
      const c = await def.compile(lookup, values, param, ctx);
      if (!c || ctx.reveal === true) return c;
      return ctx.reveal === false ? sql`FALSE` : sql`(${c}) AND (${ctx.reveal})`;
    },
  };
}

/** The filter of a model's created or last_updated timestamp, when it keeps that timestamp. */
export function timestampFilter(model: ResolvedModel, stamp: 'created' | 'last_updated'): FilterDef | undefined {
  if (stamp === 'last_updated') return model.lastUpdated ? columnFilter('last_updated', column('t', 'last_updated'), 'datetime', ORDERED_LOOKUPS, 'timestamptz') : undefined;
  if (model.timestamps === false) return undefined;
  // A date-form created compares by its UTC date, as the API shows it.
  return model.timestamps === 'date'
    ? columnFilter('created', sql`("t"."created" AT TIME ZONE 'UTC')::date`, 'date', ORDERED_LOOKUPS, 'date')
    : columnFilter('created', column('t', 'created'), 'datetime', ORDERED_LOOKUPS, 'timestamptz');
}

const tables = new WeakMap<ResolvedModel, FilterTable>();

/** Every filter a model's list accepts, derived from its fields (one rule per kind) plus its declared domain filters. */
export function filterTable(model: ResolvedModel): FilterTable {
  let table = tables.get(model);
  if (table) return table;
  table = new Map();
  const add = (f: FilterDef) => table!.set(f.name, f);
  add(columnFilter('id', column('t', 'id'), 'integer', ORDERED_LOOKUPS, 'bigint'));
  for (const stamp of ['created', 'last_updated'] as const) {
    const f = timestampFilter(model, stamp);
    if (f) add(f);
  }
  for (const field of model.fieldList) for (const f of fieldFilters(model, field)) add(f);
  for (const f of domainFilters(model)) add(f);
  for (const f of targetFilters(model)) {
    if (table.has(f.name)) throw new Error(`${model.label}: filter ${f.name}, given by a generic relation's target_filters, has the name of one of its own filters`);
    add(f);
  }
  tables.set(model, table);
  return table;
}

/** `empty=true|false` on a column: parsed once here for every kind that has the lookup. */
function emptyLookup(col: Sql, textual: boolean, values: string[], param: string, ctx: FilterContext): Sql | null {
  const flags = parseAll('boolean', values, param, ctx);
  return flags ? emptyCondition(col, flags[0] === true, textual) : null;
}
