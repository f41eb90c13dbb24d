/**
 * `patchbay worker`: with PATCHBAY_EVENTS_DISPATCH=false the server stores events but sends none; a
 * separate worker process (the compiled CLI) delivers them, and stops cleanly on SIGTERM.
 * PostgreSQL only (the embedded database belongs to one process): skipped on the embedded database.
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import { BIN, ROOT, cleanEnv, runCli } from '../cli/cli-support';
import { databaseUrl, describeOnPostgres, freshDatabase, startServer, type ServerUnderTest } from '../faults/fault-server';
import { startReceiver, until } from './receiver';

describeOnPostgres('patchbay worker', () => {
  test('delivers what a server that does not dispatch stored, and exits 0 on SIGTERM', async () => {
    const db = await freshDatabase();
    const rx = await startReceiver();
    const where = { DATABASE_URL: databaseUrl(db.name) };
    const env = { ...where, PATCHBAY_WORKERS: '1', PATCHBAY_EVENTS_POLL: '0.02' };
    let server: ServerUnderTest | undefined;
    try {
      const key = crypto.randomBytes(20).toString('hex');
      expect(runCli(['createsuperuser', '--username', 'w', '--password', 'pw', '--token', key], where).status).toBe(0);
      server = await startServer({ ...env, PATCHBAY_EVENTS_DISPATCH: 'false' });
      const post = (path: string, body: unknown) =>
        fetch(`${server!.url}${path}`, { method: 'POST', headers: { Authorization: `Token ${key}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      const hook = (await (await post('/api/extras/webhooks/', { name: 'rx', payload_url: rx.url })).json()) as { id: number };
      expect((await post('/api/extras/event-rules/', { name: 'r', content_types: ['dcim.site'], type_create: true, action_object_type: 'extras.webhook', action_object_id: hook.id })).status).toBe(201);
      const site = await post('/api/dcim/sites/', { name: 'worker-site', slug: 'worker-site' });
      expect(site.status).toBe(201);
      await new Promise((r) => setTimeout(r, 500));
      expect(rx.all).toHaveLength(0);

      const worker = spawn(process.execPath, [BIN, 'worker'], { cwd: ROOT, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
      const exited = new Promise<number | null>((resolve) => worker.once('exit', (code) => resolve(code)));
      try {
        await until('the worker to deliver', () => rx.delivered.length === 1, 30_000);
        expect((JSON.parse(rx.delivered[0]!.body) as { request_id: string }).request_id).toBe(site.headers.get('x-request-id'));
      } finally {
        worker.kill('SIGTERM');
      }
      expect(await exited).toBe(0);
    } finally {
      await server?.kill('SIGKILL');
      await rx.close();
      await db.drop();
    }
  }, 120_000);
});
