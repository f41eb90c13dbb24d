/**
 * SIGTERM with requests in flight: the compiled server, on PostgreSQL, in one process and as a cluster of
 * two workers. N requests wait on a lock the suite holds when SIGTERM arrives; the server stops accepting,
 * closes an idle keep-alive connection once its keep-alive timeout has passed, and, once the lock is released, every request completes (with
 * Connection: close) before the process exits 0. A request still running after the grace period is cut,
 * and the process still exits 0.
 * PostgreSQL only (TEST_DATABASE_URL): on the embedded database these are reported as skipped.
 */
import http from 'node:http';
import { databaseUrl, describeOnPostgres, freshDatabase, makeToken, startServer, until, waitingOnLock, type ServerUnderTest } from './fault-server';
import { describeTally, request, tally } from './http';

/** Requests in flight: as many as one process's pool holds by default, so that all of them reach the lock. */
const N = 10;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describeOnPostgres.each([1, 2])('SIGTERM with %i server process(es) busy', (workers) => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let server: ServerUnderTest | undefined;
  beforeAll(async () => {
    db = await freshDatabase();
  });
  afterAll(async () => {
    await server?.kill('SIGKILL');
    await db?.drop();
  });

  test(`all ${N} requests in flight complete; idle connections are closed; exit 0`, async () => {
    server = await startServer({
      DATABASE_URL: databaseUrl(db.name),
      PATCHBAY_WORKERS: String(workers),
      PATCHBAY_SHUTDOWN_GRACE: '30',
    });
    const s = server;
    const auth = { Authorization: `Token ${await makeToken(db.sql)}` };
    const pids = [s.pid, ...s.workers()];

    // A kept-alive connection, idle when SIGTERM comes.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const idle = await request(`${s.url}/api/status/`, { agent, timeoutMs: 10_000 });
    expect(idle.kind === 'answer' && idle.status).toBe(200);
    const idleSocket = Object.values(agent.freeSockets)[0]![0]!;
    const idleClosed = new Promise<void>((resolve) => idleSocket.once('close', () => resolve()));

    await db.sql.query('BEGIN');
    let outcomes;
    try {
      await db.sql.query('LOCK TABLE dcim_site IN ACCESS EXCLUSIVE MODE');
      // Kept-alive connections, as clients use them: the drain must tell each to close.
      const keepAlive = new http.Agent({ keepAlive: true, maxSockets: N });
      const inFlight = Array.from({ length: N }, () => request(`${s.url}/api/dcim/sites/`, { headers: auth, timeoutMs: 60_000, agent: keepAlive }));
      await until(`${N} requests waiting on the lock`, async () => (await waitingOnLock(db.sql, db.name)) === N);
      void s.kill('SIGTERM');
      await idleClosed;
      await until('the server to stop accepting', async () => {
        const o = await request(`${s.url}/api/status/`, { timeoutMs: 5000 });
        return o.kind === 'failed' && o.error === 'ECONNREFUSED';
      });
      await db.sql.query('ROLLBACK');
      outcomes = await Promise.all(inFlight);
    } finally {
      await db.sql.query('ROLLBACK');
    }
    const exit = await s.exited;
    server = undefined;
    const counts = tally(outcomes);
    console.log(`SIGTERM, ${workers} process(es): ${N} in flight -> ${describeTally(counts)}; exit ${exit.code ?? exit.signal}`);
    expect(counts).toEqual({ 200: N });
    for (const o of outcomes) expect(o.kind === 'answer' && o.headers.connection).toBe('close');
    expect(exit).toEqual({ code: 0, signal: null });
    expect(pids.filter(alive)).toEqual([]);
  }, 180_000);

  test('a request still running after PATCHBAY_SHUTDOWN_GRACE is cut, and the process exits 0', async () => {
    server = await startServer({ DATABASE_URL: databaseUrl(db.name), PATCHBAY_WORKERS: String(workers), PATCHBAY_SHUTDOWN_GRACE: '1' });
    const s = server;
    const auth = { Authorization: `Token ${await makeToken(db.sql)}` };
    await db.sql.query('BEGIN');
    try {
      await db.sql.query('LOCK TABLE dcim_site IN ACCESS EXCLUSIVE MODE');
      const stuck = request(`${s.url}/api/dcim/sites/`, { headers: auth, timeoutMs: 60_000 });
      await until('the request waiting on the lock', async () => (await waitingOnLock(db.sql, db.name)) === 1);
      const exit = await s.kill('SIGTERM');
      server = undefined;
      const o = await stuck;
      expect(o.kind).toBe('failed');
      expect(exit).toEqual({ code: 0, signal: null });
      expect(s.output()).toContain('stopping: 1 requests still running after PATCHBAY_SHUTDOWN_GRACE were cut');
    } finally {
      await db.sql.query('ROLLBACK');
    }
  }, 180_000);
});
