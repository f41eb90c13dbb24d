import os from 'node:os';
import path from 'node:path';
import { ApiClient, isObject } from './http-client';
import { prepareDatabase, type DatabaseTarget } from './database-target';
import { discoverEndpoints } from './discover';
import { shapeFor } from './data-shape';
import { runLoad, type LoadPoint } from './load';
import { parseOptions, USAGE, type BenchOptions } from './options';
import { runRawSql, type RawTask } from './raw-sql';
import { renderReport, writeReport, type BenchRun, type ScenarioResult } from './report';
import { DEVICE_WRITES, SCENARIOS, TEMPLATES, WRITES, type ScenarioContext } from './scenarios';
import { measureTemplates, templateFailures } from './template-phase';
import { assertEmpty, seed } from './seed';
import { loggedErrors } from './server-log';
import { createSuperuser, startServer, type ServerProcess } from './server-process';
import { sleep } from './stats';
import { runWrites } from './writes';
import { runRawWrites } from './raw-writes';
import { setupMode } from './write-modes';
import { runDeviceWrites } from './device-writes';

const ROOT = path.resolve(__dirname, '..', '..');
const WRITE_THREADS = [1, 8];

const log = (line: string) => console.error(line);

function machine(): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  return `nproc=${os.availableParallelism()} (${cpu}), ${os.type()} ${os.release()}, ${Math.round(os.totalmem() / 2 ** 30)} GiB; `
    + 'client (autocannon, in the bench process) and server (child process) on the same host';
}

/** The host's 1-minute load average: on a shared 2-core machine it says how much the figures can be trusted. */
function load(): string {
  return os.loadavg()[0]!.toFixed(1);
}

function settings(o: BenchOptions): string {
  return `autocannon, ${o.duration} s per point x 1 run, ${o.warmup} s warm-up per scenario, raw SQL ${o.rawDuration} s per point; `
    + `scale ${o.scale}${o.only ? `; only ${[...o.only].join(',')}` : ''}; writes ${o.writeModes.join(', ')}`;
}

async function serverName(api: ApiClient): Promise<string> {
  const { json } = await api.get('/api/status/');
  if (!isObject(json)) return 'patchbay';
  const v = (k: string) => (typeof json[k] === 'string' ? json[k] : '?');
  return `patchbay-${v('patchbay-version')} (NetBox API ${v('netbox-version')}, Node ${v('node-version')}, ${v('database')})`;
}

/** Lets requests still in flight when a load point ends finish before the next point starts. */
async function drain(api: ApiClient): Promise<void> {
  await api.get('/api/status/');
  await sleep(100);
}

async function measureScenarios(api: ApiClient, ctx: ScenarioContext, endpoints: Set<string>, opts: BenchOptions, run: BenchRun): Promise<void> {
  for (const sc of SCENARIOS) {
    if (opts.only && !opts.only.has(sc.name)) continue;
    const missing = sc.needs.filter((ep) => !endpoints.has(ep));
    if (missing.length) {
      run.skipped.push({ name: sc.name, reason: `no ${missing.join(', ')} endpoint` });
      continue;
    }
    const unseeded = sc.needs.filter((ep) => !ctx.ids(ep).length);
    if (unseeded.length) {
      run.skipped.push({ name: sc.name, reason: `${unseeded.join(', ')} not seeded` });
      continue;
    }
    let own = ctx;
    if (sc.setup) {
      try {
        own = await sc.setup(api, ctx);
      } catch (e) {
        run.failures.push(`${sc.name}: setup failed: ${(e as Error).message}`);
        log(`  ${sc.name}: setup FAILED`);
        continue;
      }
    }
    const reqPath = sc.path(own);
    const first = await api.get(reqPath);
    const verify = sc.verify(own)(first.status, first.json);
    const result: ScenarioResult = {
      name: sc.name, inBaseline: sc.inBaseline, request: `GET ${reqPath}`, verify, respKiB: first.bytes / 1024, points: [],
    };
    run.scenarios.push(result);
    if (!verify.ok) {
      run.failures.push(`${sc.name}: verify failed (${verify.note}) for GET ${reqPath}: ${first.text.slice(0, 300)}`);
      log(`  ${sc.name}: verify FAILED ${verify.note}`);
      continue;
    }
    const load = { url: api.baseUrl + reqPath, headers: api.headers };
    await runLoad({ ...load, connections: 1, seconds: opts.warmup });
    await drain(api);
    for (const connections of opts.connections) {
      const point: LoadPoint = await runLoad({ ...load, connections, seconds: opts.duration });
      await drain(api);
      result.points.push(point);
      log(`  ${sc.name} @${connections}: ${point.reqPerSec.toFixed(1)} req/s, p50 ${point.latency.p50.toFixed(1)} ms, `
        + `p99 ${point.latency.p99.toFixed(1)} ms, ${point.errors} errors`);
      if (point.errors) run.failures.push(`${sc.name} @${connections} connections: ${point.errors} errors ${JSON.stringify(point.statuses)}`);
    }
  }
}

async function measureWrites(api: ApiClient, opts: BenchOptions, run: BenchRun, target: DatabaseTarget): Promise<void> {
  const objects = opts.writeObjects ?? Math.max(100, Math.round((500 * opts.scale) / 100) * 100);
  let round = 0;
  for (const mode of opts.writeModes) {
    const setup = await setupMode(mode, api, target);
    if (typeof setup === 'string') {
      run.skipped.push({ name: `${WRITES} (${mode})`, reason: setup });
      log(`  writes (${mode}) skipped: ${setup}`);
      continue;
    }
    try {
      for (const threads of WRITE_THREADS) {
        const out = await runWrites(api, objects, threads, round++);
        for (const w of out.rows) {
          w.mode = mode;
          run.writes.push(w);
          log(`  writes ${w.phase} (${mode}) @${threads}: ${w.objPerSec.toFixed(1)} obj/s, p50 ${w.latency.p50.toFixed(1)} ms/request, ${w.errors} errors`);
          if (w.errors) run.failures.push(`writes ${w.phase} (${mode}) @${threads} threads: ${w.errors} errors, first: ${w.firstError}`);
        }
        if (out.verify) run.failures.push(`writes (${mode}) @${threads} threads: ${out.verify}`);
      }
    } finally {
      const note = await setup.finish();
      if (note) log(`  ${note}`);
    }
  }
}

/** Devices of a 51-component type created one POST each (DEVICE_WRITES). */
async function measureDeviceWrites(api: ApiClient, opts: BenchOptions, run: BenchRun): Promise<void> {
  const objects = Math.max(50, Math.round((200 * opts.scale) / 100) * 10);
  for (const [round, threads] of WRITE_THREADS.entries()) {
    const out = await runDeviceWrites(api, objects, threads, round);
    run.writes.push(...out.rows);
    for (const w of out.rows) {
      log(`  writes ${w.phase} @${threads}: ${w.objPerSec.toFixed(1)} devices/s, p50 ${w.latency.p50.toFixed(1)} ms/request, ${w.errors} errors`);
      if (w.errors) run.failures.push(`writes ${w.phase} @${threads} threads: ${w.errors} errors, first: ${w.firstError}`);
    }
    if (out.verify) run.failures.push(`device writes @${threads} threads: ${out.verify}`);
  }
}

/** `npm run bench`: seeds over HTTP, measures the scenarios and writes, then the raw-SQL ceiling; prints and saves the report. */
export async function runBench(args: string[]): Promise<number> {
  let opts: BenchOptions;
  try {
    opts = parseOptions(args);
  } catch (e) {
    console.error(`${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (opts.help) {
    console.log(USAGE);
    return 0;
  }
  const known = new Set([...SCENARIOS.map((s) => s.name), WRITES, DEVICE_WRITES, TEMPLATES]);
  const unknown = [...(opts.only ?? [])].filter((n) => !known.has(n));
  if (unknown.length) {
    console.error(`--only: no scenario named ${unknown.join(', ')}; known: ${[...known].join(', ')}`);
    return 2;
  }
  const startedAt = new Date();
  const loadAtStart = load();
  const t0 = performance.now();
  const run: BenchRun = {
    startedAt, baseUrl: '', server: 'patchbay', database: '', machine: machine(), settings: settings(opts),
    seed: null, scenarios: [], skipped: [], writes: [], rawWrites: [], failures: [], serverErrors: [], serverLog: '', seconds: 0,
  };
  const stamp = startedAt.toISOString().replace(/:/g, '-').replace(/\.\d+Z$/, 'Z');
  const serverLog = path.join(ROOT, 'test-output', `bench-${stamp}-server.log`);
  run.serverLog = path.relative(ROOT, serverLog);
  let target: DatabaseTarget | null = null;
  let server: ServerProcess | null = null;
  try {
    target = await prepareDatabase(opts.embedded);
    run.database = target.label;
    log(`bench: ${target.label}; ${run.settings}`);
    const token = await createSuperuser(target.env);
    server = await startServer(target.env, token, serverLog);
    run.baseUrl = server.baseUrl;
    const api = new ApiClient(server.baseUrl, token);
    run.server = await serverName(api);
    const endpoints = await discoverEndpoints(api);
    log(`bench: ${server.baseUrl} (pid ${server.pid}), ${endpoints.size} endpoints; seeding`);
    if (!target.fresh) await assertEmpty(api, endpoints);
    const shape = shapeFor(opts.scale, { ipAddresses: opts.ips, prefixes24: opts.prefixes });
    run.seed = await seed(api, endpoints, shape, log);
    for (const r of run.seed.rows) if (r.error) run.failures.push(`seed ${r.type}: ${r.error}`);
    const seeded = run.seed.ids;
    const ctx: ScenarioContext = { shape, ids: (ep) => seeded.get(ep) ?? [] };

    log('bench: scenarios');
    await measureScenarios(api, ctx, endpoints, opts, run);
    if (!opts.only || opts.only.has(WRITES)) {
      if (endpoints.has('ipam/ip-addresses')) {
        log('bench: writes');
        await measureWrites(api, opts, run, target);
      } else {
        run.skipped.push({ name: WRITES, reason: 'no ipam/ip-addresses endpoint' });
      }
    }
    if (!opts.only || opts.only.has(DEVICE_WRITES)) {
      log('bench: device writes');
      await measureDeviceWrites(api, opts, run);
    }
    if (!opts.only || opts.only.has(TEMPLATES)) {
      log('bench: templates');
      run.templates = await measureTemplates(api, server, opts.duration, opts.connections, log);
      run.failures.push(...templateFailures(run.templates));
    }
    await server.stop();
    run.serverErrors = loggedErrors(server.log());
    server = null;

    // After the server stopped: an embedded database serves one process at a time.
    const tasks: RawTask[] = [];
    for (const r of run.scenarios) {
      const sc = SCENARIOS.find((s) => s.name === r.name);
      if (sc?.raw && r.points.length) tasks.push({ scenario: r.name, query: sc.raw(ctx) });
    }
    if (tasks.length) log('bench: raw SQL ceiling');
    const raw = await runRawSql(target.connection, tasks, opts.connections, opts.rawDuration, log);
    for (const r of run.scenarios) r.raw = raw.get(r.name);
    const creates = run.writes.filter((w) => w.phase === 'create_single');
    if (creates.length) {
      log('bench: raw write ceiling');
      run.rawWrites = await runRawWrites(target.connection, creates[0]!.objects, WRITE_THREADS, log);
    }
  } catch (e) {
    const died = server?.exited();
    run.failures.push(`bench aborted: ${(e as Error).stack ?? String(e)}${died ? `\n  (the server process ${died}; its last output: ${server!.log().slice(-1500)})` : ''}`);
  } finally {
    if (server) {
      await server.stop();
      run.serverErrors = loggedErrors(server.log());
    }
    if (target) await target.cleanup();
  }
  run.seconds = (performance.now() - t0) / 1000;
  run.machine += `; load average ${loadAtStart} at start, ${load()} at end`;
  const text = renderReport(run);
  console.log(text);
  const file = writeReport(ROOT, run, text);
  log(`bench: report written to ${path.relative(ROOT, file)}, server log ${path.relative(ROOT, serverLog)}`);
  if (run.failures.length) log(`bench: ${run.failures.length} failure(s)`);
  return run.failures.length ? 1 : 0;
}
