/**
 * `npm run bench -- --topology`: read throughput of (a) one Patchbay instance on the primary against (b) two
 * instances with one streaming standby (DATABASE_REPLICA_URLS), on the cluster of tools/replication/cluster.sh
 * (its own PATCHBAY_REPL_DIR and ports), with the share of reads each database server answered and the CPU
 * each tier spent per request. Writes test-output/topology-<date>.md (docs/scaling-out/topology.md).
 */
import os from 'node:os';
import path from 'node:path';
import { ApiClient } from '../http-client';
import { discoverEndpoints } from '../discover';
import { shapeFor } from '../data-shape';
import { seed } from '../seed';
import { SCENARIOS, type ScenarioContext } from '../scenarios';
import { runLoad } from '../load';
import { createSuperuser, startServer, type ServerProcess } from '../server-process';
import { clusterDown, clusterUp, query, waitForStandby, withDatabase, type Cluster } from './cluster';
import { measurePoint, type TopologyPoint } from './measure';
import { renderTopologyReport, writeTopologyReport, type TopologyRun } from './report';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const DB = 'patchbay_topology';
const log = (line: string) => console.error(line);

export const TOPOLOGY_USAGE = `usage: npm run bench -- --topology [options]
  --duration <s>   seconds per measured point (default 5)
  --scale <x>      multiply the baseline data set (default 0.1)
  --connections <a,b>  connection counts (default 1,8)
  --workers <n>    PATCHBAY_WORKERS of each instance (default 1)
  --only <a,b>     only these read scenarios
  --keep-cluster   leave the cluster running afterwards (default: cluster.sh down)
The cluster comes from tools/replication/cluster.sh: set PATCHBAY_REPL_DIR, PRIMARY_PORT, STANDBY_PORT and
BOUNCER_PORT to keep it apart from other runs on the machine.`;

interface TopologyOptions {
  duration: number;
  scale: number;
  connections: number[];
  workers: number;
  only: Set<string> | null;
  keepCluster: boolean;
}

function parse(args: string[]): TopologyOptions {
  const o: TopologyOptions = { duration: 5, scale: 0.1, connections: [1, 8], workers: 1, only: null, keepCluster: false };
  const num = (name: string, raw: string | undefined) => {
    const n = Number(raw);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} needs a positive number`);
    return n;
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--topology') continue;
    else if (a === '--duration') o.duration = num(a, args[++i]);
    else if (a === '--scale') o.scale = num(a, args[++i]);
    else if (a === '--workers') o.workers = Math.round(num(a, args[++i]));
    else if (a === '--connections') o.connections = (args[++i] ?? '').split(',').map((s) => Math.round(num(a, s)));
    else if (a === '--only') o.only = new Set((args[++i] ?? '').split(',').filter(Boolean));
    else if (a === '--keep-cluster') o.keepCluster = true;
    else throw new Error(`unknown option ${a}`);
  }
  return o;
}

/** Topology (b) is what DATABASE_REPLICA_URLS makes of it: a build without replica routing ignores the variable. */
const TOPOLOGIES = [
  { name: '(a) 1 instance, primary', instances: 1, standby: false },
  { name: '(b) 2 instances, primary + 1 standby', instances: 2, standby: true },
] as const;

async function startInstances(count: number, env: Record<string, string | undefined>, token: string, stamp: string, label: string): Promise<ServerProcess[]> {
  const started: ServerProcess[] = [];
  for (let i = 0; i < count; i++) {
    started.push(await startServer(env, token, path.join(ROOT, 'test-output', `topology-${stamp}-${label}-${i}.log`)));
  }
  return started;
}

export async function runTopology(args: string[]): Promise<number> {
  let opts: TopologyOptions;
  try {
    opts = parse(args);
  } catch (e) {
    console.error(`${(e as Error).message}\n\n${TOPOLOGY_USAGE}`);
    return 2;
  }
  const startedAt = new Date();
  const stamp = startedAt.toISOString().replace(/:/g, '-').replace(/\.\d+Z$/, 'Z');
  const run: TopologyRun = {
    startedAt, args, machine: `nproc=${os.availableParallelism()} (${os.cpus()[0]?.model ?? '?'}), load average ${os.loadavg()[0]!.toFixed(1)} at start`,
    settings: `${opts.duration} s per point, scale ${opts.scale}, PATCHBAY_WORKERS=${opts.workers} per instance, connections ${opts.connections.join(',')}`,
    topologies: TOPOLOGIES.map((t) => t.name), points: new Map(), failures: [], notMeasured: [], replicaRouting: 'unknown',
  };
  let cluster: Cluster | null = null;
  const running: ServerProcess[] = [];
  try {
    log(`topology: cluster.sh up in ${process.env.PATCHBAY_REPL_DIR ?? '/tmp/patchbay-repl'}`);
    cluster = await clusterUp();
    await query(cluster.primaryUrl, `DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
    await query(cluster.primaryUrl, `CREATE DATABASE ${DB}`);
    const primaryDb = withDatabase(cluster.primaryUrl, DB);
    const standbyDb = withDatabase(cluster.standbyUrl, DB);
    const base: Record<string, string | undefined> = { DATABASE_URL: primaryDb, PATCHBAY_WORKERS: String(opts.workers), DATABASE_REPLICA_URLS: undefined };
    const token = await createSuperuser({ DATABASE_URL: primaryDb });
    // The points read as a user who never wrote: the seeding user's write lease would send its reads to the
    // primary for REPLICA_WRITE_LEASE, as read-your-writes requires, and that is not what is measured here.
    const reader = await createSuperuser({ DATABASE_URL: primaryDb });

    // Seeding, and the scenarios' own setup (it writes), through one instance on the primary.
    const seeder = (await startInstances(1, base, token, stamp, 'seed'))[0]!;
    running.push(seeder);
    const api = new ApiClient(seeder.baseUrl, token);
    const endpoints = await discoverEndpoints(api);
    const shape = shapeFor(opts.scale);
    log('topology: seeding through the API');
    const seeded = await seed(api, endpoints, shape, log);
    if (seeded.failed) run.failures.push('seeding failed (see above)');
    let ctx: ScenarioContext = { shape, ids: (ep) => seeded.ids.get(ep) ?? [] };
    const scenarios: Array<{ name: string; path: string }> = [];
    for (const sc of SCENARIOS) {
      if (opts.only && !opts.only.has(sc.name)) continue;
      if (sc.needs.some((ep) => !ctx.ids(ep).length)) continue;
      if (sc.setup) ctx = await sc.setup(api, ctx);
      // As the main bench does: a scenario whose answer is wrong is reported, not measured.
      const first = await api.get(sc.path(ctx));
      const verdict = sc.verify(ctx)(first.status, first.json);
      if (!verdict.ok) {
        run.notMeasured.push(`${sc.name}: verify failed (${verdict.note}) for GET ${sc.path(ctx)}: HTTP ${first.status} ${first.text.slice(0, 200)}`);
        continue;
      }
      scenarios.push({ name: sc.name, path: sc.path(ctx) });
    }
    await seeder.stop();
    running.splice(0);
    // Else autovacuum, woken by the seed, would run during the points and count as the reads' CPU.
    await query(primaryDb, 'VACUUM (ANALYZE)');
    const waited = await waitForStandby(cluster);
    log(`topology: the standby caught up in ${(waited / 1000).toFixed(1)} s`);

    const headers = { Authorization: `Token ${reader}`, Accept: 'application/json' };
    for (const t of TOPOLOGIES) {
      const env = { ...base, DATABASE_REPLICA_URLS: t.standby ? standbyDb : undefined };
      const instances = await startInstances(t.instances, env, reader, stamp, t.instances === 1 ? 'a' : 'b');
      running.push(...instances);
      const points: TopologyPoint[] = [];
      run.points.set(t.name, points);
      for (const sc of scenarios) {
        // Warm-up on every instance: plan caches, pools, the standby's buffers.
        await Promise.all(instances.map((s) => runLoad({ url: s.baseUrl + sc.path, headers, connections: 1, seconds: 1 })));
        for (const connections of opts.connections) {
          const p = await measurePoint({
            cluster, db: DB, scenario: sc.name, path: sc.path, headers, connections, seconds: opts.duration,
            baseUrls: instances.map((s) => s.baseUrl), appPids: instances.map((s) => s.pid),
          });
          points.push(p);
          log(`  ${t.name} ${sc.name} @${connections}: ${p.reqPerSec.toFixed(1)} req/s, standby share ${share(p)}, ${p.errors} errors`);
          if (p.errors) run.failures.push(`${t.name} ${sc.name} @${connections}: ${p.errors} errors`);
        }
      }
      if (t.standby) {
        const total = points.reduce((s, p) => s + p.standbyXacts, 0);
        run.replicaRouting = total > 0 ? 'yes' : 'no';
      }
      for (const s of instances) await s.stop();
      running.splice(0);
    }
  } catch (e) {
    run.failures.push(`topology bench aborted: ${(e as Error).stack ?? String(e)}`);
  } finally {
    for (const s of running) await s.stop();
    if (cluster && !opts.keepCluster) await clusterDown().catch((e: unknown) => run.failures.push(`cluster.sh down: ${String(e)}`));
  }
  run.machine += `, ${os.loadavg()[0]!.toFixed(1)} at end`;
  const text = renderTopologyReport(run);
  console.log(text);
  const file = writeTopologyReport(ROOT, run, text);
  log(`topology: report written to ${path.relative(ROOT, file)}`);
  return run.failures.length ? 1 : 0;
}

export function share(p: TopologyPoint): string {
  const all = p.primaryXacts + p.standbyXacts;
  return all ? `${Math.round((100 * p.standbyXacts) / all)}%` : '-';
}
