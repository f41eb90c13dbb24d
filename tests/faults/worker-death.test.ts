/**
 * kill -9 of a worker: the requests that follow must neither fail nor hang, and the primary replaces the
 * worker. (With Node's round-robin scheduling the primary handed connections to the dead worker, where
 * they hung.) The compiled server with two workers on PostgreSQL.
 * PostgreSQL only (TEST_DATABASE_URL): on the embedded database this is reported as skipped.
 */
import { databaseUrl, describeOnPostgres, freshDatabase, makeToken, startServer, until, type ServerUnderTest } from './fault-server';
import { describeTally, request, tally, type Outcome } from './http';

const N = 20;
/** A request unanswered after this long counts as hung. */
const HUNG_AFTER_MS = 5000;

describeOnPostgres('kill -9 of a worker', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let server: ServerUnderTest | undefined;
  beforeAll(async () => {
    db = await freshDatabase();
  });
  afterAll(async () => {
    await server?.kill('SIGKILL');
    await db?.drop();
  });

  test(`the ${N} requests right after it are all answered, and a new worker takes its place`, async () => {
    server = await startServer({ DATABASE_URL: databaseUrl(db.name), PATCHBAY_WORKERS: '2' });
    const s = server;
    const auth = { Authorization: `Token ${await makeToken(db.sql)}` };
    for (let i = 0; i < 4; i++) await request(`${s.url}/api/dcim/sites/`, { headers: auth, timeoutMs: HUNG_AFTER_MS });
    const [victim] = s.workers();
    expect(victim).toBeDefined();

    const killedAt = performance.now();
    process.kill(victim!, 'SIGKILL');
    const outcomes: Outcome[] = [];
    for (let i = 0; i < N; i++) outcomes.push(await request(`${s.url}/api/dcim/sites/`, { headers: auth, timeoutMs: HUNG_AFTER_MS }));
    console.log(`worker kill -9: ${N} requests right after -> ${describeTally(tally(outcomes))} (hung: no answer in ${HUNG_AFTER_MS / 1000} s)`);
    expect(tally(outcomes)).toEqual({ 200: N });
    await s.waitFor(new RegExp(`serving \\(replaces ${victim}\\)`), 30_000);
    console.log(`worker kill -9: replacement serving ${Math.round(performance.now() - killedAt)} ms after the kill`);
    await until('two workers again', () => s.workers().length === 2);
    const exit = await s.kill('SIGTERM');
    server = undefined;
    expect(exit).toEqual({ code: 0, signal: null });
  });
});
