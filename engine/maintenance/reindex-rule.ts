import { rowsOf, type AutovacuumRule } from './autovacuum-rule';

/**
 * The share of a table's rows whose index entries may be replaced (non-HOT updates and deletes) before
 * Patchbay rebuilds its indexes. VACUUM frees dead index entries for reuse but never gives a GIN index's
 * entry tree back: a trigram index keeps every key ever inserted, so it grows with churn whatever VACUUM
 * does, and a rebuild is the only way back. Picked by tests/maintenance/dead-rows-reclaimed.test.ts (1,000
 * rows, 10,000 updates of indexed columns; total size over the size after VACUUM FULL, at its largest
 * between requests): 1.0 peaked at 1.90-1.97x, 0.5 at 1.76-1.88x, 0.3 at 1.6x, 0.2 at 1.55x. 0.5 keeps
 * the 2x with a margin at 40 % of the rebuilds of 0.2 (a rebuild costs more than a VACUUM's index pass).
 */
export const REINDEX_SCALE = 0.5;

/**
 * Whether a table's indexes are due a rebuild: once the index churn since the last one (or since Patchbay
 * first saw the table) exceeds autovacuum's vacuum base + REINDEX_SCALE x rows. The base keeps small tables,
 * whose indexes are a page or two anyway, from being rebuilt after every few writes.
 */
export function needsReindex(rule: AutovacuumRule, churn: number, reltuples: number, scale = REINDEX_SCALE): boolean {
  return churn > rule.vacuumBase + scale * rowsOf(reltuples);
}

/**
 * The index churn to judge: the catalog's, or this process's own updates and deletes since the rebuild
 * (as many of its updates as the catalog says are not HOT), whichever is larger. The catalog's counts lag
 * a busy writer by a second or so (measured: a thousand updates), which alone would rebuild a table only
 * every second of writes whatever the scale; the process's own count covers that gap, as WriteCounts
 * does for VACUUM and ANALYZE.
 */
export function indexChurnOf(catalogSinceRebuild: number, ownSinceRebuild: number, nonHotShare: number): number {
  return Math.max(catalogSinceRebuild, ownSinceRebuild * Math.min(1, Math.max(0, nonHotShare)));
}
