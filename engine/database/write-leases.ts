import { ident, sql } from '../sql/fragment';
import { runRows } from './run';
import { WRITE_LEASE_TABLE } from '../migrations/replica-tables';
import type { ReplicaSet } from './replica-set';
import type { Standby } from './standby';

/** How often a write waiting for its lease polls each standby. */
const POLL_MS = 15;
/**
 * Slack for the time between a lease's `now()` and its commit, and for clocks read on different machines:
 * a lease counts as old enough to be on every standby only this much after REPLICA_MAX_LAG.
 */
const MARGIN_MS = 1000;
const MAX_CACHED = 10_000;

interface Lease {
  sinceMs: number;
  untilMs: number;
}

/** What taking a lease cost a write: whether it sent the upsert, and how long it waited for standbys. */
export interface LeaseTaken {
  upserted: boolean;
  waitedMs: number;
}

/**
 * Read-your-writes (docs/scaling-out/replicas.md). Before a user's write, their lease on the primary is
 * taken or renewed (until = now + REPLICA_WRITE_LEASE; since kept while it is valid); while a standby shows
 * it, that user's reads there fail their freshness check and are answered on the primary. A lease new to the
 * standbys is waited for — until every standby up shows it, or REPLICA_MAX_LAG has passed (a standby not
 * showing it by then is more than REPLICA_MAX_LAG behind, so fails the lag check until it replays it).
 * Each instance remembers the leases it took, to skip the upsert (and its row lock) while the lease is long
 * valid and old enough to be on every standby, and to send a leased user's reads to the primary at once.
 */
export class WriteLeases {
  private readonly known = new Map<number, Lease>();

  constructor(private readonly replicas: ReplicaSet, private readonly now: () => number = Date.now) {}

  /** Whether this instance knows the user holds a valid lease (their reads go straight to the primary). */
  holds(userId: number): boolean {
    const lease = this.known.get(userId);
    return lease !== undefined && lease.untilMs > this.now();
  }

  /** Called before a user's write: afterwards, no standby that passes the lag check answers their reads. */
  async take(userId: number): Promise<LeaseTaken> {
    const { maxLagMs, writeLeaseMs } = this.replicas;
    const cached = this.known.get(userId);
    const start = this.now();
    if (cached && cached.untilMs - start > writeLeaseMs / 2 && cached.sinceMs <= start - maxLagMs - MARGIN_MS) return { upserted: false, waitedMs: 0 };
    const t = ident(WRITE_LEASE_TABLE);
    const ms = (column: string) => sql`(extract(epoch FROM ${ident(column)}) * 1000)::float8`;
    const [row] = await runRows<{ since_ms: number; until_ms: number; prev_since_ms: number | null; prev_until_ms: number | null; now_ms: number }>(this.replicas.primary, sql`WITH "prev" AS (SELECT "since", "until" FROM ${t} WHERE "user_id" = ${userId}::bigint),
      "taken" AS (INSERT INTO ${t} AS "l" ("user_id", "since", "until") VALUES (${userId}::bigint, now(), now() + make_interval(secs => ${writeLeaseMs / 1000}::float8))
        ON CONFLICT ("user_id") DO UPDATE SET "since" = CASE WHEN "l"."until" > now() THEN "l"."since" ELSE now() END, "until" = EXCLUDED."until"
        RETURNING "since", "until")
      SELECT ${ms('since')} AS "since_ms", ${ms('until')} AS "until_ms",
             (SELECT ${ms('since')} FROM "prev") AS "prev_since_ms", (SELECT ${ms('until')} FROM "prev") AS "prev_until_ms",
             (extract(epoch FROM now()) * 1000)::float8 AS "now_ms"
        FROM "taken"`);
    const lease = { sinceMs: row!.since_ms, untilMs: row!.until_ms };
    if (this.known.size >= MAX_CACHED) this.known.clear();
    this.known.set(userId, lease);
    const at = row!.now_ms;
    // A lease valid before, old enough to be on every standby and lasting past the lag bound: nothing new to wait for.
    const prevSince = row!.prev_since_ms;
    const prevUntil = row!.prev_until_ms;
    // What a standby must show: a lease lasting half a lease past now, as long as a cached lease is trusted.
    const needed = at + writeLeaseMs / 2;
    const settled = prevSince !== null && prevUntil !== null && prevSince <= at - maxLagMs - MARGIN_MS && prevUntil >= needed;
    if (settled) return { upserted: true, waitedMs: 0 };
    const waitStart = this.now();
    const deadline = waitStart + maxLagMs;
    await Promise.all(this.replicas.standbys.filter((s) => s.state !== 'down').map((s) => this.untilShown(s, userId, needed, deadline)));
    return { upserted: true, waitedMs: this.now() - waitStart };
  }

  /** Polls the standby until it shows a lease lasting to untilMs, the deadline passes or it fails to answer. */
  private async untilShown(standby: Standby, userId: number, untilMs: number, deadline: number): Promise<void> {
    for (;;) {
      try {
        const [row] = await runRows<{ seen: boolean }>(standby.db, sql`SELECT EXISTS (SELECT 1 FROM ${ident(WRITE_LEASE_TABLE)} WHERE "user_id" = ${userId}::bigint AND "until" >= to_timestamp(${untilMs / 1000}::float8)) AS "seen"`);
        if (row?.seen) return;
      } catch (e) {
        // Unreachable: not waited for, and so down (it rejoins only after REPLICA_MAX_LAG, see replica-set.ts).
        this.replicas.markDown(standby, (e as Error).message);
        return;
      }
      const left = deadline - this.now();
      if (left <= 0) return;
      await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, left)));
    }
  }
}
