import type { ResolvedField, ResolvedModel } from '../definitions/registry-types';
import type { Condition } from '../query/conditions';
import { quoteIdent } from '../storage/identifiers';
import { likeEscape } from '../filters/filter-values';
import { comparableFor, type Comparable } from '../validation/comparable-values';

/** Django lookups a permission constraint may use, as NetBox's constraints are Django filters. */
const LOOKUPS = new Set(['exact', 'iexact', 'in', 'isnull', 'contains', 'icontains', 'startswith', 'istartswith', 'endswith', 'iendswith', 'gt', 'gte', 'lt', 'lte']);

export class ConstraintError extends Error {}

let aliasCounter = 0;
const nextAlias = () => `c${(aliasCounter = (aliasCounter + 1) % 1_000_000)}`;

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

function scalar(col: string, field: ResolvedField | null, lookup: string, value: unknown): Condition {
  switch (lookup) {
    case 'exact': {
      if (value === null) return { sql: `${col} IS NULL`, bindings: [] };
      const b = bound(field, value);
      return { sql: `${col} = ?${b.cast}`, bindings: [b.value] };
    }
    case 'iexact':
      return { sql: `${col}::text ILIKE ? ESCAPE '\\'`, bindings: [likeEscape(String(value))] };
    case 'in': {
      if (!Array.isArray(value)) throw new ConstraintError('__in needs a list');
      const bs = value.map((v) => bound(field, v));
      const cast = bs[0]?.cast ?? '';
      return { sql: `${col} = ANY(?${cast ? `${cast}[]` : ''})`, bindings: [bs.map((b) => b.value)] };
    }
    case 'isnull':
      return { sql: value ? `${col} IS NULL` : `${col} IS NOT NULL`, bindings: [] };
    case 'contains':
    case 'icontains':
    case 'startswith':
    case 'istartswith':
    case 'endswith':
    case 'iendswith': {
      const v = likeEscape(String(value));
      const pattern = lookup.endsWith('contains') ? `%${v}%` : lookup.endsWith('startswith') ? `${v}%` : `%${v}`;
      const op = lookup.startsWith('i') ? 'ILIKE' : 'LIKE';
      return { sql: `${col}::text ${op} ? ESCAPE '\\'`, bindings: [pattern] };
    }
    default: {
      const op = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[lookup]!;
      const b = bound(field, value);
      return { sql: `${col} ${op} ?${b.cast}`, bindings: [b.value] };
    }
  }
}

/** One `path__lookup: value` pair of a constraint, as SQL on the model aliased `alias`. */
function pair(model: ResolvedModel, alias: string, key: string, value: unknown): Condition {
  const parts = key.split('__');
  const last = parts[parts.length - 1]!;
  const lookup = parts.length > 1 && LOOKUPS.has(last) ? last : 'exact';
  const path = lookup === last && parts.length > 1 ? parts.slice(0, -1) : parts;
  return walk(model, alias, path, lookup, value);
}

function walk(model: ResolvedModel, alias: string, path: string[], lookup: string, value: unknown): Condition {
  const [head, ...rest] = path;
  const a = quoteIdent(alias);
  if (head === 'id' || head === 'pk') {
    if (rest.length) throw new ConstraintError(`cannot follow ${head}`);
    return scalar(`${a}."id"`, null, lookup, value);
  }
  let field = model.fields.get(head!);
  let viaId = false;
  if (!field && head!.endsWith('_id')) {
    field = model.fields.get(head!.slice(0, -3));
    viaId = true;
  }
  if (!field) throw new ConstraintError(`${model.label} has no field "${head}"`);
  if (field.kind === 'fk' && field.target) {
    const col = `${a}.${quoteIdent(field.column!)}`;
    if (!rest.length) return scalar(col, null, lookup, value);
    if (viaId) throw new ConstraintError(`cannot follow ${head}`);
    const inner = nextAlias();
    const c = walk(field.target, inner, rest, lookup, value);
    return { sql: `${col} IN (SELECT ${quoteIdent(inner)}."id" FROM ${quoteIdent(field.target.table)} AS ${quoteIdent(inner)} WHERE ${c.sql})`, bindings: c.bindings };
  }
  if ((field.kind === 'm2m' || field.kind === 'tags') && field.target && field.joinTable) {
    const j = nextAlias();
    const inner = nextAlias();
    const c = rest.length ? walk(field.target, inner, rest, lookup, value) : scalar(`${quoteIdent(inner)}."id"`, null, lookup, value);
    return {
      sql: `EXISTS (SELECT 1 FROM ${quoteIdent(field.joinTable)} AS ${quoteIdent(j)} JOIN ${quoteIdent(field.target.table)} AS ${quoteIdent(inner)} ON ${quoteIdent(inner)}."id" = ${quoteIdent(j)}."target_id" WHERE ${quoteIdent(j)}."source_id" = ${a}."id" AND ${c.sql})`,
      bindings: c.bindings,
    };
  }
  if (rest.length || !field.column) throw new ConstraintError(`cannot constrain on ${model.label}.${head}`);
  if (field.def.secret && lookup !== 'exact' && lookup !== 'in') throw new ConstraintError(`${model.label}.${head} is secret: exact match only`);
  return scalar(`${a}.${quoteIdent(field.column)}`, field, lookup, value);
}

/**
 * A permission's constraints as SQL on the table aliased "t": an object is an AND of its lookups, a
 * list of objects is an OR. An empty object or list means no restriction (null return).
 */
export function constraintCondition(model: ResolvedModel, constraints: unknown, userId: number): Condition | null {
  const sets = Array.isArray(constraints) ? constraints : [constraints];
  const ors: Condition[] = [];
  for (const set of sets) {
    if (set === null || typeof set !== 'object' || Array.isArray(set)) throw new ConstraintError('a constraint is an object of lookups');
    const entries = Object.entries(set as Record<string, unknown>);
    if (!entries.length) return null;
    const ands = entries.map(([k, v]) => pair(model, 't', k, substitute(v, userId)));
    ors.push({ sql: ands.map((c) => `(${c.sql})`).join(' AND '), bindings: ands.flatMap((c) => c.bindings) });
  }
  if (!ors.length) return null;
  return { sql: ors.map((c) => `(${c.sql})`).join(' OR '), bindings: ors.flatMap((c) => c.bindings) };
}
