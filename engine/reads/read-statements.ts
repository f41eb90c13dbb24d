import type { OrderTerm, Registry, ResolvedModel } from '../definitions/registry-types';
import { and, column, ident, join, sql, Sql } from '../sql/fragment';
import type { Form, JsonOptions } from './object-json';
import { listRepresentationOf, representationOf } from './compiled-representations';
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
 * The LIMIT a list statement's text carries as a literal: the smallest class holding the page size, or null
 * (the size bound as a value). Only for a page whose WHERE binds no value (a plain page, or one scoped by
 * value-free conditions): there a prepared statement's generic plan is the custom plan, and with the LIMIT
 * in the text PostgreSQL sees that and keeps it, instead of planning the whole representation anew on
 * every execution (a 50-device page: 47 -> 138 requests/s). A filtered page keeps its bound LIMIT: a class
 * there changed which plan PostgreSQL chose by the statistics, not the cost of planning (tried and reverted,
 * docs/performance-profile.md); its generic plan comes from reading its ids first (filteredPage). Large
 * pages keep the bound LIMIT too: their custom plan is worth its planning. The text stays a function of the
 * request's shape: a handful of classes, never the value.
 */
const PAGE_SIZE_CLASSES = [1, 10, 50, 100, 250];

function pageSizeClass(limit: number): number | null {
  return PAGE_SIZE_CLASSES.find((c) => c >= limit) ?? null;
}

/**
 * A plain page's rows, numbered in their order. Numbered after the LIMIT, in the order the page comes: a
 * window over the whole ordering would sit between the LIMIT and the sort and make PostgreSQL sort every
 * matching row (64,000 prefixes ordered through their VRF: 63 ms) where a top-N sort of the page's rows is
 * enough. A page size between classes stays a bound value, cutting the class's page after it.
 */
function plainPage(matching: Sql, size: number | null, limit: number | null): Sql {
  const numbered = sql`SELECT "p".*, row_number() OVER () AS "__n" FROM (SELECT "t".* ${matching}) AS "p"`;
  return size === null || size === limit ? numbered : sql`SELECT * FROM (${numbered}) AS "n" WHERE "n"."__n" <= ${limit}::bigint`;
}

/**
 * A filtered page: its ids in order, then its rows by id. PostgreSQL estimates the rows of an unnest of a
 * computed array the same whatever the parameters, so the representation built over them costs the same in
 * a generic plan as in a custom one, and the generic plan is kept rather than the whole representation
 * planned again at every request when the statistics tip the filter's estimate (docs/performance-profile.md:
 * interfaces?device_id= 16 -> 2 ms per execution).
 */
function filteredPage(table: Sql, matching: Sql): Sql {
  return sql`SELECT "t".*, "i"."__n" FROM unnest(ARRAY(SELECT "t"."id" ${matching})) WITH ORDINALITY AS "i"("id", "__n") JOIN ${table} AS "t" ON "t"."id" = "i"."id"`;
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
  // A filter binds values into the WHERE; a plain page's WHERE (permission scope included) binds none.
  const filtered = where.values.length > 0;
  const size = q.limit === null || filtered ? null : pageSizeClass(q.limit);
  const limit = q.limit === null ? sql`` : size === null ? sql` LIMIT ${q.limit}` : sql` LIMIT ${Sql.keyword(String(size))}`;
  const offset = q.offset ? sql` OFFSET ${q.offset}` : sql``;
  const table = ident(model.table);
  const matching = sql`FROM ${table} AS "t" ${join(order.joins, ' ')} WHERE ${where} ORDER BY ${orderBy}${limit}${offset}`;
  const page = filtered ? filteredPage(table, matching) : plainPage(matching, size, q.limit);
  const all = sql`(SELECT count(*)::int FROM ${table} AS "t" WHERE ${where})`;
  const pageSize = sql`(SELECT count(*)::int FROM "page")`;
  const count = q.limit === null ? pageSize : sql`CASE WHEN ${q.offset}::bigint = 0 AND ${pageSize} < ${q.limit}::bigint THEN ${pageSize} ELSE ${all} END`;
  // Nested foreign-key objects built once per distinct row the page names, in CTEs joined to the page; rows
  // pointing at each page row (its cable termination) read by LATERAL joins of their own, without a CTE.
  const { object, relations } = listRepresentationOf(registry, model, q.form, q.omit, q.json, 'page');
  const hoisted = [...relations].flatMap(([name, r]) => (r.rows ? [sql`, ${ident(name)} AS MATERIALIZED (${r.rows})`] : []));
  const joins = [...relations.values()].map((r) => r.join);
  return sql`WITH "page" AS (${page})${join(hoisted, ' ')}
    SELECT ${q.current} AS "current", ${count} AS "count", coalesce((SELECT array_to_json(array_agg(${object} ORDER BY ${column('t', '__n')})) FROM "page" AS "t" ${join(joins, ' ')}), '[]'::json)::text AS "results"${checkColumns(q.checks)}`.bindParams({ origin: q.json.origin });
}

function checkColumns(checks: readonly Sql[]): Sql {
  return join(checks.map((c, i) => sql`, ${c} AS ${ident(`check_${i}`)}`), '');
}

export interface WrittenRead {
  model: ResolvedModel;
  /** The objects a write touched, in request order. */
  ids: readonly number[];
  /** One object (its representation) rather than a list (an array of them). */
  single: boolean;
  json: JsonOptions;
  /** A condition the answer depends on (cached credentials still current), read before the write commits. */
  current: Sql;
}

/**
 * The answer to a write, built by PostgreSQL inside the write's transaction: "body" is the object's
 * representation (single) or the array of them in request order, as text ready to send; "current" the
 * `current` condition. A single object is picked by `id = $1`, not `= ANY($1)`: with a scalar the
 * planner keeps the statement's generic plan, where an array parameter has it plan the large
 * representation again on every execution (measured: 1.3 ms of 1.6 ms per create).
 */
export function writtenStatement(registry: Registry, q: WrittenRead): Sql {
  if (q.single) {
    const conditions = [sql`"t"."id" = ${q.ids[0] ?? null}::bigint`];
    return detailStatement(registry, { model: q.model, conditions, form: 'full', omit: new Set(), json: q.json, current: q.current });
  }
  const object = representationOf(registry, q.model, 'full', new Set(), q.json);
  const table = ident(q.model.table);
  return sql`SELECT ${q.current} AS "current", coalesce((SELECT array_to_json(array_agg((${object}) ORDER BY "i"."n")) FROM unnest(${[...q.ids]}::bigint[]) WITH ORDINALITY AS "i"("id", "n") JOIN ${table} AS "t" ON "t"."id" = "i"."id"), '[]'::json)::text AS "body"`.bindParams({ origin: q.json.origin });
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
  const object = representationOf(registry, q.model, q.form, q.omit, q.json);
  return sql`SELECT ${q.current} AS "current", (SELECT (${object})::text FROM ${ident(q.model.table)} AS "t" WHERE ${and(q.conditions)}) AS "body"`.bindParams({ origin: q.json.origin });
}
