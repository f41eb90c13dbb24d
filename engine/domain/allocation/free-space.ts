import { and, ident, join, or, sql, type Sql } from '../../sql/fragment';

/**
 * Free space inside a span, found by PostgreSQL set-based: the used spans (one address, one child
 * network, one number, a range marked utilized...) sorted, and the gaps between them read with a window
 * over the running maximum of their ends, so nested and overlapping used spans need no special case.
 * Nothing is enumerated: a /64 with two addresses used is three rows, and the caller walks the gaps only
 * as far as it needs. Values are `inet` (host addresses, mask dropped) or `bigint`.
 */

/** One source of used spans: rows of a table whose low and high ends (expressions over alias "c") are used. */
export interface UsedSpans {
  table: string;
  /** The first and last value the row uses (the same expression for a single value). */
  lo: Sql;
  hi: Sql;
  /** Which rows: conditions over "c" and the parent row "p" (its span is "p"."first" to "p"."last"). */
  where: Sql[];
  /** FROM items after "p" when more than the table is read (a LATERAL join may refer to "p"); default: the table as "c". */
  from?: Sql;
}

/**
 * An inet value's address without its mask, as an inet (/32 or /128): set_masklen rather than host()::inet,
 * which would print every address as text and parse it again (most of the time of a scan over a large prefix).
 * The same expression as the occupancy word's host-order index (engine/domain/allocation/occupancy.ts hostExpr), so
 * reads of a block's addresses use that index.
 */
export function hostOf(value: Sql): Sql {
  return sql`set_masklen((${value})::inet, CASE WHEN family(${value}) = 4 THEN 32 ELSE 128 END)`;
}

export interface Gap {
  start: string;
  end: string;
  /** The parent's mask length, when the statement was asked to carry it (addresses are given with it). */
  mask?: number;
}

/**
 * The gaps, in order, at most `limit` of them (null: all): `parent` selects one row whose "first" and
 * "last" columns bound the span (and whatever the `used` conditions read of it as "p"); `extra` are used
 * values computed from the parent alone (an IPv4 network's network and broadcast addresses). `withMask`:
 * each gap also carries the parent's "mask" column.
 */
export function gapsStatement(parent: Sql, used: UsedSpans[], extra: Sql[], type: 'inet' | 'bigint', limit: number | null, withMask = false): Sql {
  const spans: Sql[] = used.map(
    (u) => sql`SELECT greatest(${u.lo}, "p"."first") AS "lo", least(${u.hi}, "p"."last") AS "hi" FROM "p", ${u.from ?? sql`${ident(u.table)} AS "c"`} WHERE ${and([...u.where, sql`${u.lo} <= "p"."last"`, sql`${u.hi} >= "p"."first"`])}`,
  );
  for (const e of extra) spans.push(sql`SELECT ${e} AS "lo", ${e} AS "hi" FROM "p" WHERE ${e} IS NOT NULL`);
  const t = type === 'inet' ? sql`inet` : sql`bigint`;
  const one = type === 'inet' ? sql`1` : sql`1::bigint`;
  return sql`WITH "p" AS (${parent}),
    "u" AS (${join(spans, ' UNION ALL ')}),
    "w" AS (SELECT "lo", "hi", max("hi") OVER (ORDER BY "lo", "hi" ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS "prev" FROM "u")
    SELECT "g"."start"::text AS "start", "g"."end"::text AS "end"${withMask ? sql`, "p"."mask"` : sql``} FROM "p", (
      SELECT CASE WHEN "w"."prev" IS NULL THEN "p"."first" ELSE "w"."prev" + ${one} END AS "start", "w"."lo" - ${one} AS "end"
        FROM "w", "p" WHERE "w"."lo" > "p"."first" AND ("w"."prev" IS NULL OR "w"."prev" < "w"."lo" - ${one})
      UNION ALL
      SELECT CASE WHEN "m"."hi" IS NULL THEN "p"."first" ELSE "m"."hi" + ${one} END, "p"."last"
        FROM (SELECT max("hi") AS "hi" FROM "u") AS "m", "p" WHERE "m"."hi" IS NULL OR "m"."hi" < "p"."last"
    ) AS "g" ORDER BY "g"."start"::${t}${limit === null ? sql`` : sql` LIMIT ${limit}`}`;
}

/** The scope conditions, dropped when the parent's own scope is unset and it holds one of the `unscoped` values (a global container sees every VRF). */
export function scopeOrAll(scope: Sql[], parentScopeUnset: Sql[], unscoped: Sql | null): Sql[] {
  if (!scope.length) return [];
  if (!unscoped) return scope;
  return [or([and(scope), and([...parentScopeUnset, unscoped])])];
}
