/**
 * Index churn per table since its indexes were last rebuilt. The catalog's count (non-HOT updates plus
 * deletes: the writes that put new entries in every index) is cumulative, so this keeps, per table, the
 * count at the last rebuild, or where Patchbay first saw the table: a table that was already churned when
 * the process started waits a full round rather than being rebuilt at once. Read only during a pass, from
 * the statistics the pass reads anyway: writes cost nothing here.
 */
interface Baseline {
  /** The cumulative count the churn is measured from; may run ahead of the catalog (see rebuilt). */
  from: number;
  /** The largest cumulative count seen: the catalog's count only goes down when the statistics are reset. */
  seen: number;
}

export class IndexChurn {
  private readonly baselines = new Map<string, Baseline>();

  /** The churn since the table's baseline, given the catalog's cumulative count; 0 at first sight. */
  since(table: string, cumulative: number): number {
    const b = this.baselines.get(table);
    // Below a count already seen: the statistics were reset (pg_stat_reset, a crash). Start again.
    if (!b || cumulative < b.seen) {
      this.baselines.set(table, { from: cumulative, seen: cumulative });
      return 0;
    }
    b.seen = cumulative;
    return Math.max(0, cumulative - b.from);
  }

  /**
   * The table's indexes were rebuilt (or the attempt failed) after `churn` since the baseline, as judged.
   * The baseline moves by that much rather than to the catalog's count: the catalog lags a busy writer, and
   * the writes it has yet to show were covered by the rebuild, so they must not count toward the next one.
   */
  rebuilt(table: string, churn: number): void {
    const b = this.baselines.get(table);
    if (b) b.from += churn;
  }
}
