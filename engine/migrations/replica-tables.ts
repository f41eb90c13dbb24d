import type { RoutineSpec } from './snapshot-types';
import { quoteIdent as q } from './identifiers';

/** One row: when an instance with standbys last wrote it; a standby's copy tells how far behind it is. */
export const HEARTBEAT_TABLE = 'patchbay_replica_heartbeat';
/** Per user, the write lease that sends their reads to the primary (docs/scaling-out/replicas.md). */
export const WRITE_LEASE_TABLE = 'patchbay_write_leases';

/**
 * The tables read replicas need, on the primary and so, through replication, on every standby. Made in
 * every database (they are empty or idle without DATABASE_REPLICA_URLS), so adding a standby needs no migration.
 * The heartbeat starts at the migration's time: until an instance beats, every standby counts as behind.
 */
export const REPLICA_TABLES: RoutineSpec = {
  create: [
    `CREATE TABLE ${q(HEARTBEAT_TABLE)} ("id" smallint PRIMARY KEY CHECK ("id" = 1), "at" timestamptz NOT NULL)`,
    `INSERT INTO ${q(HEARTBEAT_TABLE)} ("id", "at") VALUES (1, now())`,
    `CREATE TABLE ${q(WRITE_LEASE_TABLE)} ("user_id" bigint PRIMARY KEY, "since" timestamptz NOT NULL, "until" timestamptz NOT NULL)`,
  ],
  drop: [`DROP TABLE ${q(WRITE_LEASE_TABLE)}`, `DROP TABLE ${q(HEARTBEAT_TABLE)}`],
};
