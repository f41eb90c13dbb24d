import type { DbHandle } from './db';
import { Standby, type StandbyState } from './standby';
import { ident, sql } from '../sql/fragment';
import { HEARTBEAT_TABLE } from '../migrations/replica-tables';
import { runRows } from './run';
import { unavailableReason } from './db-unavailable';
import type { StandbyRead } from './request-scope';

/** How often each instance writes the heartbeat and probes its standbys. */
export const HEARTBEAT_INTERVAL_MS = 1000;

/** Why a read a standby could have answered went to the primary. */
export type PrimaryReason = 'no_standby' | 'write_lease' | 'not_fresh' | 'standby_error';

/** What /api/status/ shows of the standbys (engine/http/api-root.ts). */
export interface ReplicaStatus {
  'standbys': Array<{ name: string; state: StandbyState; lag_seconds: number | null; reads_served: number; reads_sent_to_primary: number }>;
  /** Reads that could have gone to a standby and were answered on the primary, by why. */
  'reads_on_primary_instead': Record<PrimaryReason, number>;
  'max_lag_seconds': number;
  'write_lease_seconds': number;
}

/**
 * The primary and its standbys, as one instance sees them. Every HEARTBEAT_INTERVAL_MS it writes the
 * heartbeat row on the primary and reads each standby's replayed copy of it: a standby that answers within
 * REPLICA_MAX_LAG is up, one further behind is lagging, one that fails is down. Only up standbys are chosen
 * (round robin); a state change is logged once, not per request.
 */
export class ReplicaSet {
  private next = 0;
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;
  private readonly primaryInstead: Record<PrimaryReason, number> = { no_standby: 0, write_lease: 0, not_fresh: 0, standby_error: 0 };

  constructor(
    readonly primary: DbHandle,
    readonly standbys: readonly Standby[],
    readonly maxLagMs: number,
    readonly writeLeaseMs: number,
    private readonly log: (line: string) => void = (line) => console.error(line),
  ) {}

  /** Starts the heartbeat and the probes; the first round runs at once. */
  start(): void {
    const tick = () => {
      // A round still under way (a standby that takes its connect timeout to fail) is not doubled.
      this.beating ??= this.beat().finally(() => (this.beating = undefined));
    };
    tick();
    this.timer = setInterval(tick, HEARTBEAT_INTERVAL_MS);
    this.timer.unref();
  }

  /** Waits for one full round of probes: after it, the standbys' states are known. */
  async settled(): Promise<void> {
    await (this.beating ?? this.beat());
  }

  /** The standby the next read goes to, round robin over those up; none when none is. */
  pick(): Standby | undefined {
    const up = this.standbys.filter((s) => s.state === 'up');
    if (!up.length) {
      this.primaryInstead.no_standby++;
      return undefined;
    }
    return up[this.next++ % up.length];
  }

  /** A read chosen for `standby` was answered on the primary, for `reason`. */
  sentToPrimary(read: StandbyRead, reason: PrimaryReason, error?: unknown): void {
    const standby = this.standbys.find((s) => s === read);
    if (!standby) return;
    standby.readsSentToPrimary++;
    this.primaryInstead[reason]++;
    if (reason === 'standby_error' && unavailableReason(error)) this.markDown(standby, (error as Error).message);
  }

  served(read: StandbyRead): void {
    const standby = this.standbys.find((s) => s === read);
    if (standby) standby.readsServed++;
  }

  status(): ReplicaStatus {
    return {
      'standbys': this.standbys.map((s) => ({ name: s.name, state: s.state, lag_seconds: s.lagSeconds, reads_served: s.readsServed, reads_sent_to_primary: s.readsSentToPrimary })),
      'reads_on_primary_instead': { ...this.primaryInstead },
      'max_lag_seconds': this.maxLagMs / 1000,
      'write_lease_seconds': this.writeLeaseMs / 1000,
    };
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.beating?.catch(() => undefined);
    await Promise.all(this.standbys.map((s) => s.db.destroy().catch(() => undefined)));
  }

  private async beat(): Promise<void> {
    await runRows(this.primary, sql`UPDATE ${ident(HEARTBEAT_TABLE)} SET "at" = now() WHERE "id" = 1`).catch(() => undefined);
    await Promise.all(this.standbys.map((s) => this.probe(s)));
  }

  private async probe(standby: Standby): Promise<void> {
    try {
      const [row] = await runRows<{ lag: number | null }>(standby.db, sql`SELECT extract(epoch FROM now() - "at")::float8 AS "lag" FROM ${ident(HEARTBEAT_TABLE)} WHERE "id" = 1`);
      const lag = row?.lag ?? null;
      standby.lagSeconds = lag;
      if (lag === null) this.setState(standby, 'down', 'no heartbeat row (not migrated yet?)');
      else if (lag * 1000 > this.maxLagMs) this.setState(standby, 'lagging', `${lag.toFixed(1)} s behind, more than REPLICA_MAX_LAG`);
      else if (standby.state === 'down' || standby.state === 'rejoining') this.rejoin(standby, lag);
      else this.setState(standby, 'up', `${lag.toFixed(1)} s behind`);
    } catch (e) {
      standby.lagSeconds = null;
      this.setState(standby, 'down', (e as Error).message);
    }
  }

  /**
   * A standby back from down: writes made meanwhile did not wait for it to show their leases, so it answers
   * reads only once it has been fresh for REPLICA_MAX_LAG, by when it has replayed them.
   */
  private rejoin(standby: Standby, lag: number): void {
    if (standby.state === 'down') {
      standby.rejoinedAt = Date.now();
      this.setState(standby, 'rejoining', `${lag.toFixed(1)} s behind; reads again after REPLICA_MAX_LAG`);
    } else if (Date.now() - standby.rejoinedAt >= this.maxLagMs) this.setState(standby, 'up', `${lag.toFixed(1)} s behind`);
  }

  /** A standby that failed to answer outside a probe (a lease poll): down until probes find it back. */
  markDown(read: StandbyRead, why: string): void {
    const standby = this.standbys.find((s) => s === read);
    if (standby) this.setState(standby, 'down', why);
  }

  private setState(standby: Standby, state: StandbyState, why: string): void {
    if (standby.state === state) return;
    this.log(`standby ${standby.name}: ${standby.state} -> ${state} (${why})${state === 'up' ? '' : '; its reads go to the primary'}`);
    standby.state = state;
  }
}
