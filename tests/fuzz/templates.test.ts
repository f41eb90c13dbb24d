/**
 * The template fuzz suite: random Jinja programs (support/jinja-programs.ts) with hostile member names,
 * filters reading hostile attributes, calls with code that reaches for the host, includes of host files
 * and sizes without bound, rendered through the sandbox directly and, for a share of them, through a
 * config template's render/ over real HTTP. The oracle: every program ends in text or in a rendering
 * error (never busy, never a 500), no output holds anything of the host (an environment variable, a
 * global of the server's JavaScript, a file, a command's output), and the process answers afterwards.
 * A process death fails the run by itself.
 *
 *   TEMPLATE_FUZZ_SEED=<n>   the run's seed (a fixed default otherwise)
 *   TEMPLATE_FUZZ_CASES=<n>  how many programs (default 600)
 *   TEMPLATE_FUZZ_CASE=<k>   program k alone
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestApp, type TestApp } from '../support/test-app';
import { renderTemplate, type Rendered } from '../../engine/sandbox/render-template';
import { sharedSandbox } from '../../engine/sandbox/shared-sandbox';
import { Prng } from './support/prng';
import { FUZZ_CONTEXT, JinjaProgram } from './support/jinja-programs';

function envInt(name: string): number | undefined {
  const raw = process.env[name];
  return raw === undefined || raw === '' ? undefined : Number(raw);
}
const SEED = envInt('TEMPLATE_FUZZ_SEED') ?? 20261127;
const CASES = envInt('TEMPLATE_FUZZ_CASES') ?? 600;
const ONLY = envInt('TEMPLATE_FUZZ_CASE');
/** One program in this many also goes through HTTP. */
const HTTP_SHARE = 8;
/** Small bounds, so runaway programs end quickly; the same code enforces the defaults. */
const LIMITS = { timeoutMs: 400, maxOutput: 65_536, maxMemory: 32 * 1024 * 1024 };

const CANARY = `canary-${crypto.randomUUID()}`;
const CANARY_FILE = path.join(os.tmpdir(), `patchbay-fuzz-canary-${crypto.randomUUID()}.txt`);
let t: TestApp;

beforeAll(async () => {
  process.env.PATCHBAY_TEST_CANARY = CANARY;
  (globalThis as Record<string, unknown>).hostCanary = CANARY;
  fs.writeFileSync(CANARY_FILE, CANARY);
  t = await startTestApp({ env: { PATCHBAY_TEMPLATE_TIMEOUT: String(LIMITS.timeoutMs / 1000), PATCHBAY_TEMPLATE_MAX_OUTPUT: String(LIMITS.maxOutput), PATCHBAY_TEMPLATE_MAX_MEMORY: String(LIMITS.maxMemory), PATCHBAY_TEMPLATE_QUEUE: '1000' } });
});
afterAll(async () => {
  delete process.env.PATCHBAY_TEST_CANARY;
  fs.rmSync(CANARY_FILE, { force: true });
  await t.close();
});

/** Why an answer breaks the oracle, or null. */
function violation(text: string): string | null {
  if (text.includes(CANARY)) return 'the output holds the canary (a host read)';
  if (/uid=\d+\(/.test(text)) return "the output holds a command's output";
  if (/\[object process\]|DATABASE_URL|function require\(/.test(text)) return 'the output shows the host process';
  return null;
}

function judge(r: Rendered): string | null {
  if (!r.ok && r.busy) return 'refused as busy';
  if (!r.ok && !r.message.startsWith('An error occurred while rendering the template (line ')) return `an unexpected failure: ${r.message}`;
  return violation(r.ok ? r.text : r.message);
}

test(`${ONLY === undefined ? CASES : 1} random templates (seed ${SEED}): none reads the host, none takes the process down`, async () => {
  const failures: string[] = [];
  const tally = { text: 0, error: 0, http: 0 };
  const cases = ONLY === undefined ? Array.from({ length: CASES }, (_, i) => i) : [ONLY];
  const headers = { ...t.auth, 'Content-Type': 'application/json' };
  // Two at a time: the pool's two workers stay busy, and a failure names its case.
  for (let i = 0; i < cases.length; i += 2) {
    await Promise.all(
      cases.slice(i, i + 2).map(async (k) => {
        const code = new JinjaProgram(new Prng(SEED * 1_000_003 + k), CANARY_FILE).program();
        const direct = await renderTemplate(code, FUZZ_CONTEXT, {}, LIMITS);
        const why = judge(direct);
        if (direct.ok) tally.text++;
        else tally.error++;
        if (why) failures.push(`case ${k}: ${why}\n  template: ${JSON.stringify(code)}\n  answer: ${JSON.stringify(direct).slice(0, 400)}`);
        if (k % HTTP_SHARE !== 0) return;
        tally.http++;
        const tpl = await t.api.post('/api/extras/config-templates/').set(headers).send({ name: `fuzz-${SEED}-${k}`, template_code: code });
        if (tpl.status !== 201) return failures.push(`case ${k}: the template was not stored: ${tpl.status} ${tpl.text.slice(0, 200)}`);
        const res = await t.api.post(`/api/extras/config-templates/${tpl.body.id as number}/render/`).set(headers).send(FUZZ_CONTEXT);
        const httpWhy = res.status !== 200 && res.status !== 400 ? `render/ answered ${res.status}` : violation(res.text);
        if (httpWhy) failures.push(`case ${k} over HTTP: ${httpWhy}\n  template: ${JSON.stringify(code)}\n  answer: ${res.status} ${res.text.slice(0, 400)}`);
      }),
    );
  }
  process.stderr.write(`template fuzz, seed ${SEED}: ${tally.text} rendered, ${tally.error} refused with a rendering error, ${tally.http} also over HTTP, ${failures.length} failures\n`);
  expect(failures.slice(0, 10)).toEqual([]);
  // Alive and still rendering.
  expect((await t.api.get('/api/status/')).status).toBe(200);
  expect(await renderTemplate('{{ x }}{{ n + 1 }}', FUZZ_CONTEXT, {}, LIMITS)).toEqual({ ok: true, text: 'a43' });
  expect(sharedSandbox().stats().workers).toBeLessThanOrEqual(t.config.templateWorkers);
  // 600 programs take ~45 s alone on two cores; a loaded or slower machine needs room, not a flaky limit.
}, 600_000);
