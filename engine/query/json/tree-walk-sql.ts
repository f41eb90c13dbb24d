import { ident, sql, type Sql } from '../../sql/fragment';
import { MAX_TREE_DEPTH } from '../tree-walk';

/**
 * tree-walk.ts's walk as a fragment: an entry of a WITH RECURSIVE list named `name`, with the columns
 * ("origin", "id", "parent_id", "depth"), from the seed rows up through their ancestors or down through
 * their descendants, stopping at a cycle (CYCLE) and at MAX_TREE_DEPTH. `seed` is a condition on the
 * table's own (unaliased) columns, and may refer to an outer query's row.
 */
export function treeWalkSql(name: string, table: string, seed: Sql, direction: 'up' | 'down'): Sql {
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
