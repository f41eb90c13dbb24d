/**
 * `serve` on an address it cannot listen on fails once: exit status 1 and one line on stderr naming the
 * address, in one process and with two workers (which used to restart each other for ever). The compiled
 * server on PostgreSQL (several workers need it); on the embedded database these are reported as skipped.
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import { BIN, ROOT, cleanEnv } from './cli-support';
import { assertBuilt } from '../faults/compiled';
import { databaseUrl, describeOnPostgres, freshDatabase } from '../faults/fault-server';

/** Generous: migrations are applied before listening; a crash loop never ends at all. */
const EXIT_WITHIN_MS = 45_000;

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `serve` until it exits, or kills it after EXIT_WITHIN_MS (then code is null). */
function serveUntilExit(env: Record<string, string>): Promise<Ended> {
  const child = spawn(process.execPath, [BIN, 'serve'], { cwd: ROOT, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), EXIT_WITHIN_MS);
  return new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    }),
  );
}

describeOnPostgres.each([1, 2])('serve with %i process(es) on a port already in use', (workers) => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let holder: net.Server;
  let port: number;
  beforeAll(async () => {
    assertBuilt();
    db = await freshDatabase();
    holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    port = (holder.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => holder.close(resolve));
    await db?.drop();
  });

  test('exits 1 with one line naming the address, and starts no worker again', async () => {
    const ended = await serveUntilExit({ DATABASE_URL: databaseUrl(db.name), PATCHBAY_WORKERS: String(workers), PORT: String(port), HOST: '127.0.0.1' });
    expect({ code: ended.code, signal: ended.signal }).toEqual({ code: 1, signal: null });
    expect(ended.stderr.trim().split('\n')).toEqual([`patchbay: cannot listen on 127.0.0.1:${port}: address already in use`]);
    expect(ended.stdout).not.toMatch(/starting another|serving/);
  }, EXIT_WITHIN_MS + 30_000);
});

describeOnPostgres('serve on an address this machine does not have', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    assertBuilt();
    db = await freshDatabase();
  });
  afterAll(async () => db?.drop());

  test('exits 1 with one line naming the address (two workers)', async () => {
    // 192.0.2.0/24 is TEST-NET-1: documentation only, never configured on a real interface.
    const ended = await serveUntilExit({ DATABASE_URL: databaseUrl(db.name), PATCHBAY_WORKERS: '2', PORT: '8000', HOST: '192.0.2.1' });
    expect({ code: ended.code, signal: ended.signal }).toEqual({ code: 1, signal: null });
    expect(ended.stderr.trim().split('\n')).toEqual(['patchbay: cannot listen on 192.0.2.1:8000: address not available on this machine']);
  }, EXIT_WITHIN_MS + 30_000);
});
