import type { Condition } from '../query/conditions';
import { likeEscape } from './filter-values';

/** Lookups of string fields (NetBox's: exact, n, ic, nic, isw, nisw, iew, niew, ie, nie, empty). */
export const STRING_LOOKUPS = ['exact', 'n', 'ic', 'nic', 'isw', 'nisw', 'iew', 'niew', 'ie', 'nie', 'empty'] as const;
/** Lookups of numbers, dates and timestamps. */
export const ORDERED_LOOKUPS = ['exact', 'n', 'lt', 'lte', 'gt', 'gte', 'empty'] as const;

/** Several values of one parameter: OR for positive lookups, AND (none of them) for negated ones. */
function any(parts: Condition[]): Condition {
  return { sql: parts.map((p) => `(${p.sql})`).join(' OR '), bindings: parts.flatMap((p) => p.bindings) };
}

function not(c: Condition, col: string): Condition {
  // NetBox's __n excludes the values; a row without a value is not excluded.
  return { sql: `(${col} IS NULL OR NOT (${c.sql}))`, bindings: c.bindings };
}

const PATTERNS: Record<string, (v: string) => string> = {
  ic: (v) => `%${likeEscape(v)}%`,
  isw: (v) => `${likeEscape(v)}%`,
  iew: (v) => `%${likeEscape(v)}`,
  ie: (v) => likeEscape(v),
};

/** `empty=true`: null or blank (for text); `empty=false`: neither. */
export function emptyCondition(col: string, wantEmpty: boolean, textual: boolean): Condition {
  const isEmpty = textual ? `(${col} IS NULL OR ${col}::text = '')` : `${col} IS NULL`;
  return { sql: wantEmpty ? isEmpty : `NOT ${isEmpty}`, bindings: [] };
}

/**
 * A scalar lookup on a column expression, values already parsed. `cast` is appended to each
 * placeholder (e.g. ::inet) so comparisons use the column's type and its indexes.
 */
export function scalarCondition(col: string, lookup: string, values: unknown[], cast = ''): Condition {
  const base = lookup.startsWith('n') && lookup !== 'n' ? lookup.slice(1) : lookup;
  const negated = lookup === 'n' || (lookup !== base && base in PATTERNS);
  if (lookup === 'exact' || lookup === 'n') {
    const c: Condition = { sql: `${col} = ANY(?${cast ? `${cast}[]` : ''})`, bindings: [values] };
    return negated ? not(c, col) : c;
  }
  if (base in PATTERNS) {
    const make = PATTERNS[base]!;
    const c = any(values.map((v) => ({ sql: `${col}::text ILIKE ? ESCAPE '\\'`, bindings: [make(String(v))] })));
    return negated ? not(c, col) : c;
  }
  const op = { lt: '<', lte: '<=', gt: '>', gte: '>=' }[lookup];
  if (op) return any(values.map((v) => ({ sql: `${col} ${op} ?${cast}`, bindings: [v] })));
  throw new Error(`unknown lookup ${lookup}`);
}
