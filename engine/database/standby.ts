import type { DbHandle } from './db';
import type { StandbyRead } from './request-scope';
import { ident, sql, type Sql } from '../sql/fragment';
import { HEARTBEAT_TABLE, WRITE_LEASE_TABLE } from '../migrations/replica-tables';
import { describeDatabaseUrl } from './wait-for-database';

/**
 * up: answers reads; lagging: further behind than REPLICA_MAX_LAG; down: does not answer; rejoining: back
 * from down, answers no reads until it has been fresh for REPLICA_MAX_LAG (writes made while it was down
 * did not wait for it to show their lease); unknown: not probed yet.
 */
export type StandbyState = 'unknown' | 'up' | 'lagging' | 'down' | 'rejoining';

/**
 * The condition a read on a standby adds to its `current` column, evaluated in the read's own statement
 * (no extra round trip): the standby is at most maxLag behind (its replayed heartbeat is that recent by
 * its own clock, which must agree with the primary's) and the user holds no write lease it can see.
 */
export function standbyFreshness(maxLagMs: number, userId: number | null): Sql {
  const lag = sql`COALESCE((SELECT "at" >= now() - make_interval(secs => ${maxLagMs / 1000}::float8) FROM ${ident(HEARTBEAT_TABLE)} WHERE "id" = 1), false)`;
  if (userId === null) return lag;
  return sql`(${lag} AND NOT EXISTS (SELECT 1 FROM ${ident(WRITE_LEASE_TABLE)} WHERE "user_id" = ${userId}::bigint AND "until" > now()))`;
}

/** One standby: its connections, its state as last probed, and what it served. */
export class Standby implements StandbyRead {
  /** Nothing reads from a standby never probed. */
  state: StandbyState = 'unknown';
  /** When a rejoining standby was first found fresh again (ms). */
  rejoinedAt = 0;
  /** Seconds behind at the last probe; null when it did not answer. */
  lagSeconds: number | null = null;
  readsServed = 0;
  /** Reads this standby was chosen for and the primary answered (too far behind, a lease, an error). */
  readsSentToPrimary = 0;

  constructor(readonly url: string, readonly db: DbHandle, private readonly maxLagMs: number) {}

  get name(): string {
    return describeDatabaseUrl(this.url);
  }

  freshness(userId: number | null): Sql {
    return standbyFreshness(this.maxLagMs, userId);
  }
}
