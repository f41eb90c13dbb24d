/**
 * Patchbay through PgBouncer in transaction pooling mode (DATABASE_POOL_MODE=transaction): a real server
 * (two processes, 30 pooled connections each, against PgBouncer's default_pool_size of 20, so server
 * connections really are shared between client connections and between transactions of one), migrated
 * through the bouncer, doing what relies on the database's guarantees: transactions that roll back,
 * all-or-none bulk writes, cable paths, advisory-locked allocation from concurrent clients, the outbox's
 * webhook delivery, change log rows tagged with the request id (transaction-scoped set_config), and the
 * cancellation of a query whose client left (a CancelRequest PgBouncer forwards to the right server).
 * Then the same app in session mode through the same bouncer, which must fail, and say what to set.
 *
 * Needs tests/scale-out/run.sh's cluster (SCALE_OUT_PRIMARY_URL, SCALE_OUT_BOUNCER_URL); skipped without.
 */
import { runCli } from '../cli/cli-support';
import { makeToken, spawnServer, startServer, until, waitingOnLock, type ServerUnderTest } from '../faults/fault-server';
import { request } from '../faults/http';
import { startReceiver } from '../events/receiver';
import { BOUNCER_URL, PRIMARY_URL, scaleOutDatabase, withDatabase } from './support/scale-out-database';
import { startPrivateBouncer, type PrivateBouncer } from './support/private-bouncer';

const describeThroughBouncer = BOUNCER_URL && PRIMARY_URL ? describe : describe.skip;

const SERVER_ENV = {
  PATCHBAY_WORKERS: '2',
  PATCHBAY_DB_POOL_SIZE: '30',
  PATCHBAY_EVENTS_POLL: '0.05',
  PATCHBAY_EVENTS_RETRY_BASE: '0.1',
  PATCHBAY_DB_STATEMENT_TIMEOUT: '20',
  PATCHBAY_DB_QUERY_TIMEOUT: '25',
};

type Json = Record<string, unknown>;

describeThroughBouncer('through PgBouncer in transaction pooling mode', () => {
  const t = {} as { db: Awaited<ReturnType<typeof scaleOutDatabase>>; url: string; server: ServerUnderTest; auth: Record<string, string> };

  const api = async (method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown; requestId: string }> => {
    const res = await fetch(`${t.server.url}${path}`, { method, headers: t.auth, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : null, requestId: res.headers.get('x-request-id') ?? '' };
  };
  const made = async (path: string, body: Json): Promise<number> => {
    const r = await api('POST', path, body);
    if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${JSON.stringify(r.json)}`);
    return (r.json as { id: number }).id;
  };
  const count = async (table: string, where = 'true'): Promise<number> =>
    Number((await t.db.sql.query(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`)).rows[0].n);

  beforeAll(async () => {
    t.db = await scaleOutDatabase('so_bouncer');
    t.url = withDatabase(BOUNCER_URL!, t.db.name);
    const migrated = runCli(['migrate'], { DATABASE_URL: t.url, DATABASE_POOL_MODE: 'transaction' }, 300_000);
    if (migrated.status !== 0) throw new Error(`migrate through PgBouncer failed: ${migrated.stderr}`);
    t.server = await startServer({ ...SERVER_ENV, DATABASE_URL: t.url, DATABASE_POOL_MODE: 'transaction' });
    t.auth = { Authorization: `Token ${await makeToken(t.db.sql)}`, 'Content-Type': 'application/json', Accept: 'application/json' };
  }, 300_000);

  afterAll(async () => {
    if (process.env.SCALE_OUT_DEBUG) console.log(t.server?.output());
    await t.server?.kill('SIGKILL');
    await t.db?.drop();
  });

  test('migrate set jit = off on the database, since no start-up option can carry it', async () => {
    const r = await t.db.sql.query(`SELECT setconfig FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase WHERE d.datname = $1 AND s.setrole = 0`, [t.db.name]);
    expect(r.rows[0]?.setconfig).toContain('jit=off');
  });

  test('CRUD and filtered lists', async () => {
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await made('/api/dcim/sites/', { name: `crud-${i}`, slug: `crud-${i}`, status: i % 2 ? 'planned' : 'active' }));
    const planned = await api('GET', '/api/dcim/sites/?status=planned&name__isw=crud-');
    expect(planned.status).toBe(200);
    expect((planned.json as { results: Json[] }).results.map((s) => s.name)).toEqual(['crud-1', 'crud-3']);
    expect((await api('PATCH', `/api/dcim/sites/${ids[0]}/`, { description: 'changed' })).status).toBe(200);
    expect(((await api('GET', `/api/dcim/sites/${ids[0]}/`)).json as Json).description).toBe('changed');
    expect((await api('DELETE', `/api/dcim/sites/${ids[4]}/`)).status).toBe(204);
    expect((await api('GET', `/api/dcim/sites/${ids[4]}/`)).status).toBe(404);
    // The same list many times over, concurrently: each time an unnamed statement on whichever server connection.
    const lists = await Promise.all(Array.from({ length: 40 }, () => api('GET', '/api/dcim/sites/?name__isw=crud-&ordering=name')));
    expect(new Set(lists.map((l) => `${l.status} ${(l.json as { count: number }).count}`))).toEqual(new Set(['200 4']));
  });

  test('a refused write changes nothing, and leaves no change log row', async () => {
    const id = await made('/api/dcim/sites/', { name: 'refused', slug: 'refused' });
    const changesBefore = await count('extras_objectchange');
    const r = await api('PATCH', `/api/dcim/sites/${id}/`, { description: 'never', status: 'no-such-status' });
    expect(r.status).toBe(400);
    expect(r.json).toHaveProperty('status');
    expect(((await api('GET', `/api/dcim/sites/${id}/`)).json as Json).description).toBe('');
    expect(await count('extras_objectchange')).toBe(changesBefore);
  });

  test('a bulk create is all or none', async () => {
    const r = await api('POST', '/api/dcim/sites/', [
      { name: 'bulk-a', slug: 'bulk-a' },
      { name: 'bulk-b', slug: 'bulk-b' },
      { name: 'bulk-c', slug: 'bulk-a' },
    ]);
    expect(r.status).toBe(400);
    expect(await count('dcim_site', `name LIKE 'bulk-%'`)).toBe(0);
    const ok = await api('POST', '/api/dcim/sites/', [{ name: 'bulk-a', slug: 'bulk-a' }, { name: 'bulk-b', slug: 'bulk-b' }]);
    expect(ok.status).toBe(201);
    expect(await count('dcim_site', `name LIKE 'bulk-%'`)).toBe(2);
  });

  test('a cable trace through two patch panels', async () => {
    const site = await made('/api/dcim/sites/', { name: 'trace', slug: 'trace' });
    const role = await made('/api/dcim/device-roles/', { name: 'trace', slug: 'trace' });
    const manufacturer = await made('/api/dcim/manufacturers/', { name: 'trace', slug: 'trace' });
    const deviceType = await made('/api/dcim/device-types/', { manufacturer, model: 'trace', slug: 'trace' });
    const device = (name: string) => made('/api/dcim/devices/', { name, device_type: deviceType, role, site });
    const iface = async (name: string) => made('/api/dcim/interfaces/', { device: await device(name), name: 'eth0', type: '1000base-t' });
    const panel = async (name: string) => {
      const d = await device(name);
      const rear = await made('/api/dcim/rear-ports/', { device: d, name: 'rear', type: 'lc', positions: 1 });
      const front = await made('/api/dcim/front-ports/', { device: d, name: 'front1', type: 'lc', rear_port: rear, rear_port_position: 1 });
      return { rear, front };
    };
    const [a, b] = [await iface('trace-a'), await iface('trace-b')];
    const [p1, p2] = [await panel('trace-p1'), await panel('trace-p2')];
    const end = (object_type: string, object_id: number) => ({ object_type, object_id });
    const cable = (x: Json, y: Json) => made('/api/dcim/cables/', { a_terminations: [x], b_terminations: [y], status: 'connected' });
    await cable(end('dcim.interface', a), end('dcim.frontport', p1.front));
    await cable(end('dcim.rearport', p1.rear), end('dcim.rearport', p2.rear));
    await cable(end('dcim.frontport', p2.front), end('dcim.interface', b));
    const trace = await api('GET', `/api/dcim/interfaces/${a}/trace/`);
    expect(trace.status).toBe(200);
    const segments = trace.json as Array<Array<Array<{ id: number }>>>;
    expect(segments).toHaveLength(3);
    expect(segments[0]![0]![0]!.id).toBe(a);
    expect(segments[2]![2]![0]!.id).toBe(b);
  });

  test('available-ips from 24 concurrent clients: every address distinct (transaction-scoped advisory locks)', async () => {
    const prefix = await made('/api/ipam/prefixes/', { prefix: '10.26.0.0/27' });
    const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => api('POST', `/api/ipam/prefixes/${prefix}/available-ips/`, { description: `client ${i}` })));
    expect(answers.map((r) => r.status)).toEqual(Array(24).fill(201));
    const addresses = answers.map((r) => (r.json as { address: string }).address);
    expect(new Set(addresses).size).toBe(24);
    expect(await count('ipam_ipaddress', `address <<= '10.26.0.0/27'::inet`)).toBe(24);
  });

  test('a webhook is delivered through the outbox, and the change log names the request', async () => {
    const rx = await startReceiver();
    try {
      const hook = await made('/api/extras/webhooks/', { name: 'rx', payload_url: rx.url });
      await made('/api/extras/event-rules/', { name: 'sites', content_types: ['dcim.site'], type_create: true, action_object_type: 'extras.webhook', action_object_id: hook });
      const created = await api('POST', '/api/dcim/sites/', { name: 'hooked', slug: 'hooked' });
      expect(created.status).toBe(201);
      await until('the webhook delivery', () => rx.delivered.some((r) => (JSON.parse(r.body) as { request_id: string }).request_id === created.requestId), 30_000);
      const changes = await api('GET', `/api/extras/object-changes/?request_id=${created.requestId}`);
      expect((changes.json as { results: Json[] }).results).toEqual([expect.objectContaining({ action: expect.objectContaining({ value: 'create' }), changed_object_type: 'dcim.site', request_id: created.requestId })]);
    } finally {
      await rx.close();
    }
  });

  test('a request whose client leaves has its query cancelled on the server behind PgBouncer', async () => {
    await t.db.sql.query('BEGIN');
    try {
      await t.db.sql.query('LOCK TABLE dcim_site IN ACCESS EXCLUSIVE MODE');
      let sent: { destroy(): void } | undefined;
      const gone = request(`${t.server.url}/api/dcim/sites/`, { headers: t.auth, timeoutMs: 15_000, sent: (r) => (sent = r) });
      await until('the request waiting on the lock', async () => (await waitingOnLock(t.db.sql, t.db.name)) === 1);
      sent!.destroy();
      await gone;
      // The lock is still held: only a cancel that reached the right server connection ends the wait.
      await until('the abandoned query to be cancelled', async () => (await waitingOnLock(t.db.sql, t.db.name)) === 0, 10_000);
    } finally {
      await t.db.sql.query('ROLLBACK');
    }
    expect((await api('GET', '/api/dcim/sites/?limit=1')).status).toBe(200);
  });
});

describeThroughBouncer('session mode through a transaction-mode PgBouncer fails, saying what to set', () => {
  let db: Awaited<ReturnType<typeof scaleOutDatabase>>;
  let lenient: PrivateBouncer | undefined;
  let server: ServerUnderTest | undefined;

  beforeAll(async () => {
    db = await scaleOutDatabase('so_bouncer_session');
    const migrated = runCli(['migrate'], { DATABASE_URL: withDatabase(PRIMARY_URL!, db.name) }, 300_000);
    if (migrated.status !== 0) throw new Error(`migrate failed: ${migrated.stderr}`);
  }, 300_000);

  afterAll(async () => {
    await server?.kill('SIGKILL');
    await lenient?.stop();
    await db?.drop();
  });

  test('PgBouncer refuses the start-up options: the server exits at once with one line naming DATABASE_POOL_MODE', async () => {
    server = await spawnServer({ ...SERVER_ENV, DATABASE_URL: withDatabase(BOUNCER_URL!, db.name) });
    const { code } = await server.exited;
    expect(code).toBe(1);
    expect(server.output()).toMatch(/set DATABASE_POOL_MODE=transaction/);
    expect(server.output()).not.toMatch(/retrying/);
    server = undefined;
  }, 120_000);

  test('with the start-up options ignored, named statements meet other server connections: 503s whose log names DATABASE_POOL_MODE', async () => {
    // What an operator who silenced PgBouncer's refusal would run: the options are dropped, named statements are not.
    lenient = await startPrivateBouncer(PRIMARY_URL!, { ignore_startup_parameters: 'options,statement_timeout', default_pool_size: '2', max_client_conn: '200' });
    server = await startServer({ ...SERVER_ENV, DATABASE_URL: lenient.url(db.name) });
    const auth = { Authorization: `Token ${await makeToken(db.sql)}` };
    const paths = ['/api/dcim/sites/', '/api/dcim/regions/', '/api/ipam/prefixes/', '/api/tenancy/tenants/'];
    const answers = await Promise.all(Array.from({ length: 80 }, (_, i) => request(`${server!.url}${paths[i % paths.length]}?limit=${(i % 7) + 1}`, { headers: auth, timeoutMs: 30_000 })));
    const statuses = answers.map((o) => (o.kind === 'answer' ? o.status : o.kind));
    expect(statuses).toContain(503);
    expect(statuses).not.toContain(500);
    expect(server.output()).toMatch(/set DATABASE_POOL_MODE=transaction/);

    // The same bouncer with DATABASE_POOL_MODE=transaction: every request answered.
    await server.kill('SIGKILL');
    server = await startServer({ ...SERVER_ENV, DATABASE_URL: lenient.url(db.name), DATABASE_POOL_MODE: 'transaction' });
    const again = await Promise.all(Array.from({ length: 80 }, (_, i) => request(`${server!.url}${paths[i % paths.length]}?limit=${(i % 7) + 1}`, { headers: auth, timeoutMs: 30_000 })));
    expect(new Set(again.map((o) => (o.kind === 'answer' ? o.status : o.kind)))).toEqual(new Set([200]));
  }, 300_000);
});
