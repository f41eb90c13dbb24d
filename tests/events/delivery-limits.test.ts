/**
 * What no webhook may do to the dispatcher, over real HTTP with real receivers: stall it (a receiver that
 * drips or never answers: one deadline per request, capped reads, other webhooks' deliveries made
 * meanwhile), crash or loop it (a row whose dispatcher died on its last attempt is failed, never claimed
 * again), exhaust it (ca_file_path reads only capped regular files of the administrator's directory),
 * reach what it should not (the network policy, on the address connected to) or learn from it (the
 * receiver's answer is never stored), or add headers through object data.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { startTestApp, type TestApp } from '../support/test-app';
import { Dispatcher } from '../../engine/events/dispatcher';
import type { Config } from '../../engine/config';
import { startHangingReceiver, startRawServer, startReceiver, until } from './receiver';
import { TEST_TLS_CERT, TEST_TLS_KEY } from './tls-fixture';

let t: TestApp;
let caDir: string;
let dispatchers: Dispatcher[] = [];
const CA_MAX = 4096;
const REFUSED_CA = `Must name a regular file of at most ${CA_MAX} bytes in the server's CA directory.`;
const REFUSED_DESTINATION = 'the destination address is not allowed by the network policy (PATCHBAY_WEBHOOK_ALLOW_NETWORKS, PATCHBAY_WEBHOOK_DENY_NETWORKS)';

beforeAll(async () => {
  caDir = fs.mkdtempSync(path.join(os.tmpdir(), 'patchbay-ca-'));
  t = await startTestApp({
    env: {
      PATCHBAY_EVENTS_POLL: '0.02',
      PATCHBAY_EVENTS_RETRY_BASE: '0.05',
      PATCHBAY_EVENTS_MAX_ATTEMPTS: '1',
      PATCHBAY_WEBHOOK_TIMEOUT: '2',
      PATCHBAY_WEBHOOK_CA_DIR: caDir,
      PATCHBAY_WEBHOOK_CA_MAX_SIZE: String(CA_MAX),
    },
  });
});
afterEach(async () => {
  for (const d of dispatchers) await d.stop();
  dispatchers = [];
  await t.knex.raw('DELETE FROM "extras_eventrule"');
  await t.knex.raw(`UPDATE "extras_eventdelivery" SET "status" = 'skipped' WHERE "status" = 'pending'`);
});
afterAll(async () => {
  await t.close();
  fs.rmSync(caDir, { recursive: true, force: true });
});

function dispatch(config: Partial<Config> = {}): Dispatcher {
  const d = new Dispatcher({ knex: t.knex, registry: t.registry, config: { ...t.config, ...config } });
  d.start();
  dispatchers.push(d);
  return d;
}

async function made(p: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await t.api.post(p).set(t.auth).send(body as object);
  if (res.status !== 201) throw new Error(`POST ${p}: ${res.status} ${res.text}`);
  return res.body as Record<string, unknown>;
}

async function hook(url: string, extra: Record<string, unknown> = {}): Promise<number> {
  return (await made('/api/extras/webhooks/', { name: `hook-${crypto.randomUUID()}`, payload_url: url, ...extra })).id as number;
}

async function rule(webhook: number, extra: Record<string, unknown> = {}): Promise<number> {
  return (await made('/api/extras/event-rules/', { name: `rule-${crypto.randomUUID()}`, content_types: ['dcim.site'], type_create: true, type_update: true, action_object_type: 'extras.webhook', action_object_id: webhook, ...extra })).id as number;
}

async function site(name: string): Promise<{ id: number; rid: string }> {
  const res = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name, slug: crypto.randomUUID() });
  if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
  return { id: res.body.id as number, rid: String(res.headers['x-request-id']) };
}

type Delivery = { status: { value: string }; attempts: number; response_status: number | null; last_error: string; webhook: { id: number } | null; event_rule: { id: number } | null };

async function deliveries(query: string): Promise<Delivery[]> {
  const res = await t.api.get(`/api/extras/event-deliveries/?${query}&limit=1000`).set(t.auth);
  if (res.status !== 200) throw new Error(`${res.status} ${res.text}`);
  return res.body.results as Delivery[];
}

/** The one delivery of a request, once it is no longer pending. */
async function settled(rid: string, timeoutMs = 30_000): Promise<Delivery> {
  let row: Delivery | undefined;
  await until(`the delivery of ${rid}`, async () => {
    [row] = await deliveries(`request_id=${rid}`);
    return row !== undefined && row.status.value !== 'pending';
  }, timeoutMs);
  return row!;
}

describe('ca_file_path', () => {
  const inDir = (name: string) => path.join(caDir, name);

  beforeAll(() => {
    fs.writeFileSync(inDir('ca.pem'), 'a CA, small enough\n');
    fs.writeFileSync(inDir('big.pem'), 'x'.repeat(CA_MAX + 1));
    fs.symlinkSync('/etc/hostname', inDir('outside.pem'));
    fs.mkdirSync(inDir('sub'));
    execFileSync('mkfifo', [inDir('fifo.pem')]);
  });

  test('on write: a regular file of the directory, within the size cap; any other path gets one and the same 400', async () => {
    const ok = await t.api.post('/api/extras/webhooks/').set(t.auth).send({ name: 'ca-ok', payload_url: 'https://127.0.0.1:9/', ca_file_path: inDir('ca.pem') });
    expect(ok.status).toBe(201);
    expect(ok.body.ca_file_path).toBe(inDir('ca.pem'));
    for (const bad of ['/etc/passwd', '/nonexistent/ca.pem', '/dev/zero', '/proc/self/environ', `${caDir}/../${path.basename(caDir)}-x/ca.pem`, inDir('missing.pem'), inDir('big.pem'), inDir('outside.pem'), inDir('sub'), inDir('fifo.pem'), caDir, 'ca.pem/../../etc/passwd']) {
      const res = await t.api.post('/api/extras/webhooks/').set(t.auth).send({ name: `ca-${crypto.randomUUID()}`, payload_url: 'https://127.0.0.1:9/', ca_file_path: bad });
      expect([bad, res.status, res.body]).toEqual([bad, 400, { ca_file_path: [REFUSED_CA] }]);
    }
    const patched = await t.api.patch(`/api/extras/webhooks/${ok.body.id as number}/`).set(t.auth).send({ ca_file_path: '/etc/passwd' });
    expect([patched.status, patched.body]).toEqual([400, { ca_file_path: [REFUSED_CA] }]);
    const cleared = await t.api.patch(`/api/extras/webhooks/${ok.body.id as number}/`).set(t.auth).send({ ca_file_path: null });
    expect([cleared.status, cleared.body.ca_file_path]).toEqual([200, null]);
  });

  test('at delivery: checked again on the file itself (replaced since by a link out of the directory, or grown past the cap), and nothing is sent', async () => {
    const tcp = await startRawServer((s) => s.destroy());
    fs.writeFileSync(inDir('swapped.pem'), 'fine for now\n');
    fs.writeFileSync(inDir('grown.pem'), 'fine for now\n');
    await rule(await hook(`https://127.0.0.1:${tcp.port}/`, { ca_file_path: inDir('swapped.pem') }));
    await rule(await hook(`https://127.0.0.1:${tcp.port}/`, { ca_file_path: inDir('grown.pem') }));
    fs.rmSync(inDir('swapped.pem'));
    fs.symlinkSync('/etc/hostname', inDir('swapped.pem'));
    fs.writeFileSync(inDir('grown.pem'), 'y'.repeat(CA_MAX + 1));
    const s = await site('ca-at-delivery');
    dispatch();
    await settled(s.rid);
    await until('both deliveries', async () => (await deliveries(`request_id=${s.rid}&status=failed`)).length === 2);
    for (const row of await deliveries(`request_id=${s.rid}`)) {
      expect(row).toMatchObject({ status: { value: 'failed' }, response_status: null, last_error: `ca_file_path: ${REFUSED_CA}` });
    }
    expect(tcp.connections).toHaveLength(0);
    await tcp.close();
  });

  test('a CA file of the directory is what the delivery trusts', async () => {
    const cert = inDir('receiver.pem');
    fs.writeFileSync(cert, TEST_TLS_CERT);
    const got: string[] = [];
    const server = https.createServer({ key: TEST_TLS_KEY, cert: TEST_TLS_CERT }, (req, res) => {
      req.resume();
      req.on('end', () => {
        got.push(req.url ?? '');
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await rule(await hook(`${url}/trusted`, { ca_file_path: cert }));
    await rule(await hook(`${url}/untrusted`));
    const s = await site('ca-trusted');
    dispatch();
    await until('both deliveries', async () => (await deliveries(`request_id=${s.rid}&status=pending`)).length === 0);
    expect(got).toEqual(['/trusted']);
    const failed = await deliveries(`request_id=${s.rid}&status=failed`);
    expect(failed).toHaveLength(1);
    expect(failed[0]!.last_error).toBe("TLS: the server's certificate was not accepted (DEPTH_ZERO_SELF_SIGNED_CERT)");
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
});

describe('the destination network policy', () => {
  test('by default the link-local metadata address is refused before any connection', async () => {
    await rule(await hook('http://169.254.169.254/latest/meta-data/'));
    const s = await site('metadata');
    dispatch();
    expect(await settled(s.rid)).toMatchObject({ status: { value: 'failed' }, response_status: null, last_error: REFUSED_DESTINATION });
  });

  test('judged on the address connected to: a host name after resolution, a literal, an IPv4-mapped IPv6 address; the most specific network decides', async () => {
    const rx = await startReceiver();
    const port = new URL(rx.url).port;
    for (const host of ['localhost', '127.0.0.1', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]']) await rule(await hook(`http://${host}:${port}/${encodeURIComponent(host)}`));
    const refused = await site('loopback-denied');
    dispatch({ webhookDenyNetworks: ['127.0.0.0/8', '::1/128'] });
    await until('four refusals', async () => (await deliveries(`request_id=${refused.rid}&status=failed`)).length === 4);
    for (const row of await deliveries(`request_id=${refused.rid}`)) expect(row).toMatchObject({ status: { value: 'failed' }, last_error: REFUSED_DESTINATION });
    expect(rx.all).toHaveLength(0);
    for (const d of dispatchers) await d.stop();
    dispatchers = [];

    // A more specific allow wins over the deny around it.
    const allowed = await site('loopback-allowed');
    dispatch({ webhookDenyNetworks: ['127.0.0.0/8', '::1/128'], webhookAllowNetworks: ['127.0.0.1/32'] });
    await until('four deliveries', async () => (await deliveries(`request_id=${allowed.rid}&status=delivered`)).length === 4);
    expect(rx.delivered.map((r) => r.url).sort()).toEqual(['/%5B%3A%3Affff%3A127.0.0.1%5D', '/%5B%3A%3Affff%3A7f00%3A1%5D', '/127.0.0.1', '/localhost'].sort());
    await rx.close();
  });

  test('the answer of a receiver is never stored: the status and a reason only', async () => {
    const rx = await startReceiver(() => 500);
    await rule(await hook(rx.url));
    dispatch();
    // The receiver answers 500 with a body ("receiver refused"): only the status is kept.
    const s = await site('no-oracle');
    expect(await settled(s.rid)).toMatchObject({ status: { value: 'failed' }, response_status: 500, last_error: 'Status 500 returned' });
    await rx.close();
    // Nothing listens there any more: the reason, without the address.
    const closed = await site('closed-port');
    expect(await settled(closed.rid)).toMatchObject({ status: { value: 'failed' }, response_status: null, last_error: 'the connection was refused' });
  });
});

describe('headers', () => {
  test('object data rendered into a header value cannot add a header line: the delivery fails with the reason', async () => {
    const rx = await startReceiver();
    await rule(await hook(rx.url, { additional_headers: 'X-Site: {{ data.name }}\nX-Static: fixed' }));
    dispatch();
    const fine = await site('plain name');
    await until('the plain delivery', () => rx.delivered.length === 1);
    expect(rx.delivered[0]!.headers).toMatchObject({ 'x-site': 'plain name', 'x-static': 'fixed' });
    const evil = await site('nl\nX-Evil: 1');
    expect(await settled(evil.rid)).toMatchObject({ status: { value: 'failed' }, response_status: null, last_error: 'header X-Site: its rendered value holds a line break' });
    expect(rx.all).toHaveLength(1);
    expect(rx.all.some((r) => 'x-evil' in r.headers)).toBe(false);
    expect(fine.id).toBeGreaterThan(0);
    await rx.close();
  });

  test('header names must be tokens, and the request\'s framing is Patchbay\'s', async () => {
    const rx = await startReceiver();
    await rule(await hook(rx.url, { additional_headers: 'Bad Name: 1' }));
    await rule(await hook(rx.url, { additional_headers: 'X-Fine: 1\nContent-Length: 5' }));
    const s = await site('bad header names');
    dispatch();
    await until('two failures', async () => (await deliveries(`request_id=${s.rid}&status=failed`)).length === 2);
    expect((await deliveries(`request_id=${s.rid}`)).map((r) => r.last_error).sort()).toEqual(['additional_headers line 1: "Bad Name" is not a header name', 'additional_headers line 2: Content-Length is set by Patchbay']);
    expect(rx.all).toHaveLength(0);
    await rx.close();
  });
});

describe('slow receivers', () => {
  test('a receiver dripping its answer a byte at a time is cut at the deadline (connect, headers and body together)', async () => {
    const drip = await startRawServer((socket) => {
      socket.once('data', () => {
        socket.write('HTTP/1.1 200 OK\r\n');
        const timer = setInterval(() => (socket.writable ? socket.write('X') : clearInterval(timer)), 300);
        socket.on('close', () => clearInterval(timer));
      });
    });
    await rule(await hook(drip.url));
    const s = await site('dripped');
    dispatch();
    expect(await settled(s.rid)).toMatchObject({ status: { value: 'failed' }, response_status: null, last_error: 'no answer within 2 seconds' });
    await drip.close();
  });

  test('an answer without end is read to the cap and no further', async () => {
    let sent = 0;
    const flood = await startRawServer((socket) => {
      socket.once('data', () => {
        socket.write('HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain\r\n\r\n');
        const chunk = Buffer.alloc(16_384, 'z');
        const more = () => {
          while (socket.writable && sent < 200_000_000 && socket.write(chunk)) sent += chunk.length;
        };
        socket.on('drain', more);
        more();
      });
    });
    await rule(await hook(flood.url));
    const s = await site('flooded');
    dispatch({ webhookTimeoutMs: 60_000 });
    expect(await settled(s.rid)).toMatchObject({ status: { value: 'failed' }, response_status: 500, last_error: 'Status 500 returned' });
    // The connection was closed long before the receiver ran out of things to send.
    expect(sent).toBeLessThan(200_000_000);
    await flood.close();
  });

  test('healthy webhooks\' deliveries are all made while another webhook\'s receiver, on the same objects, never answers', async () => {
    const hanging = await startHangingReceiver();
    const rx = await startReceiver();
    try {
      // The hanging rule first: its rows come before the healthy ones for every object.
      const hangingRule = await rule(await hook(hanging.url));
      await rule(await hook(rx.url));
      const sites: number[] = [];
      for (let i = 0; i < 40; i++) sites.push((await site(`beside-${i}`)).id);
      for (const id of sites) expect((await t.api.patch(`/api/dcim/sites/${id}/`).set(t.auth).send({ description: 'second' })).status).toBe(200);
      // A deadline far beyond the test's wait: every healthy delivery must land while the hanging ones are still under way.
      dispatch({ webhookTimeoutMs: 600_000 });
      await until('80 healthy deliveries', () => rx.delivered.length === 80, 60_000);
      await until('the hanging webhook to hold its share of the slots', () => hanging.open() === t.config.eventsPerWebhook);
      expect(hanging.requests).toHaveLength(t.config.eventsPerWebhook);
      // In commit order per object: each site's create, then its update.
      for (const id of sites) {
        const events = rx.delivered.map((r) => JSON.parse(r.body) as { event: string; data: { id: number } }).filter((b) => b.data.id === id).map((b) => b.event);
        expect(events).toEqual(['created', 'updated']);
      }
      const stuck = await deliveries(`event_rule_id=${hangingRule}`);
      expect(stuck.filter((r) => r.status.value === 'pending' && r.attempts === 1)).toHaveLength(t.config.eventsPerWebhook);
      expect(stuck.filter((r) => r.status.value === 'pending' && r.attempts === 0)).toHaveLength(80 - t.config.eventsPerWebhook);

      // Deleting the hanging rule: its rows that were waiting are skipped at once; those under way run on to their deadline.
      expect((await t.api.delete(`/api/extras/event-rules/${hangingRule}/`).set(t.auth)).status).toBe(204);
      const orphans = async () => Number(((await t.knex.raw(`SELECT count(*)::int AS "n" FROM "extras_eventdelivery" WHERE "status" = 'pending' AND "event_rule_id" IS NULL`)) as { rows: Array<{ n: number }> }).rows[0]!.n);
      await until('the deleted rule\'s waiting rows skipped', async () => (await orphans()) === t.config.eventsPerWebhook, 30_000);
      const skipped = await deliveries(`status=skipped&last_error=${encodeURIComponent('the event rule was deleted')}`);
      expect(skipped).toHaveLength(80 - t.config.eventsPerWebhook);
    } finally {
      await hanging.close();
      await rx.close();
    }
  }, 120_000);
});

describe('order per (object, webhook)', () => {
  async function blockedBehindRetry(): Promise<{ first: number; second: number; rid: string; rx: Awaited<ReturnType<typeof startReceiver>> }> {
    // The first request fails; its retry is an hour away. The second rule's row, same object and webhook, waits behind it.
    const rx = await startReceiver((_r, n) => (n === 1 ? 503 : 200));
    const w = await hook(rx.url);
    const first = await rule(w);
    const second = await rule(w);
    const s = await site(`blocked-${crypto.randomUUID()}`);
    dispatch({ eventsMaxAttempts: 5, eventsRetryBaseMs: 3_600_000 });
    await until('the first attempt', async () => (await deliveries(`event_rule_id=${first}&request_id=${s.rid}`))[0]?.response_status === 503);
    const waiting = await deliveries(`event_rule_id=${second}&request_id=${s.rid}`);
    expect(waiting).toMatchObject([{ status: { value: 'pending' }, attempts: 0 }]);
    return { first, second, rid: s.rid, rx };
  }

  test('disabling a rule: its rows stop holding back the same webhook\'s later rows at once, and are skipped', async () => {
    const { first, second, rid, rx } = await blockedBehindRetry();
    expect((await t.api.patch(`/api/extras/event-rules/${first}/`).set(t.auth).send({ enabled: false })).status).toBe(200);
    await until('the second rule\'s delivery', async () => (await deliveries(`event_rule_id=${second}&request_id=${rid}&status=delivered`)).length === 1);
    await until('the first rule\'s row skipped', async () => (await deliveries(`event_rule_id=${first}&request_id=${rid}&status=skipped`)).length === 1);
    expect((await deliveries(`event_rule_id=${first}&request_id=${rid}`))[0]!.last_error).toBe('the event rule is disabled');
    expect(rx.all).toHaveLength(2);
    await rx.close();
  });

  test('deleting a rule: the same', async () => {
    const { first, second, rid, rx } = await blockedBehindRetry();
    expect((await t.api.delete(`/api/extras/event-rules/${first}/`).set(t.auth)).status).toBe(204);
    await until('the second rule\'s delivery', async () => (await deliveries(`event_rule_id=${second}&request_id=${rid}&status=delivered`)).length === 1);
    await until('the first rule\'s row skipped', async () => (await deliveries(`request_id=${rid}&status=skipped`)).length === 1);
    expect((await deliveries(`request_id=${rid}&status=skipped`))[0]!.last_error).toBe('the event rule was deleted');
    await rx.close();
  });

  test('the outbox row names the webhook it is ordered by', async () => {
    const rx = await startReceiver();
    const w = await hook(rx.url);
    const r = await rule(w);
    const s = await site('named-webhook');
    const [row] = await deliveries(`request_id=${s.rid}`);
    expect(row).toMatchObject({ webhook: { id: w }, event_rule: { id: r } });
    await rx.close();
  });
});

describe('attempts', () => {
  test('a row whose dispatcher died on its last attempt (lease run out, no attempts left) is failed with the reason, never sent again', async () => {
    const rx = await startReceiver();
    await rule(await hook(rx.url));
    const dead = await site('died-on-last-attempt');
    const spare = await site('died-with-one-left');
    // What dispatchers that died mid-delivery leave: leases run out, attempts counted.
    await t.knex.raw(`UPDATE "extras_eventdelivery" SET "attempts" = 3, "lease_until" = now() - interval '1 second' WHERE "request_id" = ?`, [dead.rid]);
    await t.knex.raw(`UPDATE "extras_eventdelivery" SET "attempts" = 2, "lease_until" = now() - interval '1 second' WHERE "request_id" = ?`, [spare.rid]);
    dispatch({ eventsMaxAttempts: 3 });
    expect(await settled(dead.rid)).toMatchObject({ status: { value: 'failed' }, attempts: 3, response_status: null, last_error: 'the delivery did not finish within its lease' });
    expect(await settled(spare.rid)).toMatchObject({ status: { value: 'delivered' }, attempts: 3, response_status: 200 });
    expect(rx.all.map((r) => (JSON.parse(r.body) as { request_id: string }).request_id)).toEqual([spare.rid]);
    await rx.close();
  });
});
