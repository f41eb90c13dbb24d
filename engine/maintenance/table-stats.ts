import type { Db } from '../database/db';

/**
 * What the catalog says of one table: its estimated rows, the changes since it was last analyzed /
 * vacuumed, and its index churn (cumulative: see index-churn.ts).
 */
export interface TableStats {
  table: string;
  reltuples: number;
  modSinceAnalyze: number;
  deadRows: number;
  insertedSinceVacuum: number;
  /** Non-HOT updates plus deletes since the statistics were reset: each put new entries in every index. */
  indexChurn: number;
  /** The share of its updates so far that were not HOT (1 before any): how many of a process's updates touched its indexes. */
  nonHotShare: number;
}

/**
 * Every ordinary table of the schema Patchbay works in, in one statement. The cumulative statistics
 * reach the catalog up to a second or so after a transaction ends; the in-process counts cover that gap.
 */
export async function readTableStats(db: Db): Promise<TableStats[]> {
  const result = await db.raw<{ table: string; reltuples: number; mod: string | number; dead: string | number; ins: string | number; churn: string | number; nonhot: number }>(
    `SELECT c.relname AS "table", c.reltuples::float8 AS "reltuples", coalesce(s.n_mod_since_analyze, 0) AS "mod", coalesce(s.n_dead_tup, 0) AS "dead", coalesce(s.n_ins_since_vacuum, 0) AS "ins",
            coalesce(s.n_tup_upd - s.n_tup_hot_upd + s.n_tup_del, 0) AS "churn",
            CASE WHEN s.n_tup_upd > 0 THEN (s.n_tup_upd - s.n_tup_hot_upd)::float8 / s.n_tup_upd ELSE 1 END AS "nonhot"
       FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid
      WHERE c.relkind = 'r' AND c.relnamespace = (SELECT n.oid FROM pg_namespace n WHERE n.nspname = current_schema())`,
  );
  return result.rows.map((r) => ({ table: r.table, reltuples: Number(r.reltuples), modSinceAnalyze: Number(r.mod), deadRows: Number(r.dead), insertedSinceVacuum: Number(r.ins), indexChurn: Number(r.churn), nonHotShare: Number(r.nonhot) }));
}
