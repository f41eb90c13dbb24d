/**
 * Event rules, webhooks and the transactional outbox over real HTTP, with a real receiver: the request
 * NetBox sends (body, signature, rendered headers and body template), retries with backoff until the
 * receiver answers, giving up visibly, nothing sent for a rolled-back write, conditions, a burst of
 * 1,000 committed writes delivered exactly once by two dispatchers sharing the outbox, and per-object order.
 */
import crypto from 'node:crypto';
import { startTestApp, type TestApp } from '../support/test-app';
import { Dispatcher } from '../../engine/events/dispatcher';
import { startReceiver, until, type Received } from './receiver';

let t: TestApp;
let dispatchers: Dispatcher[] = [];

beforeAll(async () => {
  t = await startTestApp({ env: { PATCHBAY_EVENTS_POLL: '0.02', PATCHBAY_EVENTS_RETRY_BASE: '0.05', PATCHBAY_EVENTS_MAX_ATTEMPTS: '3', PATCHBAY_WEBHOOK_TIMEOUT: '2' } });
});
afterEach(async () => {
  for (const d of dispatchers) await d.stop();
  dispatchers = [];
  // Each test's rules go, so the next test's writes raise only its own events.
  await t.knex.raw('DELETE FROM "extras_eventrule"');
  await t.knex.raw(`UPDATE "extras_eventdelivery" SET "status" = 'skipped' WHERE "status" = 'pending'`);
});
afterAll(async () => {
  await t.close();
});

function dispatch(n = 1): void {
  for (let i = 0; i < n; i++) {
    const d = new Dispatcher({ knex: t.knex, registry: t.registry, config: t.config, batch: 25 });
    d.start();
    dispatchers.push(d);
  }
}

async function made(path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await t.api.post(path).set(t.auth).send(body as object);
  if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${res.text}`);
  return res.body as Record<string, unknown>;
}

async function rule(url: string, extra: Record<string, unknown> = {}, hook: Record<string, unknown> = {}): Promise<{ webhook: Record<string, unknown>; rule: Record<string, unknown> }> {
  const webhook = await made('/api/extras/webhooks/', { name: `hook-${crypto.randomUUID()}`, payload_url: url, ...hook });
  const r = await made('/api/extras/event-rules/', { name: `rule-${crypto.randomUUID()}`, content_types: ['dcim.site'], type_create: true, type_update: true, type_delete: true, action_type: 'webhook', action_object_type: 'extras.webhook', action_object_id: webhook.id, ...extra });
  return { webhook, rule: r };
}

const json = (r: Received) => JSON.parse(r.body) as Record<string, unknown> & { data: Record<string, unknown>; snapshots: Record<string, Record<string, unknown> | null> };

describe('event rules and webhooks', () => {
  test('NetBox\'s fields; conditions are checked on write; the secret shows only in the webhook\'s own representation', async () => {
    const { webhook, rule: r } = await rule('http://127.0.0.1:9/', {}, { secret: 's3cret' });
    expect(Object.keys(webhook).sort()).toEqual(['additional_headers', 'body_template', 'ca_file_path', 'created', 'custom_fields', 'description', 'display', 'http_content_type', 'http_method', 'id', 'last_updated', 'name', 'payload_url', 'secret', 'ssl_verification', 'tags', 'url'].sort());
    expect(webhook).toMatchObject({ http_method: 'POST', http_content_type: 'application/json', ssl_verification: true, secret: 's3cret' });
    expect(Object.keys(r).sort()).toEqual(['action_object', 'action_object_id', 'action_object_type', 'action_type', 'conditions', 'content_types', 'created', 'custom_fields', 'description', 'display', 'enabled', 'id', 'last_updated', 'name', 'tags', 'type_create', 'type_delete', 'type_job_end', 'type_job_start', 'type_update', 'url'].sort());
    expect(r.action_type).toEqual({ value: 'webhook', label: 'Webhook' });
    expect(r.action_object).toMatchObject({ id: webhook.id, name: webhook.name });
    expect(r.action_object).not.toHaveProperty('secret');
    const bad = await t.api.post('/api/extras/event-rules/').set(t.auth).send({ name: 'bad', content_types: ['dcim.site'], action_object_type: 'extras.webhook', action_object_id: webhook.id, conditions: { and: [{ attr: 'status.value', value: 'x', op: 'gt' }] } });
    expect(bad.status).toBe(400);
    expect(bad.body).toHaveProperty('conditions');
    const notSet = await t.api.post('/api/extras/event-rules/').set(t.auth).send({ name: 'bad2', content_types: ['dcim.site'], action_object_type: 'extras.webhook', action_object_id: webhook.id, conditions: { xor: [] } });
    expect(notSet.status).toBe(400);
    expect((await t.api.get(`/api/extras/webhooks/?secret=s3cret&id=${String(webhook.id)}`).set(t.auth)).body.count).toBe(1);
    expect((await t.api.get(`/api/extras/webhooks/?secret=s3&id=${String(webhook.id)}`).set(t.auth)).body.count).toBe(0);
    // No other lookup reaches a secret: secret__ic is no filter at all, so it narrows nothing.
    const all = (await t.api.get('/api/extras/webhooks/').set(t.auth)).body.count as number;
    expect((await t.api.get('/api/extras/webhooks/?secret__ic=zzz').set(t.auth)).body.count).toBe(all);
    expect((await t.api.get('/api/extras/webhooks/?q=s3cret').set(t.auth)).body.count).toBe(0);
  });

  test('conditions are checked on write as they will be judged: the failing condition is named, and a set is bounded', async () => {
    const webhook = await made('/api/extras/webhooks/', { name: `hook-${crypto.randomUUID()}`, payload_url: 'http://127.0.0.1:9/' });
    const write = (conditions: unknown) => t.api.post('/api/extras/event-rules/').set(t.auth).send({ name: `c-${crypto.randomUUID()}`, content_types: ['dcim.site'], action_object_type: 'extras.webhook', action_object_id: webhook.id, conditions });
    const badRegex = await write({ and: [{ attr: 'name', value: 'ok' }, { or: [{ attr: 'slug', value: '^x', op: 'regex' }, { attr: 'name', value: '(unclosed', op: 'regex' }] }] });
    expect(badRegex.status).toBe(400);
    expect(Object.keys(badRegex.body as object)).toEqual(['conditions']);
    expect(badRegex.body.conditions).toHaveLength(1);
    expect(badRegex.body.conditions[0]).toMatch(/^and\[1\]\.or\[1\]: invalid regular expression: /);
    // The attack that took 13 s per matching write: 1,500 regex conditions, 100 KB.
    const huge = await write({ or: Array.from({ length: 1500 }, (_, i) => ({ attr: 'name', value: `^(a|b)*c${i}$`, op: 'regex' })) });
    expect(huge.status).toBe(400);
    expect(huge.body.conditions[0]).toMatch(/ at most /);
    const many = await write({ or: Array.from({ length: 201 }, (_, i) => ({ attr: 'name', value: `n${i}` })) });
    expect([many.status, many.body]).toEqual([400, { conditions: ['or[200]: a condition set holds at most 200 conditions'] }]);
    const fine = await write({ or: Array.from({ length: 200 }, (_, i) => ({ attr: 'name', value: `^n${i}$`, op: 'regex' })) });
    expect(fine.status).toBe(201);
    const patched = await t.api.patch(`/api/extras/event-rules/${fine.body.id as number}/`).set(t.auth).send({ conditions: { and: [{ attr: 'name', value: '(a)\\1', op: 'regex' }] } });
    expect(patched.status).toBe(400);
    expect(patched.body.conditions[0]).toMatch(/^and\[0\]: invalid regular expression/);
  });

  test('without PATCHBAY_WEBHOOK_CA_DIR no webhook may name a CA file', async () => {
    const res = await t.api.post('/api/extras/webhooks/').set(t.auth).send({ name: 'ca-none', payload_url: 'https://127.0.0.1:9/', ca_file_path: '/etc/ssl/certs/ca-certificates.crt' });
    expect([res.status, res.body]).toEqual([400, { ca_file_path: ['This server takes no CA files: its administrator has not set PATCHBAY_WEBHOOK_CA_DIR.'] }]);
    const none = await t.api.post('/api/extras/webhooks/').set(t.auth).send({ name: 'ca-null', payload_url: 'https://127.0.0.1:9/', ca_file_path: null });
    expect([none.status, none.body.ca_file_path]).toEqual([201, null]);
  });

  test('a create is sent as NetBox sends it: event, model, username, request id, the full object, snapshots, and the signature', async () => {
    const rx = await startReceiver();
    await rule(`${rx.url}/hook/{{ data.slug }}`, {}, { secret: 'topsecret', additional_headers: 'X-Site: {{ data.name }}\nX-Event: {{ event }}' });
    dispatch();
    const res = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'Hooked', slug: 'hooked' });
    expect(res.status).toBe(201);
    await until('the delivery', () => rx.delivered.length === 1);
    const got = rx.delivered[0]!;
    expect(got.method).toBe('POST');
    expect(got.url).toBe('/hook/hooked');
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['x-site']).toBe('Hooked');
    expect(got.headers['x-event']).toBe('created');
    const expected = crypto.createHmac('sha512', 'topsecret').update(Buffer.from(got.body, 'utf8')).digest('hex');
    expect(got.headers['x-hook-signature']).toBe(expected);
    const body = json(got);
    expect(Object.keys(body).sort()).toEqual(['data', 'event', 'model', 'request_id', 'snapshots', 'timestamp', 'username']);
    expect(body).toMatchObject({ event: 'created', model: 'site', request_id: res.headers['x-request-id'] });
    expect(typeof body.username).toBe('string');
    expect(body.data).toEqual(res.body);
    expect(body.snapshots.prechange).toBeNull();
    expect(body.snapshots.postchange).toMatchObject({ name: 'Hooked', slug: 'hooked' });
    const row = (await t.api.get(`/api/extras/event-deliveries/?request_id=${String(res.headers['x-request-id'])}`).set(t.auth)).body.results[0];
    expect(row).toMatchObject({ status: { value: 'delivered' }, attempts: 1, response_status: 200, event: { value: 'created' }, object_type: 'dcim.site', object_id: res.body.id });
    await rx.close();
  });

  test('a body template is rendered with the event\'s context', async () => {
    const rx = await startReceiver();
    await rule(rx.url, {}, { body_template: '{"text": "{{ event }} {{ model }} {{ data.name }} by {{ username }}"}', http_content_type: 'application/x-custom', http_method: 'PUT' });
    dispatch();
    const res = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'Templated', slug: 'templated' });
    await until('the delivery', () => rx.delivered.length === 1);
    expect(rx.delivered[0]!.method).toBe('PUT');
    expect(rx.delivered[0]!.headers['content-type']).toBe('application/x-custom');
    const change = (await t.api.get(`/api/extras/object-changes/?request_id=${String(res.headers['x-request-id'])}`).set(t.auth)).body.results[0] as { user_name: string };
    expect(JSON.parse(rx.delivered[0]!.body)).toEqual({ text: `created site Templated by ${change.user_name}` });
    await rx.close();
  });

  test('a receiver failing 3 times then answering gets the event; one that never answers is given up visibly', async () => {
    let failures = 0;
    const rx = await startReceiver((r) => {
      const name = (JSON.parse(r.body) as { data: { name: string } }).data.name;
      if (name === 'Flaky' && failures < 2) {
        failures++;
        return 503;
      }
      return name === 'Never' ? 500 : 200;
    });
    // 3 attempts allowed (PATCHBAY_EVENTS_MAX_ATTEMPTS): two failures then success; "Never" fails all three.
    await rule(rx.url);
    dispatch();
    const flaky = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'Flaky', slug: 'flaky' });
    const never = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'Never', slug: 'never' });
    await until('the flaky delivery', () => rx.delivered.some((r) => json(r).data.name === 'Flaky'));
    expect(rx.all.filter((r) => json(r).data.name === 'Flaky')).toHaveLength(3);
    const ok = (await t.api.get(`/api/extras/event-deliveries/?request_id=${String(flaky.headers['x-request-id'])}`).set(t.auth)).body.results[0];
    expect(ok).toMatchObject({ status: { value: 'delivered' }, attempts: 3, response_status: 200 });
    await until('giving up', async () => (await t.api.get(`/api/extras/event-deliveries/?request_id=${String(never.headers['x-request-id'])}&status=failed`).set(t.auth)).body.count === 1);
    const failed = (await t.api.get(`/api/extras/event-deliveries/?request_id=${String(never.headers['x-request-id'])}`).set(t.auth)).body.results[0];
    expect(failed).toMatchObject({ status: { value: 'failed', label: 'Failed' }, attempts: 3, response_status: 500 });
    expect(failed.last_error).toContain('Status 500');
    expect(rx.all.filter((r) => json(r).data.name === 'Never')).toHaveLength(3);
    await rx.close();
  });

  test('a receiver failing 3 times then succeeding gets the event (with more attempts allowed)', async () => {
    let n = 0;
    const rx = await startReceiver(() => (++n <= 3 ? 502 : 200));
    await rule(rx.url);
    const d = new Dispatcher({ knex: t.knex, registry: t.registry, config: { ...t.config, eventsMaxAttempts: 5 } });
    d.start();
    dispatchers.push(d);
    const res = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'Thrice', slug: 'thrice' });
    await until('the delivery', () => rx.delivered.length === 1);
    expect(rx.all).toHaveLength(4);
    expect(json(rx.delivered[0]!).request_id).toBe(res.headers['x-request-id']);
    await rx.close();
  });

  test('a bulk write failing on its last element sends nothing and stores nothing', async () => {
    const rx = await startReceiver();
    await rule(rx.url);
    dispatch();
    const body = [...Array.from({ length: 5 }, (_, i) => ({ name: `rolled-${i}`, slug: `rolled-${i}` })), { name: 'rolled-0', slug: 'rolled-0' }];
    const res = await t.api.post('/api/dcim/sites/').set(t.auth).send(body);
    expect(res.status).toBe(400);
    const after = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'after-rollback', slug: 'after-rollback' });
    await until('the later delivery', () => rx.delivered.length === 1);
    expect(json(rx.delivered[0]!).request_id).toBe(after.headers['x-request-id']);
    expect((await t.api.get(`/api/extras/event-deliveries/?request_id=${String(res.headers['x-request-id'])}`).set(t.auth)).body.count).toBe(0);
    await rx.close();
  });

  test('conditions are judged on the object\'s data: only matching events are sent', async () => {
    const rx = await startReceiver();
    await rule(rx.url, { conditions: { and: [{ attr: 'status.value', value: 'active' }, { or: [{ attr: 'name', value: '^cond-', op: 'regex' }, { attr: 'description', value: 'always', op: 'contains' }] }] } });
    dispatch();
    const yes = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'cond-yes', slug: 'cond-yes', status: 'active' });
    const no = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'cond-no', slug: 'cond-no', status: 'planned' });
    const also = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'other', slug: 'cond-other', description: 'always sent' });
    await until('two deliveries', async () => (await t.api.get('/api/extras/event-deliveries/?status=pending&limit=1').set(t.auth)).body.count === 0 && rx.delivered.length >= 2);
    expect(rx.delivered.map((r) => json(r).request_id).sort()).toEqual([yes.headers['x-request-id'], also.headers['x-request-id']].sort());
    const skipped = (await t.api.get(`/api/extras/event-deliveries/?request_id=${String(no.headers['x-request-id'])}`).set(t.auth)).body.results[0];
    expect(skipped.status.value).toBe('skipped');
    await rx.close();
  });

  test('a burst of 1,000 committed writes: exactly the expected deliveries, with two dispatchers sharing the outbox, in order per object', async () => {
    const rx = await startReceiver();
    await rule(rx.url, { type_create: false, type_delete: false });
    const sites = (await t.api.post('/api/dcim/sites/').set(t.auth).send(Array.from({ length: 50 }, (_, i) => ({ name: `burst-${i}`, slug: `burst-${i}` })))).body as Array<{ id: number }>;
    dispatch(2);
    // 1,000 single PATCHes, 20 per site, 10 at a time: each site's descriptions 0..19 in commit order.
    const expected = new Set<string>();
    const jobs = sites.flatMap((s) => Array.from({ length: 20 }, (_, k) => ({ id: s.id, k })));
    let next = 0;
    const workers = Array.from({ length: 10 }, async () => {
      for (let j = next++; j < jobs.length; j = next++) {
        const { id, k } = jobs[j]!;
        const res = await t.api.patch(`/api/dcim/sites/${id}/`).set(t.auth).send({ description: `${id}-${k}-${j}` });
        expect(res.status).toBe(200);
        expected.add(String(res.headers['x-request-id']));
      }
    });
    // Sites are patched by several workers at once: the order of commits per site is read back from the change log.
    await Promise.all(workers);
    expect(expected.size).toBe(1000);
    await until('1,000 deliveries', () => rx.delivered.length >= 1000, 120_000);
    await new Promise((r) => setTimeout(r, 300));
    const got = rx.delivered.map((r) => json(r));
    expect(got).toHaveLength(1000);
    expect(new Set(got.map((b) => b.request_id))).toEqual(expected);
    for (const s of sites) {
      const commits = (await t.api.get(`/api/extras/object-changes/?changed_object_type=dcim.site&changed_object_id=${s.id}&action=update&limit=100&ordering=id`).set(t.auth)).body.results as Array<{ request_id: string }>;
      const delivered = got.filter((b) => b.data.id === s.id).map((b) => b.request_id);
      expect(delivered).toEqual(commits.map((c) => c.request_id));
    }
    await rx.close();
  }, 180_000);
});
