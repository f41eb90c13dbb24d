import type { Config } from '../config';
import type { DbHandle } from './db';
import { openPgDatabase } from './pg-database';
import { ReplicaSet } from './replica-set';
import { Standby } from './standby';
import { routedDb } from './routed-db';
import { WriteLeases } from './write-leases';

/** The standbys of an instance and the write leases it took (engine/app.ts routes reads with them). */
export interface Replicas {
  set: ReplicaSet;
  leases: WriteLeases;
}

/**
 * With DATABASE_REPLICA_URLS: a handle that sends requests' safe reads to the standbys, and the standbys
 * themselves, their heartbeat started. Without, the primary's handle as it is and no replicas: nothing
 * changes and nothing extra runs.
 */
export function openReplicas(primary: DbHandle, config: Config, embedded: boolean): { knex: DbHandle; replicas: Replicas | undefined } {
  if (embedded || !config.databaseReplicaUrls.length) return { knex: primary, replicas: undefined };
  const standbys = config.databaseReplicaUrls.map((url) => new Standby(url, openPgDatabase({
    url,
    poolMax: config.dbPoolSize,
    statementTimeoutMs: config.dbStatementTimeoutMs,
    queryTimeoutMs: config.dbQueryTimeoutMs,
    connectTimeoutMs: config.dbConnectTimeoutMs,
    acquireTimeoutMs: config.dbAcquireTimeoutMs,
  }), config.replicaMaxLagMs));
  const set = new ReplicaSet(primary, standbys, config.replicaMaxLagMs, config.replicaWriteLeaseMs);
  set.start();
  return { knex: routedDb(primary, standbys.map((s) => s.db), (s, e) => set.sentToPrimary(s, 'standby_error', e)), replicas: { set, leases: new WriteLeases(set) } };
}
