/**
 * Index churn per table since its indexes were last rebuilt. The catalog's count (non-HOT updates plus
 * deletes: the writes that put new entries in every index) is cumulative, so this keeps, per table, the
 * count at the last rebuild, or where Patchbay first saw the table: a table that was already churned when
 * the process started waits a full round rather than being rebuilt at once. Read only during a pass, from
 * the statistics the pass reads anyway: writes cost nothing here.
 */
export class IndexChurn {
  private readonly baseline = new Map<string, number>();

  /** The churn since the table's baseline, given the catalog's cumulative count; 0 at first sight. */
  since(table: string, cumulative: number): number {
    const base = this.baseline.get(table);
    // A count below the baseline means the statistics were reset (pg_stat_reset, a crash): start again.
    if (base === undefined || cumulative < base) {
      this.baseline.set(table, cumulative);
      return 0;
    }
    return cumulative - base;
  }

  /** The table's indexes were rebuilt (or the attempt failed) when the count stood at `cumulative`. */
  rebuilt(table: string, cumulative: number): void {
    this.baseline.set(table, cumulative);
  }
}
