import type { Db } from '../database/db';
import { outsideRequestScope } from '../database/request-scope';
import { ident, sql } from '../sql/fragment';
import { needsAnalyze, needsVacuum, type AutovacuumRule } from './autovacuum-rule';
import { IndexChurn } from './index-churn';
import { indexChurnOf, needsReindex } from './reindex-rule';
import { readTableStats } from './table-stats';
import { WriteCounts, type WriteKind } from './write-counts';

/** What a write tells maintenance: which table, how, and how many rows. Costs a map lookup. */
export interface WriteNotes {
  noteWritten(table: string, kind: WriteKind, rows: number): void;
}

export interface MaintainerOptions {
  /** The primary: maintenance never runs on a standby. */
  db: Db;
  rule: AutovacuumRule;
  /**
   * Whether Patchbay vacuums too (the embedded database, or a server with autovacuum off), by the catalog's
   * counts and periodically; otherwise it only analyzes after this process's own large writes.
   */
  vacuums: boolean;
  /**
   * The embedded database: one session, so its indexes are rebuilt with a plain REINDEX (CONCURRENTLY
   * would take longer and block that session all the same); on PostgreSQL, REINDEX ... CONCURRENTLY.
   */
  embedded: boolean;
  intervalMs: number;
  log: (line: string) => void;
}

/** A pass starts this long after the write that asked for it: the response goes first, and a burst makes one pass. */
const AFTER_WRITE_DELAY_MS = 50;
/** A pass stops starting statements after this long; what is left waits for the next pass. */
const PASS_BUDGET_MS = 2000;

/** gin_clean_pending_list of each GIN index on the table (in the schema Patchbay works in). */
function mergeGinPendingLists(table: string) {
  return sql`SELECT gin_clean_pending_list(i.indexrelid) FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid JOIN pg_am am ON am.oid = ic.relam
    WHERE am.amname = 'gin' AND i.indrelid = (SELECT c.oid FROM pg_class c WHERE c.relname = ${table} AND c.relnamespace = (SELECT n.oid FROM pg_namespace n WHERE n.nspname = current_schema()))`;
}

interface Job {
  table: string;
  analyze: boolean;
  vacuum: boolean;
  /** Rebuild the table's indexes (after its VACUUM, if any); indexChurn is the churn since the last rebuild it was judged on. */
  reindex: boolean;
  indexChurn: number;
  weight: number;
}

/**
 * Keeps the tables' statistics and dead rows in hand where nothing else does, off the request path:
 * passes run from timers outside any request, one statement per table (each its own turn of the embedded
 * database's single session, so requests queued meanwhile go first), never in a transaction (VACUUM
 * cannot), and their failures are logged, never thrown.
 */
export class Maintainer implements WriteNotes {
  private readonly counts: WriteCounts;
  private readonly churn = new IndexChurn();
  private pending: NodeJS.Timeout | undefined;
  private periodic: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(private readonly opts: MaintainerOptions) {
    this.counts = new WriteCounts(opts.rule, opts.vacuums);
  }

  noteWritten(table: string, kind: WriteKind, rows: number): void {
    if (this.stopped || rows <= 0) return;
    if (this.counts.note(table, kind, rows)) this.soon();
  }

  /** Periodic passes, where Patchbay stands in for autovacuum. */
  start(): void {
    if (!this.opts.vacuums || this.periodic) return;
    this.periodic = outsideRequestScope(() => setInterval(() => void this.pass(), this.opts.intervalMs));
    this.periodic.unref();
  }

  /** No pass starts after this; resolves once a running one has finished its statement. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.pending);
    clearInterval(this.periodic);
    await this.running;
  }

  /** Runs a pass now (or joins the running one). */
  pass(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = outsideRequestScope(() => this.work())
      .catch((e: unknown) => this.opts.log(`maintenance: reading table statistics failed: ${(e as Error).message}`))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.soon();
        }
      });
    return this.running;
  }

  private soon(): void {
    if (this.pending || this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.pending = outsideRequestScope(() => setTimeout(() => {
      this.pending = undefined;
      void this.pass();
    }, AFTER_WRITE_DELAY_MS));
    this.pending.unref();
  }

  private async work(): Promise<void> {
    const started = Date.now();
    const jobs = this.jobs(await readTableStats(this.opts.db));
    for (const job of jobs) {
      if (this.stopped) return;
      if (Date.now() - started > PASS_BUDGET_MS) {
        this.again = true;
        return;
      }
      await this.run(job);
    }
  }

  /** The tables past autovacuum's rule, most changed first. */
  private jobs(stats: Awaited<ReturnType<typeof readTableStats>>): Job[] {
    const { rule, vacuums } = this.opts;
    const jobs: Job[] = [];
    for (const s of stats) {
      this.counts.estimate(s.table, s.reltuples);
      const local = this.counts.of(s.table);
      // Beside a running autovacuum, only this process's own large writes are analyzed here (sooner than
      // its naptime would); otherwise the catalog's counts, every process's writes, decide too.
      const changed = vacuums ? Math.max(local.changed, s.modSinceAnalyze) : local.changed;
      const dead = Math.max(local.dead, s.deadRows);
      const inserted = Math.max(local.inserted, s.insertedSinceVacuum);
      // Only where Patchbay vacuums: beside autovacuum, index upkeep stays the operator's.
      const indexChurn = vacuums ? indexChurnOf(this.churn.since(s.table, s.indexChurn), local.replaced, s.nonHotShare) : 0;
      const reindex = vacuums && needsReindex(rule, indexChurn, s.reltuples);
      const job = { table: s.table, analyze: needsAnalyze(rule, changed, s.reltuples), vacuum: vacuums && needsVacuum(rule, dead, inserted, s.reltuples), reindex, indexChurn, weight: changed + dead };
      if (job.analyze || job.vacuum || job.reindex) jobs.push(job);
    }
    return jobs.sort((a, b) => b.weight - a.weight);
  }

  private async run(job: Job): Promise<void> {
    if (job.analyze || job.vacuum) await this.analyzeOrVacuum(job);
    if (job.reindex) await this.reindex(job);
  }

  private async analyzeOrVacuum(job: Job): Promise<void> {
    const table = ident(job.table);
    const statement = job.vacuum ? (job.analyze ? sql`VACUUM (ANALYZE) ${table}` : sql`VACUUM ${table}`) : sql`ANALYZE ${table}`;
    try {
      // As autovacuum's ANALYZE does (a manual one does not): GIN indexes' pending entries merged, without
      // which the planner prices a trigram index above a sequential scan. VACUUM merges them itself.
      if (!job.vacuum) await this.opts.db.run(mergeGinPendingLists(job.table).toPositional());
      // Unprepared and without values: sent on its own, outside any transaction block.
      await this.opts.db.run(statement.toPositional());
    } catch (e) {
      this.opts.log(`maintenance: ${job.vacuum ? 'VACUUM' : 'ANALYZE'} of ${job.table} failed: ${(e as Error).message}`);
    } finally {
      // Failed or not, the counts start again: a statement that keeps failing is tried (and logged) once
      // per threshold crossed, not after every write.
      if (job.analyze) this.counts.analyzed(job.table);
      if (job.vacuum) this.counts.vacuumed(job.table);
    }
  }

  /**
   * Rebuilds the table's indexes, which VACUUM cannot shrink (a GIN entry tree keeps every key it ever
   * held). CONCURRENTLY on PostgreSQL, so writes to the table go on meanwhile; like VACUUM it runs outside
   * any transaction block and leaves no session state.
   */
  private async reindex(job: Job): Promise<void> {
    const table = ident(job.table);
    const statement = this.opts.embedded ? sql`REINDEX TABLE ${table}` : sql`REINDEX TABLE CONCURRENTLY ${table}`;
    try {
      await this.opts.db.run(statement.toPositional());
    } catch (e) {
      this.opts.log(`maintenance: REINDEX of ${job.table} failed: ${(e as Error).message}`);
    } finally {
      // As for VACUUM: a rebuild that keeps failing is tried once per round of churn, not every pass.
      this.churn.rebuilt(job.table, job.indexChurn);
      this.counts.rebuilt(job.table);
    }
  }
}
