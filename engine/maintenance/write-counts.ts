import { needsAnalyze, needsVacuum, type AutovacuumRule } from './autovacuum-rule';

/**
 * Rows a process changed in a table since Patchbay last analyzed (changed) or vacuumed (dead, inserted) it,
 * and rows it updated or deleted since Patchbay last rebuilt its indexes (replaced).
 */
export interface TableCounts {
  changed: number;
  dead: number;
  inserted: number;
  replaced: number;
}

/** What a write did to its rows: an update or delete leaves a dead row version behind, an insert does not. */
export type WriteKind = 'insert' | 'update' | 'delete';

/**
 * The in-process side of the maintenance decision: a count per table, bumped by each write (a map lookup
 * and an addition), compared with autovacuum's rule on the row estimate last read from the catalog. Only
 * when a count passes it is the catalog asked, so small writes cost nothing extra.
 */
export class WriteCounts {
  private readonly counts = new Map<string, TableCounts>();
  private readonly estimates = new Map<string, number>();

  constructor(private readonly rule: AutovacuumRule, private readonly vacuums: boolean) {}

  /** Records a write; true when the table has passed a threshold and the catalog should be checked. */
  note(table: string, kind: WriteKind, rows: number): boolean {
    let c = this.counts.get(table);
    if (!c) this.counts.set(table, (c = { changed: 0, dead: 0, inserted: 0, replaced: 0 }));
    c.changed += rows;
    if (kind === 'insert') c.inserted += rows;
    else {
      c.dead += rows;
      c.replaced += rows;
    }
    const estimate = this.estimates.get(table) ?? 0;
    return needsAnalyze(this.rule, c.changed, estimate) || (this.vacuums && needsVacuum(this.rule, c.dead, c.inserted, estimate));
  }

  of(table: string): TableCounts {
    return this.counts.get(table) ?? { changed: 0, dead: 0, inserted: 0, replaced: 0 };
  }

  estimate(table: string, reltuples: number): void {
    this.estimates.set(table, reltuples);
  }

  analyzed(table: string): void {
    const c = this.counts.get(table);
    if (c) c.changed = 0;
  }

  vacuumed(table: string): void {
    const c = this.counts.get(table);
    if (c) c.dead = c.inserted = 0;
  }

  rebuilt(table: string): void {
    const c = this.counts.get(table);
    if (c) c.replaced = 0;
  }
}
