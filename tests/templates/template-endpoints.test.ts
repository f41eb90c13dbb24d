/**
 * Every place a user's template is rendered, over real HTTP: a config template's render/, an export
 * template's ?export=, and a webhook's payload_url, additional_headers and body_template. The escape that
 * ran code as the server on 8e8f64f (and the same escape through each field) renders as harmless text or
 * fails; templates that killed the process (string doubling, two lists of 20 million) are a 400; the
 * server and /api/status/ are alive afterwards; a full render queue is a 503 with Retry-After.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestApp, type TestApp } from '../support/test-app';
import { Dispatcher } from '../../engine/events/dispatcher';
import { startReceiver, until } from '../events/receiver';

let t: TestApp;
const CANARY = `canary-${crypto.randomUUID()}`;
/** A file of the host's with the canary in it: a template must not read it. */
const CANARY_FILE = path.join(os.tmpdir(), `patchbay-canary-${crypto.randomUUID()}.txt`);

beforeAll(async () => {
  process.env.PATCHBAY_TEST_CANARY = CANARY;
  fs.writeFileSync(CANARY_FILE, CANARY);
  t = await startTestApp({ env: { PATCHBAY_TEMPLATE_TIMEOUT: '3', PATCHBAY_TEMPLATE_MAX_MEMORY: '67108864', PATCHBAY_TEMPLATE_WORKERS: '1', PATCHBAY_TEMPLATE_QUEUE: '1', PATCHBAY_EVENTS_POLL: '0.05', PATCHBAY_EVENTS_MAX_ATTEMPTS: '1' } });
});
afterAll(async () => {
  delete process.env.PATCHBAY_TEST_CANARY;
  fs.rmSync(CANARY_FILE, { force: true });
  await t.close();
});

async function made(path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await t.api.post(path).set(t.auth).send(body as object);
  if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${res.text}`);
  return res.body as Record<string, unknown>;
}

/** The reported escape: a command's output, a file, the environment, through Nunjucks' member guard. */
const RUN = (js: string) => `{% set o = {"s": __lookupSetter__("__proto__")} %}{{ o.s(range) }}{{ o[["constructor"]]("${js}")() }}`;
const COMMAND = RUN(`return require('child_process').execSync('id').toString()`);
const FILE = RUN(`return require('fs').readFileSync('${CANARY_FILE}', 'utf8')`);
const ENVIRONMENT = RUN(`return JSON.stringify(process.env)`);
const DOUBLING = '{% set s = "xxxxxxxxxxxxxxxx" %}{% for i in range(0, 23) %}{% set s = s ~ s %}{% endfor %}{{ s|list|length }}';
const TWO_RANGES = '{% set a = range(0, 20000000) %}{% set b = range(0, 20000000) %}{{ a|length }}';

function expectHarmless(text: string): void {
  expect(text).not.toMatch(/uid=\d+/);
  expect(text).not.toContain(CANARY);
  expect(text).not.toContain('DATABASE_URL');
}

async function expectAlive(): Promise<void> {
  const status = await t.api.get('/api/status/');
  expect(status.status).toBe(200);
  expect(status.body['database-status']).toBe('ok');
}

describe('config templates: render/', () => {
  test.each([['a command', COMMAND], ['a file', FILE], ['the environment', ENVIRONMENT]])('the escape reaching %s renders harmless text or a 400', async (_what, code) => {
    const tpl = await made('/api/extras/config-templates/', { name: `escape-${crypto.randomUUID()}`, template_code: code });
    const res = await t.api.post(`/api/extras/config-templates/${tpl.id as number}/render/`).set(t.auth).send({});
    expect([200, 400]).toContain(res.status);
    expectHarmless(res.text);
    await expectAlive();
  });

  test.each([['string doubling', DOUBLING], ['two lists of 20 million', TWO_RANGES]])('%s is a 400 and the server lives on', async (_what, code) => {
    const tpl = await made('/api/extras/config-templates/', { name: `runaway-${crypto.randomUUID()}`, template_code: code });
    const res = await t.api.post(`/api/extras/config-templates/${tpl.id as number}/render/`).set(t.auth).send({});
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/^An error occurred while rendering the template \(line unknown\): (it needed more memory than a rendering may use \(64 MB\)|rendering took longer than 3 seconds)$/);
    await expectAlive();
    const ok = await made('/api/extras/config-templates/', { name: `after-${crypto.randomUUID()}`, template_code: 'hostname {{ name }}' });
    const after = await t.api.post(`/api/extras/config-templates/${ok.id as number}/render/`).set(t.auth).send({ name: 'r1' });
    expect(after.body.content).toBe('hostname r1');
  });

  test('past the pool and its queue a render is a 503 with Retry-After, and the rest are answered', async () => {
    const slow = await made('/api/extras/config-templates/', { name: `slow-${crypto.randomUUID()}`, template_code: '{{ x.constructor.constructor("for (;;) {}")() }}' });
    // One worker, a queue of one: while two renders of 3 s hold them, the others are refused at once.
    const answers = await Promise.all(Array.from({ length: 6 }, () => t.api.post(`/api/extras/config-templates/${slow.id as number}/render/`).set(t.auth).send({ x: 1 })));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThanOrEqual(2);
    expect(statuses.every((s) => s === 503 || s === 400)).toBe(true);
    for (const a of answers.filter((x) => x.status === 503)) {
      expect(a.headers['retry-after']).toBe('1');
      expect(a.body).toEqual({ detail: 'An error occurred while rendering the template (line unknown): too many templates are being rendered at once; try again shortly' });
    }
    for (const a of answers.filter((x) => x.status === 400)) expect(a.body.detail).toMatch(/rendering took longer than 3 seconds/);
    await expectAlive();
  });
});

describe('export templates: ?export=', () => {
  test.each([['a command', COMMAND], ['a file', FILE], ['the environment', ENVIRONMENT], ['string doubling', DOUBLING]])('%s renders harmless text or a 400', async (_what, code) => {
    const name = `export-${crypto.randomUUID()}`;
    await made('/api/extras/export-templates/', { name, content_types: ['dcim.site'], template_code: code });
    const res = await t.api.get(`/api/dcim/sites/?export=${name}`).set(t.auth);
    expect([200, 400]).toContain(res.status);
    expectHarmless(res.text);
    await expectAlive();
  });
});

describe('webhooks: payload_url, additional_headers and body_template', () => {
  test('the escape in each field is sent as harmless text or fails the delivery, and the server lives on', async () => {
    const rx = await startReceiver();
    const hooks = [
      { payload_url: `${rx.url}/url/${RUN(`return require('child_process').execSync('id').toString().replace(/[^a-z0-9=]/g, '')`)}` },
      { payload_url: `${rx.url}/headers`, additional_headers: `X-Leak: ${FILE}` },
      { payload_url: `${rx.url}/body`, body_template: COMMAND },
    ];
    for (const hook of hooks) {
      const webhook = await made('/api/extras/webhooks/', { name: `hook-${crypto.randomUUID()}`, ...hook });
      await made('/api/extras/event-rules/', { name: `rule-${crypto.randomUUID()}`, content_types: ['dcim.site'], type_create: true, action_type: 'webhook', action_object_type: 'extras.webhook', action_object_id: webhook.id });
    }
    const d = new Dispatcher({ knex: t.knex, registry: t.registry, config: t.config });
    d.start();
    try {
      const site = await t.api.post('/api/dcim/sites/').set(t.auth).send({ name: 'Hooked', slug: 'hooked' });
      expect(site.status).toBe(201);
      const requestId = String(site.headers['x-request-id']);
      await until('every delivery settled', async () => {
        const rows = (await t.api.get(`/api/extras/event-deliveries/?request_id=${requestId}`).set(t.auth)).body.results as Array<{ status: { value: string } }>;
        return rows.length === 3 && rows.every((r) => r.status.value !== 'pending');
      });
      for (const r of rx.all) {
        expectHarmless(r.url);
        expectHarmless(JSON.stringify(r.headers));
        expectHarmless(r.body);
      }
      const rows = (await t.api.get(`/api/extras/event-deliveries/?request_id=${requestId}`).set(t.auth)).body.results as Array<{ last_error: string }>;
      for (const r of rows) expectHarmless(r.last_error);
      await expectAlive();
    } finally {
      await d.stop();
      await rx.close();
    }
  });
});
