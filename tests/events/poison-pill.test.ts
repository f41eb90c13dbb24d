/**
 * A poison pill: an event whose delivery takes its dispatcher down every time. Each server (the compiled
 * server as a child process, on PostgreSQL when TEST_DATABASE_URL is set, else on the embedded database)
 * is killed with SIGKILL while it is in the middle of the delivery (the receiver has the request, the
 * answer never comes). With PATCHBAY_EVENTS_MAX_ATTEMPTS=2, two dispatchers die on it; the third must not
 * claim it again, but fail it once the last lease has run out, with the reason.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { runCli, tempDir } from '../cli/cli-support';
import { databaseUrl, freshDatabase, PG_URL, spawnServer, type ServerUnderTest } from '../faults/fault-server';
import { until } from './receiver';

const ATTEMPTS = 2;

/** Spawns the server and only then waits for it: the receiver must know its process before it can deliver anything. */
async function serve(env: Record<string, string>, known: (s: ServerUnderTest) => void): Promise<ServerUnderTest> {
  const s = await spawnServer(env);
  known(s);
  await s.waitFor(/serving http:\/\//);
  await until('the server to answer', async () => (await fetch(`${s.url}/api/`).then((r) => r.status, () => 0)) === 200, 90_000);
  return s;
}

test(`a delivery whose dispatcher dies on it is attempted ${ATTEMPTS} times, then failed with the reason, never claimed again`, async () => {
  const pg = PG_URL ? await freshDatabase() : null;
  const folder = pg ? null : tempDir('events-poison');
  const where: Record<string, string> = pg ? { DATABASE_URL: databaseUrl(pg.name) } : { PATCHBAY_DATA_DIR: folder!.dir, PATCHBAY_MEDIA_ROOT: `${folder!.dir}/media` };
  // A lease of 3 + 1 + 5 seconds: the request's deadline, the templates', and the margin.
  const env = { ...where, PATCHBAY_WORKERS: '1', PATCHBAY_EVENTS_POLL: '0.05', PATCHBAY_WEBHOOK_TIMEOUT: '3', PATCHBAY_TEMPLATE_TIMEOUT: '1', PATCHBAY_EVENTS_MAX_ATTEMPTS: String(ATTEMPTS), PATCHBAY_EVENTS_RETRY_BASE: '0.1' };

  let server: ServerUnderTest | undefined;
  const requests: string[] = [];
  // The receiver takes the request and, the first ATTEMPTS times, kills the server delivering it; it never answers.
  const receiver = http.createServer((req) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push(Buffer.concat(chunks).toString('utf8'));
      if (requests.length <= ATTEMPTS && server) process.kill(server.pid, 'SIGKILL');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
  try {
    const key = crypto.randomBytes(20).toString('hex');
    expect(runCli(['createsuperuser', '--username', 'poison', '--password', 'pw', '--token', key], where).status).toBe(0);
    const headers = { Authorization: `Token ${key}`, 'Content-Type': 'application/json', Accept: 'application/json' };
    server = await serve(env, (s) => (server = s));
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${server!.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
      expect(res.status).toBe(201);
      return (await res.json()) as { id: number };
    };
    const hook = await post('/api/extras/webhooks/', { name: 'poison', payload_url: url });
    await post('/api/extras/event-rules/', { name: 'poison', content_types: ['dcim.site'], type_create: true, action_object_type: 'extras.webhook', action_object_id: hook.id });
    const site = await fetch(`${server.url}/api/dcim/sites/`, { method: 'POST', headers, body: JSON.stringify({ name: 'poison', slug: 'poison' }) });
    expect(site.status).toBe(201);
    const rid = String(site.headers.get('x-request-id'));

    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      const dying = server;
      expect(await dying.exited).toMatchObject({ signal: 'SIGKILL' });
      expect(requests).toHaveLength(attempt);
      server = await serve(env, (s) => (server = s));
    }
    type Row = { status: { value: string }; attempts: number; response_status: number | null; last_error: string; lease_until: string | null };
    let row: Row | undefined;
    await until('the delivery to be given up', async () => {
      const res = await fetch(`${server!.url}/api/extras/event-deliveries/?request_id=${rid}`, { headers }).catch(() => null);
      row = res && res.status === 200 ? ((await res.json()) as { results: Row[] }).results[0] : undefined;
      return row?.status.value === 'failed';
    }, 90_000);
    expect(row).toMatchObject({ status: { value: 'failed' }, attempts: ATTEMPTS, response_status: null, last_error: 'the delivery did not finish within its lease', lease_until: null });
    expect(requests).toHaveLength(ATTEMPTS);
    expect(server.output()).toContain(`failed after ${ATTEMPTS} attempts: the last did not finish within its lease`);
  } finally {
    await server?.kill('SIGKILL');
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
    await pg?.drop();
    folder?.remove();
  }
}, 300_000);
