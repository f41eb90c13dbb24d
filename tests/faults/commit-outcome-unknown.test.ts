/**
 * The connection to PostgreSQL lost while COMMIT is in flight: the write may have committed, so the
 * answer is 504 naming the request id (which the change log is searched by), without Retry-After; a retry
 * with the same Idempotency-Key gets the first answer and writes nothing. A cut before COMMIT (nothing
 * committed) stays a 503 to retry. A proxy (cutting-proxy.ts) reads the app's protocol messages and cuts
 * the connection at the chosen one. PostgreSQL only: on the embedded database these are reported skipped.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../engine/app';
import { connectDatabase, type Database } from '../../engine/database/connect';
import { startTestApp, TEST_DATABASE_URL, type TestApp } from '../support/test-app';
import { CuttingProxy } from './cutting-proxy';

const describeOnPostgres = TEST_DATABASE_URL ? describe : describe.skip;

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown> & Array<Record<string, unknown>>;
}

describeOnPostgres('a write whose COMMIT lost its connection', () => {
  let t: TestApp;
  let proxy: CuttingProxy;
  let db: Database;
  let server: Server;
  let base = '';

  beforeAll(async () => {
    t = await startTestApp();
    proxy = new CuttingProxy((() => {
      const u = new URL(TEST_DATABASE_URL!);
      return { host: u.hostname || '127.0.0.1', port: Number(u.port || 5432) };
    })());
    const port = await proxy.start();
    const url = new URL(TEST_DATABASE_URL!);
    url.hostname = '127.0.0.1';
    url.port = String(port);
    // One connection: every request of the app goes through the proxy and the connection it may cut.
    db = await connectDatabase({ url: url.toString(), schema: t.db.schema, poolMax: 2 });
    const app = createApp({ registry: t.registry, knex: db.knex, config: t.config, version: 'test', embedded: false, clock: t.clock });
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await db.close().catch(() => undefined);
    await proxy.close();
    await t.close();
  });

  async function post(path: string, body: unknown, key?: string): Promise<Answer> {
    const res = await fetch(base + path, {
      method: 'POST',
      headers: { ...t.auth, Accept: 'application/json', 'Content-Type': 'application/json', ...(key ? { 'Idempotency-Key': key } : {}) },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Answer['body'] };
  }

  async function sitesNamed(name: string): Promise<Array<{ id: number }>> {
    const r = await t.knex.raw(`SELECT "id" FROM "dcim_site" WHERE "name" = ?`, [name]);
    return r.rows as Array<{ id: number }>;
  }

  /**
   * The sites of that name once PostgreSQL has finished with the cut connection: the 504 may reach the
   * test before the server has run the COMMIT it read, so it is looked for until the server is done.
   */
  async function sitesOnceSettled(name: string): Promise<Array<{ id: number }>> {
    for (let i = 0; i < 200; i++) {
      const found = await sitesNamed(name);
      if (found.length) return found;
      await new Promise((r) => setTimeout(r, 50));
    }
    return sitesNamed(name);
  }

  test('504 with the request id; the site exists, the change log names the request; the keyed retry replays the 201', async () => {
    const site = { name: 'Cut at commit', slug: 'cut-at-commit' };
    proxy.arm({ sql: /^\s*COMMIT\b/i, forward: true });
    const cut = await post('/api/dcim/sites/', site, 'commit-cut-1');
    expect(proxy.cuts).toEqual(['COMMIT;']);
    const requestId = cut.headers.get('x-request-id');
    expect(cut.status).toBe(504);
    expect(cut.headers.get('retry-after')).toBeNull();
    expect(cut.body).toEqual({ detail: expect.stringContaining(`request ${requestId!}`), request_id: requestId });
    expect(String(cut.body.detail)).toContain(`/api/extras/object-changes/?request_id=${requestId!}`);
    expect(String(cut.body.detail)).toContain('Idempotency-Key');

    // It committed: PostgreSQL read COMMIT before the connection closed.
    const made = await sitesOnceSettled(site.name);
    expect(made).toHaveLength(1);
    const log = await fetch(`${base}/api/extras/object-changes/?request_id=${requestId!}`, { headers: t.auth }).then((r) => r.json() as Promise<{ count: number; results: Array<{ request_id: string; changed_object_id: number; action: { value: string } }> }>);
    expect(log.count).toBe(1);
    expect(log.results[0]).toMatchObject({ request_id: requestId, changed_object_id: made[0]!.id, action: { value: 'create' } });

    const retry = await post('/api/dcim/sites/', site, 'commit-cut-1');
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.id).toBe(made[0]!.id);
    expect(retry.headers.get('location')).toMatch(new RegExp(`/api/dcim/sites/${made[0]!.id}/$`));
    expect(await sitesNamed(site.name)).toHaveLength(1);
  });

  test('without a key the 504 is the same, and the change log tells the client it committed', async () => {
    const body = [{ name: 'Cut bulk', slug: 'cut-bulk' }];
    proxy.arm({ sql: /^\s*COMMIT\b/i, forward: true });
    const cut = await post('/api/dcim/sites/', body);
    expect(cut.status).toBe(504);
    const requestId = cut.headers.get('x-request-id');
    expect(cut.body.request_id).toBe(requestId);
    expect(await sitesOnceSettled('Cut bulk')).toHaveLength(1);
    const log = await t.api.get(`/api/extras/object-changes/?request_id=${requestId!}`).set(t.auth);
    expect(log.body.count).toBe(1);
  });

  test('a cut before COMMIT (on the INSERT) is still a 503 to retry: nothing was written', async () => {
    const body = [{ name: 'Cut at insert', slug: 'cut-at-insert' }];
    proxy.arm({ sql: /^\s*INSERT INTO "dcim_site"/i, forward: false });
    const cut = await post('/api/dcim/sites/', body);
    expect(proxy.cuts.at(-1)).toMatch(/^INSERT INTO "dcim_site"/);
    expect(cut.status).toBe(503);
    expect(cut.headers.get('retry-after')).toBe('5');
    expect(await sitesNamed('Cut at insert')).toHaveLength(0);
    const again = await post('/api/dcim/sites/', body);
    expect(again.status).toBe(201);
    expect(await sitesNamed('Cut at insert')).toHaveLength(1);
  });

  test('with a key, a cut before COMMIT keeps no key: the retry writes once', async () => {
    const site = { name: 'Cut keyed insert', slug: 'cut-keyed-insert' };
    // After the key's claim, before the write (a prepared INSERT is parsed once per connection; the
    // write's savepoint is sent every time).
    proxy.arm({ sql: /^\s*SAVEPOINT\b/i, forward: false });
    const cut = await post('/api/dcim/sites/', site, 'insert-cut-1');
    expect(proxy.cuts.at(-1)).toMatch(/^SAVEPOINT/);
    expect(cut.status).toBe(503);
    expect(await sitesNamed(site.name)).toHaveLength(0);
    const again = await post('/api/dcim/sites/', site, 'insert-cut-1');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(await sitesNamed(site.name)).toHaveLength(1);
  });
});
