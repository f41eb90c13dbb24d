import { or, sql, type Sql } from '../sql/fragment';
import { castArray, castValue, type Cast } from '../sql/casts';

export type { Cast };
import { likeEscape } from './filter-values';

/** Lookups of string fields (NetBox's: exact, n, ic, nic, isw, nisw, iew, niew, ie, nie, empty). */
export const STRING_LOOKUPS = ['exact', 'n', 'ic', 'nic', 'isw', 'nisw', 'iew', 'niew', 'ie', 'nie', 'empty'] as const;
/** Lookups of numbers, dates and timestamps. */
export const ORDERED_LOOKUPS = ['exact', 'n', 'lt', 'lte', 'gt', 'gte', 'empty'] as const;

/** NetBox's __n excludes the values; a row without a value is not excluded. */
export function notMatching(c: Sql, col: Sql): Sql {
  return sql`(${col} IS NULL OR NOT (${c}))`;
}

const PATTERNS: Record<string, (v: string) => string> = {
  ic: (v) => `%${likeEscape(v)}%`,
  isw: (v) => `${likeEscape(v)}%`,
  iew: (v) => `%${likeEscape(v)}`,
  ie: (v) => likeEscape(v),
};

/** `empty=true`: null or blank (for text); `empty=false`: neither. */
export function emptyCondition(col: Sql, wantEmpty: boolean, textual: boolean): Sql {
  const isEmpty = textual ? sql`(${col} IS NULL OR ${col}::text = '')` : sql`${col} IS NULL`;
  return wantEmpty ? isEmpty : sql`NOT ${isEmpty}`;
}

/**
 * A scalar lookup on a column expression, values already parsed. `cast` types each value (e.g. ::inet)
 * so comparisons use the column's type and its indexes. Several values: OR for positive lookups, AND
 * (none of them) for negated ones.
 */
export function scalarCondition(col: Sql, lookup: string, values: unknown[], cast: Cast = null): Sql {
  const base = lookup.startsWith('n') && lookup !== 'n' ? lookup.slice(1) : lookup;
  const negated = lookup === 'n' || (lookup !== base && base in PATTERNS);
  if (lookup === 'exact' || lookup === 'n') {
    const c = sql`${col} = ANY(${castArray(values, cast)})`;
    return negated ? notMatching(c, col) : c;
  }
  if (base in PATTERNS) {
    const make = PATTERNS[base]!;
    const c = or(values.map((v) => sql`${col}::text ILIKE ${make(String(v))} ESCAPE '\\'`));
    return negated ? notMatching(c, col) : c;
  }
  const op = { lt: sql`<`, lte: sql`<=`, gt: sql`>`, gte: sql`>=` }[lookup];
  if (op) return or(values.map((v) => sql`${col} ${op} ${castValue(v, cast)}`));
  throw new Error(`unknown lookup ${lookup}`);
}

