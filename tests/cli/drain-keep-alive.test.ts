/**
 * SIGTERM with a client holding an idle keep-alive connection, as every client behind a load balancer does.
 * The client writes its next request on that connection just after the server stopped accepting (the moment
 * a rolling restart used to reset requests: the server closed idle connections at once, so a request crossing
 * that close was lost after it was sent). The request must be answered, with Connection: close; the health
 * check answers 503 during the drain; the process still exits 0. In one process and with two workers.
 * PostgreSQL only (TEST_DATABASE_URL): on the embedded database these are reported as skipped.
 */
import net from 'node:net';
import { databaseUrl, describeOnPostgres, freshDatabase, startServer, until, type ServerUnderTest } from '../faults/fault-server';
import { request } from '../faults/http';

/** Starting two workers on a 2-core machine shared with other test runs takes tens of seconds. */
const TEST_TIMEOUT_MS = 180_000;

/** An HTTP/1.1 connection written by hand, so that nothing in a client library hides how it ends. */
class RawConnection {
  private received = '';
  private ended = false;
  private failure: string | null = null;
  private readonly waiters = new Set<() => void>();
  private constructor(private readonly socket: net.Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (s: string) => this.changed(() => (this.received += s)));
    socket.on('end', () => this.changed(() => (this.ended = true)));
    socket.on('error', (e: NodeJS.ErrnoException) => this.changed(() => (this.failure = e.code ?? e.message)));
    socket.on('close', () => this.changed(() => (this.ended = true)));
  }

  static open(url: string): Promise<RawConnection> {
    const { hostname, port } = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = net.connect(Number(port), hostname, () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  private changed(update: () => void): void {
    update();
    for (const w of this.waiters) w();
  }

  /** Whether the server has closed (or reset) this connection. */
  get closed(): boolean {
    return this.ended || this.failure !== null;
  }

  /** Sends GET path and resolves with the response head and body, or with how the connection failed instead. */
  async get(path: string): Promise<{ status: number; head: string } | { failed: string }> {
    const start = this.received.length;
    this.socket.write(`GET ${path} HTTP/1.1\r\nHost: test\r\nConnection: keep-alive\r\n\r\n`);
    return new Promise((resolve) => {
      const check = () => {
        const text = this.received.slice(start);
        const headEnd = text.indexOf('\r\n\r\n');
        const length = /\r\ncontent-length: (\d+)/i.exec(text);
        if (headEnd >= 0 && length && text.length >= headEnd + 4 + Number(length[1])) {
          this.waiters.delete(check);
          resolve({ status: Number(text.slice(9, 12)), head: text.slice(0, headEnd).toLowerCase() });
        } else if (this.closed) {
          this.waiters.delete(check);
          resolve({ failed: this.failure ?? 'closed without an answer' });
        }
      };
      this.waiters.add(check);
      check();
    });
  }

  destroy(): void {
    this.socket.destroy();
  }
}

describeOnPostgres.each([1, 2])('SIGTERM with an idle keep-alive connection, %i server process(es)', (workers) => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let server: ServerUnderTest | undefined;
  beforeAll(async () => {
    db = await freshDatabase();
  });
  afterAll(async () => {
    await server?.kill('SIGKILL');
    await db?.drop();
  });

  test('a request sent on it after the server stopped accepting is answered, with Connection: close', async () => {
    server = await startServer({ DATABASE_URL: databaseUrl(db.name), PATCHBAY_WORKERS: String(workers), PATCHBAY_SHUTDOWN_GRACE: '30' });
    const s = server;
    const idle = await RawConnection.open(s.url);
    const health = await RawConnection.open(s.url);
    try {
      const first = await idle.get('/api/');
      expect('status' in first && first.status).toBe(200);
      const status = await health.get('/api/status/');
      expect('status' in status && status.status).toBe(200);

      void s.kill('SIGTERM');
      await until('the server to stop accepting', async () => {
        const o = await request(`${s.url}/api/`, { timeoutMs: 5000 });
        return o.kind === 'failed' && o.error === 'ECONNREFUSED';
      });
      const after = await idle.get('/api/');
      expect(after).toEqual({ status: 200, head: expect.stringContaining('connection: close') });

      // A load balancer polling the health check on a kept-alive connection is told to stop routing here.
      const draining = await health.get('/api/status/');
      expect('status' in draining && draining.status).toBe(503);
    } finally {
      idle.destroy();
      health.destroy();
    }
    const exit = await s.exited;
    server = undefined;
    expect(exit).toEqual({ code: 0, signal: null });
  }, TEST_TIMEOUT_MS);
});
