import type { ResolvedField, ResolvedModel } from '../definitions/registry-types';
import { and, column, ident, or, sql, type Sql } from '../sql/fragment';
import { castArray, castValue } from '../sql/casts';
import { likeEscape } from '../filters/filter-values';
import { comparableFor, type Comparable } from '../validation/comparable-values';
import { isConcealed } from '../definitions/concealed-fields';

/** Django lookups a permission constraint may use, as NetBox's constraints are Django filters. */
const LOOKUPS = new Set(['exact', 'iexact', 'in', 'isnull', 'contains', 'icontains', 'startswith', 'istartswith', 'endswith', 'iendswith', 'gt', 'gte', 'lt', 'lte']);

export class ConstraintError extends Error {}

/**
 * Aliases for the sub-selects one constraint set walks through, numbered from 1 in each set of each
 * constraintCondition: each set lives in its own sub-selects, so numbering again is safe, and the same
 * constraint always gives the same SQL text (a representation compiled for a caller's permissions is kept
 * by that text, and PostgreSQL keeps a plan per statement text).
 */
class Aliases {
  private n = 0;
  next(): string {
    this.n += 1;
    return `c${this.n}`;
  }
}

/** "$user" in a constraint stands for the requesting user's id, as in NetBox. */
function substitute(value: unknown, userId: number): unknown {
  if (value === '$user') return userId;
  if (Array.isArray(value)) return value.map((v) => substitute(v, userId));
  return value;
}

/** The value as a parameter of the column, or a ConstraintError (the grant then grants nothing) when the column cannot hold it. */
function bound(field: ResolvedField | null, value: unknown): Comparable {
  const c = comparableFor(field, value);
  if (!c) throw new ConstraintError(`${JSON.stringify(value)} cannot be compared with ${field ? field.name : 'an id'}`);
  return c;
}

function scalar(col: Sql, field: ResolvedField | null, lookup: string, value: unknown): Sql {
  switch (lookup) {
    case 'exact': {
      if (value === null) return sql`${col} IS NULL`;
      const b = bound(field, value);
      return sql`${col} = ${castValue(b.value, b.cast)}`;
    }
    case 'iexact':
      return sql`${col}::text ILIKE ${likeEscape(String(value))} ESCAPE '\\'`;
    case 'in': {
      if (!Array.isArray(value)) throw new ConstraintError('__in needs a list');
      const bs = value.map((v) => bound(field, v));
      return sql`${col} = ANY(${castArray(bs.map((b) => b.value), bs[0]?.cast ?? null)})`;
    }
    case 'isnull':
      return value ? sql`${col} IS NULL` : sql`${col} IS NOT NULL`;
    case 'contains':
    case 'icontains':
    case 'startswith':
    case 'istartswith':
    case 'endswith':
    case 'iendswith': {
      const v = likeEscape(String(value));
      const pattern = lookup.endsWith('contains') ? `%${v}%` : lookup.endsWith('startswith') ? `${v}%` : `%${v}`;
      return lookup.startsWith('i') ? sql`${col}::text ILIKE ${pattern} ESCAPE '\\'` : sql`${col}::text LIKE ${pattern} ESCAPE '\\'`;
    }
    default: {
      const op = { gt: sql`>`, gte: sql`>=`, lt: sql`<`, lte: sql`<=` }[lookup]!;
      const b = bound(field, value);
      return sql`${col} ${op} ${castValue(b.value, b.cast)}`;
    }
  }
}

/** One `path__lookup: value` pair of a constraint, as SQL on the model aliased `alias`. */
function pair(aliases: Aliases, model: ResolvedModel, alias: string, key: string, value: unknown): Sql {
  const parts = key.split('__');
  const last = parts[parts.length - 1]!;
  const lookup = parts.length > 1 && LOOKUPS.has(last) ? last : 'exact';
  const path = lookup === last && parts.length > 1 ? parts.slice(0, -1) : parts;
  return walk(aliases, model, alias, path, lookup, value);
}

function walk(aliases: Aliases, model: ResolvedModel, alias: string, path: string[], lookup: string, value: unknown): Sql {
  const [head, ...rest] = path;
  if (head === 'id' || head === 'pk') {
    if (rest.length) throw new ConstraintError(`cannot follow ${head}`);
    return scalar(column(alias, 'id'), null, lookup, value);
  }
  let field = model.fields.get(head!);
  let viaId = false;
  if (!field && head!.endsWith('_id')) {
    field = model.fields.get(head!.slice(0, -3));
    viaId = true;
  }
  if (!field) throw new ConstraintError(`${model.label} has no field "${head}"`);
  if (field.kind === 'fk' && field.target) {
    const col = column(alias, field.column);
    if (!rest.length) return scalar(col, null, lookup, value);
    if (viaId) throw new ConstraintError(`cannot follow ${head}`);
    const inner = aliases.next();
    const c = walk(aliases, field.target, inner, rest, lookup, value);
    return sql`${col} IN (SELECT ${column(inner, 'id')} FROM ${ident(field.target.table)} AS ${ident(inner)} WHERE ${c})`;
  }
  if ((field.kind === 'm2m' || field.kind === 'tags') && field.target && field.joinTable) {
    const j = aliases.next();
    const inner = aliases.next();
    const c = rest.length ? walk(aliases, field.target, inner, rest, lookup, value) : scalar(column(inner, 'id'), null, lookup, value);
    return sql`EXISTS (SELECT 1 FROM ${ident(field.joinTable)} AS ${ident(j)} JOIN ${ident(field.target.table)} AS ${ident(inner)} ON ${column(inner, 'id')} = ${column(j, 'target_id')} WHERE ${column(j, 'source_id')} = ${column(alias, 'id')} AND ${c})`;
  }
  if (rest.length || !field.column) throw new ConstraintError(`cannot constrain on ${model.label}.${head}`);
  if (isConcealed(field) && lookup !== 'exact' && lookup !== 'in') throw new ConstraintError(`${model.label}.${head} is concealed: exact match only`);
  return scalar(column(alias, field.column), field, lookup, value);
}

/**
 * Conditions to OR, in the order of their text: OR does not care, and a statement's text (PostgreSQL keeps
 * a plan per text) then depends on which constraints apply, not on the order they were listed or loaded in.
 */
export function inTextOrder(conditions: readonly Sql[]): Sql[] {
  const key = (c: Sql): string => c.texts.join('\u0000');
  return [...conditions].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/**
 * A permission's constraints as SQL on the table aliased "t": an object is an AND of its lookups, a
 * list of objects is an OR. An empty object or list means no restriction (null return).
 */
export function constraintCondition(model: ResolvedModel, constraints: unknown, userId: number): Sql | null {
  const sets = Array.isArray(constraints) ? constraints : [constraints];
  const ors: Sql[] = [];
  for (const set of sets) {
    if (set === null || typeof set !== 'object' || Array.isArray(set)) throw new ConstraintError('a constraint is an object of lookups');
    const entries = Object.entries(set as Record<string, unknown>);
    if (!entries.length) return null;
    // Numbered from c1 in each set, as each permission's are: the sets' sub-selects are apart, and a
    // set's text is then the same wherever it stands in the list (so the list can be put in text order).
    const aliases = new Aliases();
    ors.push(and(entries.map(([k, v]) => pair(aliases, model, 't', k, substitute(v, userId)))));
  }
  if (!ors.length) return null;
  return or(inTextOrder(ors));
}
