import { ident, sql, type Sql } from '../sql/fragment';

/** Deeper than any real hierarchy; the bound that makes a walk over a damaged tree end. */
export const MAX_TREE_DEPTH = 100;

/**
 * A recursive walk over a tree table (rows linked by "parent_id"), as an entry of a WITH RECURSIVE list
 * named `name`, with the columns ("origin", "id", "parent_id", "depth"): from each seed row (depth 0,
 * its own origin) up through its ancestors or down through its descendants.
 *
 * An API write cannot make a cycle (parent changes are serialised per tree and checked), but a table
 * edited by hand or restored from elsewhere can hold one, and a walk that never ends holds a backend and
 * its locks forever. So every walk stops where it would revisit a row of its own path (PostgreSQL's CYCLE
 * clause; the revisiting row is left out) and at MAX_TREE_DEPTH.
 *
 * `seed` is a condition on the table's own (unaliased) columns, and may refer to an outer query's row.
 */
export function treeWalk(name: string, table: string, seed: Sql, direction: 'up' | 'down'): Sql {
  const t = ident(table);
  const all = ident(`${name}_walk`);
  const link = direction === 'up' ? sql`"n"."id" = "w"."parent_id"` : sql`"n"."parent_id" = "w"."id"`;
  return sql`${all}("origin", "id", "parent_id", "depth") AS (
      SELECT "id", "id", "parent_id", 0 FROM ${t} WHERE ${seed}
      UNION ALL
      SELECT "w"."origin", "n"."id", "n"."parent_id", "w"."depth" + 1 FROM ${t} AS "n" JOIN ${all} AS "w" ON ${link} WHERE "w"."depth" < ${MAX_TREE_DEPTH}
    ) CYCLE "id" SET "revisits" USING "walk_path",
    ${ident(name)} AS (SELECT "origin", "id", "parent_id", "depth" FROM ${all} WHERE NOT "revisits")`;
}
