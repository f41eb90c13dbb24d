import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import pg from 'pg';
import { BIN, ROOT, cleanEnv, freePort } from '../cli/cli-support';
import { assertBuilt } from './compiled';

/** The fault suite needs a PostgreSQL server it can misroute and lock: TEST_DATABASE_URL. */
export const PG_URL = process.env.TEST_DATABASE_URL || undefined;

/** describe on PostgreSQL; on the embedded database, reported as skipped (never a passing no-op). */
export const describeOnPostgres = PG_URL ? describe : describe.skip;

/** The server address of TEST_DATABASE_URL. */
export function pgTarget(): { host: string; port: number } {
  const u = new URL(PG_URL!);
  return { host: u.hostname || '127.0.0.1', port: Number(u.port || 5432) };
}

/** postgres://... to a database, through another host:port (a proxy) if given. */
export function databaseUrl(name: string, via?: { host: string; port: number }): string {
  const u = new URL(PG_URL!);
  if (via) {
    u.hostname = via.host;
    u.port = String(via.port);
  }
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * DROP DATABASE waits for a checkpoint, which takes seconds to minutes while the rest of the suite writes:
 * a detached process drops the database after the file is done, without holding it up.
 */
function dropInBackground(name: string): void {
  const script = `const pg = require(${JSON.stringify(require.resolve('pg'))});
    const c = new pg.Client({ connectionString: process.env.ADMIN_URL });
    c.connect().then(() => c.query('DROP DATABASE IF EXISTS ${name} WITH (FORCE)')).finally(() => c.end());`;
  spawn(process.execPath, ['-e', script], { detached: true, stdio: 'ignore', env: { ...process.env, ADMIN_URL: databaseUrl('postgres') } }).unref();
}

/** A new, empty database for one test file (named ops_faults_*), with a client of its own to inspect and lock it. */
export async function freshDatabase(): Promise<{ name: string; sql: pg.Client; drop(): Promise<void> }> {
  const name = `ops_faults_${crypto.randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: databaseUrl('postgres') });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const sql = new pg.Client({ connectionString: databaseUrl(name), application_name: 'fault-suite' });
  await sql.connect();
  return {
    name,
    sql,
    drop: async () => {
      await sql.end().catch(() => undefined);
      await admin.end();
      dropInBackground(name);
    },
  };
}

/** A superuser's token, written straight into the migrated database. */
export async function makeToken(sql: pg.Client): Promise<string> {
  const key = crypto.randomBytes(20).toString('hex');
  const u = await sql.query(
    `INSERT INTO users_user (username, password, is_superuser, is_active, date_joined) VALUES ($1, '!', true, true, now()) RETURNING id`,
    [`faults_${crypto.randomBytes(3).toString('hex')}`],
  );
  await sql.query(`INSERT INTO users_token (user_id, key, write_enabled) VALUES ($1, $2, true)`, [(u.rows[0] as { id: number }).id, key]);
  return key;
}

/** Backends in this database waiting on a lock: the server's (the suite's own client never waits). */
export async function waitingOnLock(sql: pg.Client, database: string): Promise<number> {
  // Inside a transaction (the one holding the lock) the view would otherwise show its first snapshot forever.
  await sql.query('SELECT pg_stat_clear_snapshot()');
  const r = await sql.query(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'`,
    [database],
  );
  return (r.rows[0] as { n: number }).n;
}

/** Terminates every backend in this database but the suite's own, as a restart of PostgreSQL would; returns how many. */
export async function terminateServerBackends(sql: pg.Client, database: string): Promise<number> {
  const r = await sql.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [database]);
  return r.rowCount ?? 0;
}

export async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface ServerUnderTest {
  url: string;
  pid: number;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves when the output matches (rejects if the process exits first). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** The worker processes (children of the primary). */
  workers(): number[];
  kill(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Spawns `node engine/cli/bin.cjs serve` (the compiled server) on a free port of 127.0.0.1. */
export async function spawnServer(env: Record<string, string>): Promise<ServerUnderTest> {
  assertBuilt();
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'serve'], {
    cwd: ROOT,
    env: cleanEnv({ ...env, PORT: String(port), HOST: '127.0.0.1' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const listeners = new Set<() => void>();
  const take = (b: Buffer) => {
    out += b.toString();
    for (const l of listeners) l();
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const workers = () =>
    spawnSync('ps', ['-o', 'pid=', '--ppid', String(child.pid)], { encoding: 'utf8' })
      .stdout.split('\n').map((s) => Number(s.trim())).filter((n) => n > 0);
  const kill = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };
  // Never outlive the test run.
  process.once('exit', () => {
    for (const w of workers()) process.kill(w, 'SIGKILL');
    child.kill('SIGKILL');
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    output: () => out,
    exited,
    workers,
    kill,
    waitFor: (pattern, timeoutMs = 90_000) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (pattern.test(out)) {
            cleanup();
            resolve();
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no ${pattern} in the server output within ${timeoutMs} ms:\n${out}`));
        }, timeoutMs);
        const onExit = () => {
          cleanup();
          reject(new Error(`the server exited before printing ${pattern}:\n${out}`));
        };
        const cleanup = () => {
          clearTimeout(timer);
          listeners.delete(check);
          child.off('exit', onExit);
        };
        listeners.add(check);
        child.once('exit', onExit);
        check();
      }),
  };
}

/** Spawns the server and waits until it says it is serving, and answers. */
export async function startServer(env: Record<string, string>): Promise<ServerUnderTest> {
  const s = await spawnServer(env);
  try {
    await s.waitFor(/serving http:\/\//);
    await until('the server to answer', async () => (await fetch(`${s.url}/api/`).then((r) => r.status, () => 0)) === 200);
  } catch (e) {
    await s.kill('SIGKILL');
    throw e;
  }
  return s;
}
