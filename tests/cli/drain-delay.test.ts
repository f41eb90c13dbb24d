/**
 * PATCHBAY_DRAIN_DELAY: after SIGTERM the instance keeps accepting for that long, so that a load balancer's
 * health check takes it out of rotation before the listener closes (closing it resets connections the kernel
 * had already queued: a rolling restart lost requests on new connections that way). During the delay a NEW
 * connection is served, with Connection: close, and the health check on a new connection answers 503; after
 * it, new connections are refused; the process exits 0. Without the delay the listener closes at SIGTERM and
 * the first new connection is refused. In one process and with two workers.
 * PostgreSQL only (TEST_DATABASE_URL): on the embedded database these are reported as skipped.
 */
import { databaseUrl, describeOnPostgres, freshDatabase, startServer, until, type ServerUnderTest } from '../faults/fault-server';
import { request, type Outcome } from '../faults/http';

/** Starting two workers on a 2-core machine shared with other test runs takes tens of seconds. */
const TEST_TIMEOUT_MS = 180_000;

/** A request on a connection of its own, as a client that was just routed here opens one. */
function onNewConnection(url: string): Promise<Outcome> {
  return request(url, { timeoutMs: 10_000 });
}

describeOnPostgres.each([1, 2])('PATCHBAY_DRAIN_DELAY=2, %i server process(es)', (workers) => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let server: ServerUnderTest | undefined;
  beforeAll(async () => {
    db = await freshDatabase();
  });
  afterAll(async () => {
    await server?.kill('SIGKILL');
    await db?.drop();
  });

  test('after SIGTERM new connections are served (Connection: close) until the delay is over, then refused; exit 0', async () => {
    server = await startServer({ DATABASE_URL: databaseUrl(db.name), PATCHBAY_WORKERS: String(workers), PATCHBAY_DRAIN_DELAY: '2' });
    const s = server;
    const before = await onNewConnection(`${s.url}/api/status/`);
    expect(before.kind === 'answer' && before.status).toBe(200);

    void s.kill('SIGTERM');
    // The health check on a new connection turns 503 once the signal is handled; refused here means the
    // listener closed at SIGTERM (no delay).
    await until('the health check to answer 503', async () => {
      const o = await onNewConnection(`${s.url}/api/status/`);
      if (o.kind !== 'answer') throw new Error(`health check on a new connection during the drain delay: ${o.kind === 'failed' ? o.error : 'hung'}`);
      return o.status === 503;
    });
    const during = await onNewConnection(`${s.url}/api/`);
    expect(during.kind === 'answer' && { status: during.status, connection: during.headers.connection }).toEqual({ status: 200, connection: 'close' });

    await until(
      'the server to stop accepting after the delay',
      async () => {
        const o = await onNewConnection(`${s.url}/api/`);
        return o.kind === 'failed' && o.error === 'ECONNREFUSED';
      },
      60_000,
    );
    const exit = await s.exited;
    server = undefined;
    expect(exit).toEqual({ code: 0, signal: null });
  }, TEST_TIMEOUT_MS);
});
