import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { ApiClient, isObject, listBody } from './http-client';
import type { DatabaseTarget } from './database-target';

/**
 * The conditions the write phases run under, to show what the change log and events cost:
 * - `log`: as served (every write logged by the change log's triggers, no event rule);
 * - `nolog`: the change log's triggers on the written table disabled for the phase (PostgreSQL only:
 *   the bench reaches the database beside the server; there is no setting that turns logging off);
 * - `webhook`: logged, and one enabled event rule sending every create, update and delete of the written
 *   type to a receiver in the bench process, delivered by the server's own dispatcher meanwhile.
 */
export const WRITE_MODES = ['log', 'nolog', 'webhook'] as const;
export type WriteMode = (typeof WRITE_MODES)[number];

export interface ModeRun {
  /** Undoes what setup did; for webhook, first waits for the outbox to drain and says how long it took. */
  finish(): Promise<string | null>;
}

const TABLE = 'ipam_ipaddress';

export async function setupMode(mode: WriteMode, api: ApiClient, target: DatabaseTarget): Promise<ModeRun | string> {
  if (mode === 'log') return { finish: async () => null };
  if (mode === 'nolog') {
    if (!target.connection.url) return 'nolog needs PostgreSQL (the embedded database serves only the server process)';
    const client = new pg.Client({ connectionString: target.connection.url });
    await client.connect();
    await client.query(`ALTER TABLE "${TABLE}" DISABLE TRIGGER USER`);
    return {
      finish: async () => {
        await client.query(`ALTER TABLE "${TABLE}" ENABLE TRIGGER USER`);
        await client.end();
        return null;
      },
    };
  }
  let received = 0;
  const rx = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => rx.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(rx.address() as AddressInfo).port}/`;
  const hook = await api.request('POST', '/api/extras/webhooks/', { name: `bench-${Date.now()}`, payload_url: url });
  if (hook.status !== 201 || !isObject(hook.json)) return `webhook: ${hook.status}`;
  const rule = await api.request('POST', '/api/extras/event-rules/', {
    name: `bench-${Date.now()}`, content_types: ['ipam.ipaddress'], type_create: true, type_update: true, type_delete: true,
    action_object_type: 'extras.webhook', action_object_id: hook.json.id as number,
  });
  if (rule.status !== 201 || !isObject(rule.json)) return `event rule: ${rule.status}`;
  const ruleId = rule.json.id as number;
  const t0 = performance.now();
  return {
    finish: async () => {
      const drained = performance.now();
      let pending = -1;
      for (let i = 0; i < 600; i++) {
        pending = listBody((await api.get('/api/extras/event-deliveries/?status=pending&limit=1&brief=1')).json)?.count ?? -1;
        if (pending === 0) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      const after = (performance.now() - drained) / 1000;
      await api.request('DELETE', `/api/extras/event-rules/${ruleId}/`);
      await new Promise<void>((resolve) => rx.close(() => resolve()));
      return `webhook: ${received} deliveries received; the outbox drained ${after.toFixed(1)} s after the last write (${((performance.now() - t0) / 1000).toFixed(1)} s in all)${pending ? `, ${pending} still pending` : ''}`;
    },
  };
}
