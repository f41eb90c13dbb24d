/**
 * The database stopped, restarted and frozen under a running server, and a server started while the
 * database is down. A TCP proxy between the server and PostgreSQL (tcp-proxy.ts) refuses, resets and
 * black-holes connections; "restarted" is a real pg_terminate_backend of the server's connections.
 * Every request gets an answer: 200, or 503 with Retry-After and a JSON detail; never a 500, never a hang.
 * PostgreSQL only (TEST_DATABASE_URL): on the embedded database these are reported as skipped.
 */
import type pg from 'pg';
import { FaultProxy } from './tcp-proxy';
import { databaseUrl, describeOnPostgres, freshDatabase, makeToken, pgTarget, spawnServer, startServer, terminateServerBackends, until, waitingOnLock, type ServerUnderTest } from './fault-server';
import { describeTally, request, tally, type Outcome } from './http';

/** Limits that let a request wait on a lock the suite holds, and fail within seconds otherwise. */
const LIMITS = {
  PATCHBAY_WORKERS: '1',
  PATCHBAY_DB_STATEMENT_TIMEOUT: '20',
  PATCHBAY_DB_QUERY_TIMEOUT: '25',
  PATCHBAY_DB_CONNECT_TIMEOUT: '1',
  PATCHBAY_DB_ACQUIRE_TIMEOUT: '3',
};
/** Short query limits, so that a frozen database shows within seconds. */
const FROZEN_LIMITS = { ...LIMITS, PATCHBAY_DB_STATEMENT_TIMEOUT: '1', PATCHBAY_DB_QUERY_TIMEOUT: '2' };
/** A request that has not been answered by then is counted as hung (the old server hung for 80 s). */
const HUNG_AFTER_MS = 15_000;

function expectUnavailable(o: Outcome): void {
  expect(o.kind).toBe('answer');
  if (o.kind !== 'answer') return;
  expect({ status: o.status, retryAfter: o.headers['retry-after'], type: o.headers['content-type'] }).toEqual({
    status: 503,
    retryAfter: '5',
    type: expect.stringMatching(/^application\/json/),
  });
  expect(JSON.parse(o.body)).toEqual({ detail: 'The database is unavailable; try again in 5 seconds.', request_id: expect.any(String) });
}

/** A server (one process) on a fresh database through a fault proxy, for one describe block. */
function serverThroughProxy(limits: Record<string, string>) {
  const t = {} as { db: Awaited<ReturnType<typeof freshDatabase>>; proxy: FaultProxy; server: ServerUnderTest; auth: Record<string, string> };
  beforeAll(async () => {
    t.db = await freshDatabase();
    t.proxy = new FaultProxy(pgTarget());
    const port = await t.proxy.start();
    t.server = await startServer({ ...limits, DATABASE_URL: databaseUrl(t.db.name, { host: '127.0.0.1', port }) });
    t.auth = { Authorization: `Token ${await makeToken(t.db.sql)}` };
  });
  afterAll(async () => {
    if (process.env.FAULTS_DEBUG) console.log(t.server?.output());
    await t.server?.kill('SIGKILL');
    await t.proxy?.close();
    await t.db?.drop();
  });
  return {
    t,
    sites: () => request(`${t.server.url}/api/dcim/sites/`, { headers: t.auth, timeoutMs: HUNG_AFTER_MS }),
    statusPage: () => request(`${t.server.url}/api/status/`, { timeoutMs: HUNG_AFTER_MS }),
  };
}

/** Holds an exclusive lock on dcim_site (so that listing sites waits) while fn runs. */
async function withSitesLocked<T>(sql: pg.Client, fn: () => Promise<T>): Promise<T> {
  await sql.query('BEGIN');
  try {
    await sql.query('LOCK TABLE dcim_site IN ACCESS EXCLUSIVE MODE');
    return await fn();
  } finally {
    await sql.query('ROLLBACK');
  }
}

describeOnPostgres('a running server while the database fails', () => {
  const { t, sites, statusPage } = serverThroughProxy(LIMITS);

  test('healthy: requests succeed and /api/status/ says the database is ok', async () => {
    const [s, st] = await Promise.all([sites(), statusPage()]);
    expect(s.kind === 'answer' && s.status).toBe(200);
    expect(st.kind === 'answer' && [st.status, JSON.parse(st.body)['database-status']]).toEqual([200, 'ok']);
  });

  test('stopped: every request is a 503 with Retry-After; /api/status/ is a 503 saying unreachable; then it recovers', async () => {
    await t.proxy.refuse();
    const outcomes: Outcome[] = [];
    for (let i = 0; i < 10; i++) outcomes.push(await sites());
    const st = await statusPage();
    console.log(`database stopped: ${describeTally(tally(outcomes))}; /api/status/: ${st.kind === 'answer' ? st.status : st.kind}`);
    for (const o of outcomes) expectUnavailable(o);
    expect(st.kind === 'answer' && { status: st.status, retryAfter: st.headers['retry-after'], database: JSON.parse(st.body)['database-status'] })
      .toEqual({ status: 503, retryAfter: '5', database: 'unreachable' });

    await t.proxy.pass();
    const after = [await sites(), await statusPage()];
    expect(after.map((o) => o.kind === 'answer' && o.status)).toEqual([200, 200]);
  });

  test('restarted (pg_terminate_backend): requests in flight get a 503, the next ones succeed', async () => {
    // Requests in flight: waiting on a lock the suite holds when their connections are terminated.
    const { during, terminated } = await withSitesLocked(t.db.sql, async () => {
      const inFlight = Array.from({ length: 4 }, () => sites());
      await until('4 requests waiting on the lock', async () => (await waitingOnLock(t.db.sql, t.db.name)) === 4);
      const terminated = await terminateServerBackends(t.db.sql, t.db.name);
      return { during: await Promise.all(inFlight), terminated };
    });
    const after: Outcome[] = [];
    for (let i = 0; i < 10; i++) after.push(await sites());
    console.log(`database restarted: ${terminated} backends terminated; in flight: ${describeTally(tally(during))}; after: ${describeTally(tally(after))}`);
    for (const o of during) expectUnavailable(o);
    expect(tally(after)).toEqual({ 200: 10 });
  });

  test('a request whose client leaves has its query cancelled in PostgreSQL', async () => {
    await withSitesLocked(t.db.sql, async () => {
      let sent: { destroy(): void } | undefined;
      const gone = request(`${t.server.url}/api/dcim/sites/`, { headers: t.auth, timeoutMs: HUNG_AFTER_MS, sent: (r) => (sent = r) });
      await until('the request waiting on the lock', async () => (await waitingOnLock(t.db.sql, t.db.name)) === 1);
      sent!.destroy();
      await gone;
      // The lock is still held: only a cancel can end the server's wait.
      await until('the abandoned query to be cancelled', async () => (await waitingOnLock(t.db.sql, t.db.name)) === 0, 10_000);
    });
    const next = await sites();
    expect(next.kind === 'answer' && next.status).toBe(200);
  });
});

describeOnPostgres('a running server while the database freezes', () => {
  const { t, sites, statusPage } = serverThroughProxy(FROZEN_LIMITS);

  test('a statement past PATCHBAY_DB_STATEMENT_TIMEOUT is cancelled by PostgreSQL itself, and is a 503', async () => {
    const o = await withSitesLocked(t.db.sql, () => sites());
    expectUnavailable(o);
    // PostgreSQL's statement_timeout (1 s), not the client-side query timeout (2 s), ended it.
    expect(t.server.output()).toMatch(/GET \/api\/dcim\/sites\/: database unavailable \(57014: /);
    expect(t.server.output()).not.toContain('no answer within PATCHBAY_DB_QUERY_TIMEOUT');
  });

  test('frozen: a request gets a 503 within the query timeout, and no stuck connection reaches a later request', async () => {
    await sites(); // a pooled connection, open and idle, when the database freezes
    t.proxy.blackhole();
    const frozen = [await sites(), await sites(), await statusPage()];
    console.log(`database frozen: ${frozen.map((o) => (o.kind === 'answer' ? `${o.status} after ${o.ms} ms` : `${o.kind} after ${o.ms} ms`)).join('; ')}`);
    expectUnavailable(frozen[0]!);
    expectUnavailable(frozen[1]!);
    expect(frozen[2]!.kind === 'answer' && [frozen[2]!.status, JSON.parse(frozen[2]!.body)['database-status']]).toEqual([503, 'unreachable']);

    await t.proxy.pass();
    const after: Outcome[] = [];
    for (let i = 0; i < 10; i++) after.push(await sites());
    console.log(`after the freeze: ${describeTally(tally(after))}`);
    expect(tally(after)).toEqual({ 200: 10 });
  });
});

describeOnPostgres('starting while the database is down', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let proxy: FaultProxy;
  beforeAll(async () => {
    db = await freshDatabase();
    proxy = new FaultProxy(pgTarget());
    await proxy.start();
  });
  afterAll(async () => {
    await proxy?.close();
    await db?.drop();
  });

  test('gives up after PATCHBAY_DB_STARTUP_TIMEOUT: one line per attempt, one line to end, exit status 1', async () => {
    await proxy.refuse();
    const server = await spawnServer({ ...LIMITS, PATCHBAY_DB_STARTUP_TIMEOUT: '2', DATABASE_URL: databaseUrl(db.name, { host: '127.0.0.1', port: proxy.port }) });
    let timer: NodeJS.Timeout | undefined;
    const how = await Promise.race([server.exited, new Promise((r) => (timer = setTimeout(() => r('still running'), 30_000)))]);
    clearTimeout(timer);
    await server.kill('SIGKILL');
    const lines = server.output().trim().split('\n');
    console.log(`start with the database down:\n  ${lines.join('\n  ')}`);
    expect(how).toEqual({ code: 1, signal: null });
    const where = `127.0.0.1:${proxy.port}/${db.name}`;
    expect(lines.slice(0, -1)).toEqual(lines.slice(0, -1).map(() => expect.stringMatching(new RegExp(`^database ${where} unreachable \\(ECONNREFUSED\\); attempt \\d+, retrying in [\\d.]+ s$`))));
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines.at(-1)).toMatch(new RegExp(`^patchbay: database ${where} unreachable \\(ECONNREFUSED\\); gave up after [\\d.]+ s \\(PATCHBAY_DB_STARTUP_TIMEOUT\\)$`));
  });

  test('waits for the database and serves once it answers', async () => {
    await proxy.refuse();
    const server = await spawnServer({ ...LIMITS, PATCHBAY_DB_STARTUP_TIMEOUT: '60', DATABASE_URL: databaseUrl(db.name, { host: '127.0.0.1', port: proxy.port }) });
    try {
      await server.waitFor(/retrying in/);
      await proxy.pass();
      await server.waitFor(/serving http:\/\//);
      const st = await request(`${server.url}/api/status/`, { timeoutMs: HUNG_AFTER_MS });
      expect(st.kind === 'answer' && st.status).toBe(200);
    } finally {
      await server.kill('SIGKILL');
    }
  });
});
