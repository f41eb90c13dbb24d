/**
 * `npm run bench:import`: how fast `patchbay import` carries a large installation. A Patchbay server on
 * PostgreSQL (database patchbay_import_source) is seeded through its API with the bench's data set at
 * IMPORT_SCALE (4.5 by default: about 104,000 objects) and serves as the NetBox source; the CLI then
 * imports it into a fresh target — PostgreSQL (patchbay_import_target) and, unless IMPORT_TARGETS says
 * otherwise, the embedded database — and each run's report (objects/s, total time, where the time went,
 * differences) is printed and written to test-output/import-speed-<target>.json.
 *
 *   npm run bench:import                       both targets, scale 4.5
 *   IMPORT_SCALE=1 IMPORT_TARGETS=pg npm run bench:import
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import pg from 'pg';
import { ApiClient } from './http-client';
import { discoverEndpoints } from './discover';
import { shapeFor } from './data-shape';
import { seed } from './seed';
import { createSuperuser, startServer } from './server-process';

const ROOT = path.resolve(__dirname, '../..');
const ADMIN = 'postgres://postgres@127.0.0.1:5432/postgres';
const OUT = path.join(ROOT, 'test-output');

async function freshDatabase(name: string): Promise<string> {
  const c = new pg.Client({ connectionString: ADMIN });
  await c.connect();
  try {
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${name}`);
  } finally {
    await c.end();
  }
  return `postgres://postgres@127.0.0.1:5432/${name}`;
}

function run(args: string[], env: Record<string, string | undefined>): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const merged: NodeJS.ProcessEnv = { ...process.env };
    for (const [k, v] of Object.entries(env)) {
      if (v === undefined) delete merged[k];
      else merged[k] = v;
    }
    const child = spawn(process.execPath, [path.join(ROOT, 'engine/cli/bin.cjs'), ...args], { cwd: ROOT, env: merged });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, out }));
  });
}

async function main(): Promise<void> {
  const scale = Number(process.env.IMPORT_SCALE ?? '4.5');
  const targets = (process.env.IMPORT_TARGETS ?? 'pg,embedded').split(',').map((s) => s.trim());
  fs.mkdirSync(OUT, { recursive: true });
  const sourceEnv = { DATABASE_URL: await freshDatabase('patchbay_import_source'), PATCHBAY_DATA_DIR: undefined, PATCHBAY_WORKERS: '2' };
  const token = await createSuperuser(sourceEnv);
  const server = await startServer(sourceEnv, token, path.join(OUT, 'import-source.log'));
  try {
    const api = new ApiClient(server.baseUrl, token);
    const seeded = await seed(api, await discoverEndpoints(api), shapeFor(scale), (line) => console.log(line));
    if (seeded.failed) throw new Error('seeding the source failed');
    console.log(`source: ${seeded.totalObjects} objects seeded at scale ${scale} in ${seeded.totalSeconds.toFixed(1)} s`);
    for (const target of targets) {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'patchbay-import-target-'));
      const env = target === 'embedded'
        ? { DATABASE_URL: undefined, PATCHBAY_DATA_DIR: dataDir, PATCHBAY_MEDIA_ROOT: path.join(dataDir, 'media') }
        : { DATABASE_URL: await freshDatabase('patchbay_import_target'), PATCHBAY_DATA_DIR: undefined, PATCHBAY_MEDIA_ROOT: path.join(dataDir, 'media') };
      const migrated = await run(['migrate'], env);
      if (migrated.code !== 0) throw new Error(`migrate (${target}): ${migrated.out}`);
      const report = path.join(OUT, `import-speed-${target}.json`);
      const started = Date.now();
      const r = await run(['import', '--from', server.baseUrl, '--token', token, '--report', report], env);
      const wall = (Date.now() - started) / 1000;
      const body = JSON.parse(fs.readFileSync(report, 'utf8')) as { objects: number; seconds: number; objects_per_second: number; phases: Record<string, number>; differences: unknown[]; refused: unknown[] };
      console.log(`\n${target}: exit ${r.code}; ${body.objects} objects in ${body.seconds} s (${body.objects_per_second} objects/s), ${wall.toFixed(1)} s with process start; ` +
        `${body.refused.length} refused, ${body.differences.length} differences; phases ${JSON.stringify(body.phases)}`);
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  } finally {
    await server.stop();
  }
  console.log(`machine: ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; ${new Date().toISOString()}`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
