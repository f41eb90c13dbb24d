import { runLoad, type LoadPoint } from '../load';
import { treeCpuSeconds } from './cpu';
import { query, withDatabase, type Cluster } from './cluster';

/** One read scenario at one connection count on one topology. */
export interface TopologyPoint {
  scenario: string;
  connections: number;
  reqPerSec: number;
  requests: number;
  errors: number;
  p50: number;
  p99: number;
  /** Transactions each database server ran in the bench database during the point (pg_stat_database). */
  primaryXacts: number;
  standbyXacts: number;
  /** CPU milliseconds per request: the Patchbay processes, the primary's and the standby's PostgreSQL. */
  appCpuMs: number;
  primaryCpuMs: number;
  standbyCpuMs: number;
}

interface Snapshot {
  primaryXacts: number;
  standbyXacts: number;
  app: number;
  primary: number;
  standby: number;
}

async function xacts(url: string, db: string): Promise<number> {
  const [row] = await query<{ n: string }>(url, 'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = $1', [db]);
  return Number(row?.n ?? 0);
}

async function snapshot(c: Cluster, db: string, appPids: number[]): Promise<Snapshot> {
  return {
    // The statistics collector's own query (one transaction in database postgres) is not counted: other database.
    primaryXacts: await xacts(withDatabase(c.primaryUrl, 'postgres'), db),
    standbyXacts: await xacts(withDatabase(c.standbyUrl, 'postgres'), db),
    app: appPids.reduce((s, p) => s + treeCpuSeconds(p), 0),
    primary: treeCpuSeconds(c.primaryPid()),
    standby: treeCpuSeconds(c.standbyPid()),
  };
}

/** connections spread over the instances as a load balancer would: as evenly as whole connections allow. */
function spread(connections: number, instances: number): number[] {
  return Array.from({ length: instances }, (_, i) => Math.floor(connections / instances) + (i < connections % instances ? 1 : 0));
}

/** Runs one point: load on every instance at once, with database and CPU counters read before and after. */
export async function measurePoint(opts: {
  cluster: Cluster; db: string; scenario: string; path: string; headers: Record<string, string>;
  baseUrls: string[]; appPids: number[]; connections: number; seconds: number;
}): Promise<TopologyPoint> {
  const before = await snapshot(opts.cluster, opts.db, opts.appPids);
  const shares = spread(opts.connections, opts.baseUrls.length);
  const points: LoadPoint[] = await Promise.all(
    opts.baseUrls.flatMap((base, i) => (shares[i]! > 0 ? [runLoad({ url: base + opts.path, headers: opts.headers, connections: shares[i]!, seconds: opts.seconds })] : [])),
  );
  // Statistics reach pg_stat_database when a backend's transaction ends or within a second when idle.
  await new Promise((r) => setTimeout(r, 1500));
  const after = await snapshot(opts.cluster, opts.db, opts.appPids);
  const reqPerSec = points.reduce((s, p) => s + p.reqPerSec, 0);
  const requests = points.reduce((s, p) => s + p.reqPerSec * p.seconds, 0) || 1;
  const perRequest = (cpuSeconds: number) => (cpuSeconds * 1000) / requests;
  return {
    scenario: opts.scenario,
    connections: opts.connections,
    reqPerSec,
    requests: Math.round(requests),
    errors: points.reduce((s, p) => s + p.errors, 0),
    p50: Math.max(...points.map((p) => p.latency.p50)),
    p99: Math.max(...points.map((p) => p.latency.p99)),
    primaryXacts: after.primaryXacts - before.primaryXacts,
    standbyXacts: after.standbyXacts - before.standbyXacts,
    appCpuMs: perRequest(after.app - before.app),
    primaryCpuMs: perRequest(after.primary - before.primary),
    standbyCpuMs: perRequest(after.standby - before.standby),
  };
}
