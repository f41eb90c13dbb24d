import type { OrderTerm, Registry, ResolvedModel } from '../../definitions/registry-types';
import { and, column, ident, join, sql, type Sql } from '../../sql/fragment';
import type { Form, JsonOptions } from '../json/object-json';
import { representationOf } from '../json/compiled-representations';
import { orderPlan } from './order-by';

export interface ListRead {
  model: ResolvedModel;
  /** Conditions on the table aliased "t": permission scope, filters. */
  conditions: Sql[];
  ordering: readonly OrderTerm[];
  /** null: every matching row. */
  limit: number | null;
  offset: number;
  form: Form;
  omit: ReadonlySet<string>;
  json: JsonOptions;
  /** A condition the answer depends on, read in the same statement (cached credentials still current). */
  current: Sql;
  /** Expressions read in the same statement, as columns "check_0", "check_1"... (filter values that name nothing). */
  checks: Sql[];
}

/**
 * A list page as one statement: the page's rows, numbered in their order; the count (the page's own
 * size when it is the first page and not full, else a count of every matching row — an InitPlan, run
 * only when needed); and the page's representations as one JSON array, text ready to send.
 * Columns: "current" (the `current` condition), "count" (int), "results" (text), then the checks.
 */
export function listStatement(registry: Registry, q: ListRead): Sql {
  const model = q.model;
  const where = and(q.conditions);
  const order = orderPlan(model, q.ordering);
  const orderBy = join(order.terms);
  const limit = q.limit === null ? sql`` : sql` LIMIT ${q.limit}`;
  const offset = q.offset ? sql` OFFSET ${q.offset}` : sql``;
  const page = sql`SELECT "t".*, row_number() OVER (ORDER BY ${orderBy}) AS "__n" FROM ${ident(model.table)} AS "t" ${join(order.joins, ' ')} WHERE ${where} ORDER BY ${orderBy}${limit}${offset}`;
  const all = sql`(SELECT count(*)::int FROM ${ident(model.table)} AS "t" WHERE ${where})`;
  const pageSize = sql`(SELECT count(*)::int FROM "page")`;
  const count = q.limit === null ? pageSize : sql`CASE WHEN ${q.offset}::bigint = 0 AND ${pageSize} < ${q.limit}::bigint THEN ${pageSize} ELSE ${all} END`;
  const object = representationOf(registry, model, q.form, q.omit, q.json.revealSecrets);
  return sql`WITH "page" AS (${page})
    SELECT ${q.current} AS "current", ${count} AS "count", coalesce((SELECT array_to_json(array_agg(${object} ORDER BY ${column('t', '__n')})) FROM "page" AS "t"), '[]'::json)::text AS "results"${checkColumns(q.checks)}`.bindParams({ origin: q.json.origin });
}

function checkColumns(checks: readonly Sql[]): Sql {
  return join(checks.map((c, i) => sql`, ${c} AS ${ident(`check_${i}`)}`), '');
}

export interface ObjectsRead {
  model: ResolvedModel;
  /** Conditions on the table aliased "t" (an id, the permission scope). */
  conditions: Sql[];
  form: Form;
  omit: ReadonlySet<string>;
  json: JsonOptions;
}

/** The representation of each matching row, as JSON text, with its id. Columns: "id", "body" (text). */
export function objectsStatement(registry: Registry, q: ObjectsRead): Sql {
  const object = representationOf(registry, q.model, q.form, q.omit, q.json.revealSecrets);
  return sql`SELECT ${column('t', 'id')} AS "id", (${object})::text AS "body" FROM ${ident(q.model.table)} AS "t" WHERE ${and(q.conditions)}`.bindParams({ origin: q.json.origin });
}

export interface DetailRead {
  model: ResolvedModel;
  /** Conditions on the table aliased "t" that pick at most one row: its id, and the permission scope. */
  conditions: Sql[];
  form: Form;
  omit: ReadonlySet<string>;
  json: JsonOptions;
  current: Sql;
}

/** One object's representation as JSON text ("body", NULL when no row matches) and the `current` condition. */
export function detailStatement(registry: Registry, q: DetailRead): Sql {
  const object = representationOf(registry, q.model, q.form, q.omit, q.json.revealSecrets);
  return sql`SELECT ${q.current} AS "current", (SELECT (${object})::text FROM ${ident(q.model.table)} AS "t" WHERE ${and(q.conditions)}) AS "body"`.bindParams({ origin: q.json.origin });
}
