/**
 * "A fuzz test over every endpoint and input surface (derived from the definitions, seeded,
 * replayable): 0 server errors." Every case is drawn from the registry (endpoints, fields and their
 * kinds, filters and their lookups, list actions) and the fixed surfaces (API root, status, schema,
 * docs, login, logout, profile, token forms, token provisioning), then mutated by a seeded generator.
 *
 *   FUZZ_SEED=<n>   the run's seed (printed at the start; a fixed default otherwise)
 *   FUZZ_CASES=<n>  how many cases (default below: about a minute a database on a shared 2-core machine)
 *   FUZZ_CASE=<k>   run case k alone: FUZZ_SEED=<n> FUZZ_CASE=<k> npm test -- tests/fuzz
 *   FUZZ_VERBOSE=1  print every case and its answer (to stderr)
 *
 * The oracle: every request gets an answer, below 500, with a body well formed for its Content-Type.
 */
import { startTestApp, TEST_DATABASE_URL, type TestApp } from '../support/test-app';
import { listen } from '../support/listen';
import { makeFixtures, type Fixtures } from './support/fixtures';
import { buildWorld, type World } from './support/world';
import { generateCase, SETTINGS } from './support/generate';
import { describeRequest, type FuzzRequest } from './support/fuzz-request';
import { send, type Answer } from './support/send';
import { judge } from './support/oracle';
import { Tally } from './support/tally';

const DEFAULT_SEED = 20240611;
const DEFAULT_CASES = 5000;

function envInt(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return n;
}

const SEED = envInt('FUZZ_SEED') ?? DEFAULT_SEED;
const ONLY = envInt('FUZZ_CASE');
const CASES = envInt('FUZZ_CASES') ?? DEFAULT_CASES;
const FAILURES_SHOWN = 15;
const VERBOSE = !!process.env.FUZZ_VERBOSE;

let t: TestApp;
let fixtures: Fixtures;
let world: World;
const bases = new Map<string, string>();
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  t = await startTestApp();
  fixtures = await makeFixtures(t);
  world = buildWorld(t.registry, fixtures);
  for (const [name, env] of Object.entries(SETTINGS)) {
    const server = await listen(t, env);
    bases.set(name, server.base);
    closers.push(server.close);
  }
}, 300_000);

afterAll(async () => {
  for (const close of closers) await close();
  await t?.close();
});

/** A case may log a fixture's session out or change a fixture's user: put them back so the next case starts the same. */
function mayHaveChangedCallers(method: string, path: string, a: Answer): boolean {
  return path.startsWith('/logout') || (!['GET', 'HEAD', 'OPTIONS'].includes(method) && a.status > 0 && a.status < 400);
}

/** Headers the transport added to the case's own (Host, Content-Length...): part of the exact request. */
function addedHeaders(request: FuzzRequest, a: Answer): string {
  const own = new Set(Object.keys(request.headers).map((k) => k.toLowerCase()));
  const added = Object.entries(a.sentHeaders).filter(([k]) => !own.has(k.toLowerCase()));
  return added.length ? `\n  added by supertest: ${added.map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join(', ')}` : '';
}

function showAnswer(a: Answer): string {
  if (a.error) return `no answer: ${a.error}`;
  const text = a.body.toString('utf8');
  return `${a.status} ${String(a.headers['content-type'] ?? '(no content-type)')} ${JSON.stringify(text.slice(0, 800))}${text.length > 800 ? '...' : ''}`;
}

const database = TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';

test(`fuzz (${database}): every case answered below 500 with a well-formed body`, async () => {
  const cases = ONLY !== undefined ? [ONLY] : Array.from({ length: CASES }, (_, k) => k);
  console.log(`fuzz on ${database}: FUZZ_SEED=${SEED}, ${ONLY !== undefined ? `FUZZ_CASE=${ONLY}` : `FUZZ_CASES=${CASES}`}`);
  const tally = new Tally();
  const failures: string[] = [];
  const started = Date.now();
  for (const k of cases) {
    const request = generateCase(world, SEED, k);
    const problems: string[] = [];
    for (const first of request.setup ?? []) {
      const a = await send(bases.get(first.settings)!, first);
      problems.push(...judge(first, a).map((p) => `first request: ${p} (${showAnswer(a)})`));
    }
    const answer = await send(bases.get(request.settings)!, request);
    tally.add(request.surface, answer.status, answer.error);
    problems.push(...judge(request, answer));
    if (VERBOSE) process.stderr.write(`--- case ${k} (${request.surface})\n${describeRequest(request)}\n  answer: ${showAnswer(answer)}\n`);
    if (problems.length) {
      failures.push(
        `case ${k} (${request.surface}): ${problems.join('; ')}\n` +
          `replay: FUZZ_SEED=${SEED} FUZZ_CASE=${k} npm test -- tests/fuzz\n${describeRequest(request)}${addedHeaders(request, answer)}\n  answer: ${showAnswer(answer)}`,
      );
    }
    if (mayHaveChangedCallers(request.method, request.path, answer)) await fixtures.restore();
  }
  console.log(`fuzz on ${database}: ${cases.length} cases in ${((Date.now() - started) / 1000).toFixed(1)} s, seed ${SEED}\n${tally.table()}`);
  if (failures.length) {
    throw new Error(`${failures.length} of ${cases.length} cases failed (FUZZ_SEED=${SEED}):\n\n${failures.slice(0, FAILURES_SHOWN).join('\n\n')}${failures.length > FAILURES_SHOWN ? `\n\n... and ${failures.length - FAILURES_SHOWN} more` : ''}`);
  }
}, 1_800_000);

test('afterwards the server still answers /api/status/ and a superuser list request', async () => {
  const status = await t.api.get('/api/status/');
  expect(status.status).toBe(200);
  const list = await t.api.get(world.endpoints[0]!.list).set(t.auth);
  expect([list.status, typeof list.body.count]).toEqual([200, 'number']);
});
