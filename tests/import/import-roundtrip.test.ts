/**
 * Issue 24's CI test of `patchbay import`: a Patchbay instance seeded with a representative data set
 * (tests/import/seed-source.ts) is the NetBox source, served on a port; the CLI imports it into a fresh
 * database of the other kind (source on PostgreSQL -> embedded target; source embedded -> a new PostgreSQL
 * database). Then: the deep comparison finds no difference; a second run writes nothing; --sync after
 * changes, deletions and creations on the source converges; the target serves the same objects under the
 * same primary keys; an import killed with SIGKILL mid-run, run again, ends at the same result.
 */
import crypto from 'node:crypto';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { startTestApp, TEST_DATABASE_URL, type TestApp } from '../support/test-app';
import { listen } from '../support/listen';
import { creatableModels } from '../support/valid-objects';
import { ROOT, runCli, startServer, tempDir } from '../cli/cli-support';
import { seedSource, countServed, type SeedSummary } from './seed-source';
import { sourceChanges } from './seed/source-changes';
import { embeddedTarget, postgresReachable, postgresTarget, TARGET_SERVER, type ImportTarget } from './support/import-target';
import { runImport, type ImportReport, type ImportRun } from './support/import-cli';

// CI machines may be twice as slow as a laptop: each step runs the CLI over the whole data set.
jest.setTimeout(600_000);

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The change log is part of the representative data set, so every run carries it. */
const CHANGELOG = ['--changelog'];

let unavailable: string | null = null;
let t: TestApp;
let seed: SeedSummary;
let source: { base: string; close(): Promise<void> };
let target: ImportTarget;
let resumeTarget: ImportTarget;
const work = tempDir('import-roundtrip');
const reportFile = (name: string) => path.join(work.dir, `${name}.json`);
let firstRunMs = 0;
/** How long migrating an empty target takes (part of the first run, absent from a run on a migrated target). */
let migrateMs = 0;

beforeAll(async () => {
  if (!TEST_DATABASE_URL) {
    const why = await postgresReachable();
    if (why) {
      unavailable = `the import round trip needs a PostgreSQL target at ${TARGET_SERVER}, which did not answer (${why}): skipped`;
      console.warn(unavailable);
      return;
    }
  }
  t = await startTestApp();
  seed = await seedSource(t);
  source = await listen(t);
  const make = (name: string) => (TEST_DATABASE_URL ? Promise.resolve(embeddedTarget(name)) : postgresTarget(name));
  target = await make('roundtrip');
  resumeTarget = await make('resume');
  // The CLI compiles itself on its first start when dist/ is stale: done now, so no run's time includes it.
  const built = spawnSync(process.execPath, [path.join(ROOT, 'engine', 'cli', 'build-if-possible.cjs')], { cwd: ROOT, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`building the CLI: ${built.stdout}${built.stderr}`);
  // The resumed import's target is migrated beforehand (the first run's target is not: the import migrates
  // it), so the kill lands among the writes rather than in the migrations.
  const started = Date.now();
  const migrated = runCli(['migrate'], resumeTarget.env, 300_000);
  if (migrated.status !== 0) throw new Error(`migrating ${resumeTarget.describe}: ${migrated.stdout}${migrated.stderr}`);
  migrateMs = Date.now() - started;
});

afterAll(async () => {
  await source?.close();
  await t?.close();
  await target?.remove();
  await resumeTarget?.remove();
  work.remove();
});

/** A test that needs the target server: passes with a warning when there is none (see beforeAll). */
function live(name: string, fn: () => Promise<void>): void {
  test(name, async () => {
    if (unavailable) return;
    await fn();
  });
}

const args = (...extra: string[]) => ['--from', source.base, '--token', t.token, ...CHANGELOG, ...extra];

/** A run's outcome in one comparable value; its output is included when it did not end cleanly, to read why. */
function outcome(run: ImportRun) {
  const clean = run.status === 0 && run.report !== null && run.report.differences.length === 0 && run.report.refused.length === 0;
  return {
    status: run.status,
    signal: run.signal,
    report: run.report !== null,
    differences: run.report?.differences.slice(0, 20) ?? null,
    refused: run.report?.refused.slice(0, 20) ?? null,
    ...(clean ? {} : { output: run.output.slice(-6000) }),
  };
}
const CLEAN = { status: 0, signal: null, report: true, differences: [], refused: [] };

/**
 * A run that finds nothing changed on the source writes nothing: every type's line, but that the token
 * the import reads the source with records its own use there (last_used, at most once a minute), so that
 * one token may be updated.
 */
function wroteNothing(report: ImportReport) {
  return typesWhere(report, Object.keys(report.types), (l, c) =>
    c !== undefined && c.created === 0 && c.deleted === 0 && (c.updated === 0 || (l === 'users.token' && c.updated === 1)),
  );
}

/** Types whose report line breaks `ok`, with the line: empty when every type keeps it. */
function typesWhere(report: ImportReport, labels: string[], ok: (label: string, c: ImportReport['types'][string] | undefined) => boolean) {
  return labels.filter((l) => !ok(l, report.types[l])).map((l) => ({ type: l, line: report.types[l] ?? 'missing from the report' }));
}
const creatable = () => creatableModels(t.registry).map((m) => m.label);
/** What every run must carry: each creatable type, and (asked with --changelog) the change log. */
const carried = () => [...creatable(), ...(CHANGELOG.length ? ['extras.objectchange'] : [])];

async function getJson(base: string, token: string, p: string): Promise<Json> {
  const res = await fetch(`${base}${p}`, { headers: { Authorization: `Token ${token}`, Accept: 'application/json' } });
  if (res.status !== 200) throw new Error(`GET ${base}${p}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Json;
}
async function bytesAt(url: string, token: string): Promise<string> {
  const res = await fetch(url, { headers: { Authorization: `Token ${token}` } });
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status}`);
  return crypto.createHash('sha256').update(Buffer.from(await res.arrayBuffer())).digest('hex');
}
/** A trace as ids: [near end ids, cable id, far end ids] per segment. */
async function traceIds(base: string, token: string, interfaceId: number): Promise<unknown[]> {
  const segs = (await getJson(base, token, `/api/dcim/interfaces/${interfaceId}/trace/`)) as unknown as Json[][];
  return segs.map(([near, cable, far]) => [(near as Json[]).map((o) => o.id), (cable as Json | null)?.id ?? null, (far as Json[]).map((o) => o.id)]);
}

live('the first import copies every object: exit 0, no difference, nothing refused, every type counted', async () => {
  const started = Date.now();
  const run = await runImport(args(), target.env, reportFile('first'));
  firstRunMs = Date.now() - started;
  expect(outcome(run)).toEqual(CLEAN);
  const report = run.report!;
  // Every creatable type was read (the seed has one of each) and written: as many on the target as on the source.
  expect(typesWhere(report, carried(), (l, c) => c !== undefined && c.source === seed.counts[l] && c.target === c.source && c.created === c.source)).toEqual([]);
  // Passwords cannot be read through the API: the imported users' are unusable, and the report says whose.
  expect(report.unusable_passwords).toEqual(expect.arrayContaining(['alice', 'bob']));
  expect(report.objects).toBeGreaterThan(0);
});

live('a second run with nothing changed on the source writes nothing', async () => {
  const run = await runImport(args(), target.env, reportFile('second'));
  expect(outcome(run)).toEqual(CLEAN);
  const report = run.report!;
  const labels = Object.keys(report.types);
  expect(wroteNothing(report)).toEqual([]);
  expect(typesWhere(report, labels, (_l, c) => c !== undefined && c.unchanged + c.updated === c.source && c.target === c.source)).toEqual([]);
  expect(typesWhere(report, carried(), (l, c) => c?.source === seed.counts[l])).toEqual([]);
});

live('--sync after changes, deletions and creations on the source converges, and a further --sync writes nothing', async () => {
  const expected = await sourceChanges(t, seed.ids);
  const counts = await countServed(t);
  const run = await runImport(args('--sync'), target.env, reportFile('sync'));
  expect(outcome(run)).toEqual(CLEAN);
  const report = run.report!;
  const short = Object.entries(expected).flatMap(([type, want]) =>
    Object.entries(want)
      .filter(([k, n]) => !((report.types[type]?.[k as 'created' | 'updated' | 'deleted'] ?? 0) >= n))
      .map(([k, n]) => ({ type, [k]: `at least ${n}`, line: report.types[type] ?? 'missing from the report' })),
  );
  expect(short).toEqual([]);
  expect(typesWhere(report, carried(), (l, c) => c !== undefined && c.source === counts[l] && c.target === c.source)).toEqual([]);

  const again = await runImport(args('--sync'), target.env, reportFile('sync-again'));
  expect(outcome(again)).toEqual(CLEAN);
  expect(wroteNothing(again.report!)).toEqual([]);
});

live('the target serves the same objects under the same primary keys: device, path, primary IP, picture', async () => {
  const key = crypto.randomBytes(20).toString('hex');
  // A user of the target's own to read it with (an imported token's key cannot be read from the source).
  const made = runCli(['createsuperuser', '--username', `seedcheck-${key.slice(0, 6)}`, '--password', 'x', '--token', key], target.env);
  expect({ status: made.status, stderr: made.stderr }).toEqual({ status: 0, stderr: '' });
  const server = await startServer(target.env);
  try {
    const leafA = seed.ids.devices.leafA.id;
    const there = await getJson(server.url, key, `/api/dcim/devices/${leafA}/`);
    const here = await getJson(source.base, t.token, `/api/dcim/devices/${leafA}/`);
    const pick = (d: Json) => ({ id: d.id, name: d.name, serial: d.serial, site: d.site?.id, rack: d.rack?.id, primary_ip4: d.primary_ip4?.id, primary_ip6: d.primary_ip6?.id, config_context: d.config_context, custom_fields: d.custom_fields, tags: d.tags?.map((x: Json) => x.slug), created: d.created, last_updated: d.last_updated });
    expect(pick(there)).toEqual(pick(here));
    expect(there.name).toBe('leaf-a');

    const start = seed.ids.path.start.id;
    expect(await traceIds(server.url, key, start)).toEqual(await traceIds(source.base, t.token, start));

    // The pictures' bytes were copied, not only their rows.
    const site = seed.ids.sites.fra1.id;
    const imagesThere = await getJson(server.url, key, `/api/extras/image-attachments/?content_type=dcim.site&object_id=${site}`);
    const imagesHere = await getJson(source.base, t.token, `/api/extras/image-attachments/?content_type=dcim.site&object_id=${site}`);
    expect(imagesThere.results.map((i: Json) => i.id)).toEqual(imagesHere.results.map((i: Json) => i.id));
    for (const [a, b] of (imagesThere.results as Json[]).map((x, i) => [x, imagesHere.results[i] as Json])) {
      expect(await bytesAt(a!.image as string, key)).toBe(await bytesAt(b!.image as string, t.token));
    }
    // Sequences moved past the imported ids: a new object gets an id the source never handed out.
    const tagsHere = await getJson(source.base, t.token, '/api/extras/tags/?ordering=-id&limit=1');
    const posted = await fetch(`${server.url}/api/extras/tags/`, {
      method: 'POST',
      headers: { Authorization: `Token ${key}`, 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ name: `after-import-${key.slice(0, 6)}`, slug: `after-import-${key.slice(0, 6)}` }),
    });
    expect(posted.status).toBe(201);
    expect(((await posted.json()) as Json).id).toBeGreaterThan((tagsHere.results[0] as Json).id as number);

    const typeId = seed.ids.deviceTypes.leaf.id;
    const dtThere = await getJson(server.url, key, `/api/dcim/device-types/${typeId}/`);
    expect(await bytesAt(dtThere.front_image as string, key)).toBe(await bytesAt(seed.ids.deviceTypes.leaf.front_image as string, t.token));
  } finally {
    await server.stop();
  }
});

live('an import killed with SIGKILL mid-run, run again, ends with no difference', async () => {
  // Killed once it prints progress naming a type, or (when it prints none: a CLI is quiet off a terminal)
  // at 40% of what the first run spent besides migrating, so among the writes.
  const atMs = Math.max(500, Math.round((firstRunMs - migrateMs) * 0.4));
  const killed = await runImport(args(), resumeTarget.env, reportFile('killed'), { kill: { progress: /\b(dcim|ipam|extras|tenancy|circuits|users)\.[a-z]+/, delayMs: 250, atMs } });
  // An import that finished before the kill proves nothing about resuming: say so rather than pass.
  expect({ killed: killed.killed, signal: killed.signal, ...(killed.killed ? {} : { output: killed.output.slice(-3000) }) }).toEqual({ killed: true, signal: 'SIGKILL' });
  const resumed = await runImport(args(), resumeTarget.env, reportFile('resumed'));
  expect(outcome(resumed)).toEqual(CLEAN);
  const counts = await countServed(t);
  expect(typesWhere(resumed.report!, carried(), (l, c) => c !== undefined && c.source === counts[l] && c.target === c.source)).toEqual([]);
});
