import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { sleep } from '../stats';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const SCRIPT = path.join(ROOT, 'tools', 'replication', 'cluster.sh');

/** The primary, standby and PgBouncer of tools/replication/cluster.sh, in its own PATCHBAY_REPL_DIR. */
export interface Cluster {
  dir: string;
  primaryUrl: string;
  standbyUrl: string;
  bouncerUrl: string;
  /** The postmaster pids, for CPU accounting. */
  primaryPid(): number;
  standbyPid(): number;
}

function run(args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile('bash', [SCRIPT, ...args], { env: process.env, timeout: 300_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`cluster.sh ${args.join(' ')}: ${err.message}\n${stdout}${stderr}`)) : resolve(stdout)),
  );
}

function postmasterPid(dataDir: string): number {
  return Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
}

/** `cluster.sh up` (idempotent), and the URLs from `cluster.sh env`. */
export async function clusterUp(): Promise<Cluster> {
  await run(['up']);
  const env = Object.fromEntries((await run(['env'])).trim().split('\n').map((l) => l.split('=', 2) as [string, string]));
  const dir = process.env.PATCHBAY_REPL_DIR ?? '/tmp/patchbay-repl';
  return {
    dir,
    primaryUrl: env.PRIMARY_URL!,
    standbyUrl: env.STANDBY_URL!,
    bouncerUrl: env.BOUNCER_URL!,
    primaryPid: () => postmasterPid(path.join(dir, 'primary')),
    standbyPid: () => postmasterPid(path.join(dir, 'standby')),
  };
}

export function clusterDown(): Promise<string> {
  return run(['down']);
}

/** url with another database name. */
export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function query<T>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql, params)).rows as T[];
  } finally {
    await c.end();
  }
}

/** Waits until the standby has replayed everything the primary had written when called; returns the wait in ms. */
export async function waitForStandby(c: Cluster, timeoutMs = 300_000): Promise<number> {
  const started = Date.now();
  const [{ lsn }] = await query<{ lsn: string }>(c.primaryUrl, 'SELECT pg_current_wal_lsn()::text AS lsn');
  for (;;) {
    const [{ behind }] = await query<{ behind: boolean }>(c.standbyUrl, 'SELECT pg_last_wal_replay_lsn() < $1::pg_lsn AS behind', [lsn]);
    if (!behind) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`the standby did not replay up to ${lsn} within ${timeoutMs / 1000} s`);
    await sleep(200);
  }
}
