import fs from 'node:fs';
import path from 'node:path';
import type { LoadPoint } from './load';
import type { LoggedError } from './server-log';
import type { RawPoint } from './raw-sql';
import type { RawWritePoint } from './raw-writes';
import type { SeedResult } from './seed';
import type { VerifyOutcome } from './verify';
import type { WriteRow } from './writes';
import { templateSection, type TemplateResult } from './template-phase';
import {
  BASELINE_SOURCE, NETBOX_SEED_OBJ_PER_SEC, NETBOX_SEED_TOTAL_OBJ_PER_SEC, NETBOX_WRITES, netboxPoint,
} from './netbox-baseline';

export interface ScenarioResult {
  name: string;
  inBaseline: boolean;
  /** "GET /api/..." */
  request: string;
  verify: VerifyOutcome;
  /** Body size of the verified response. */
  respKiB: number;
  points: LoadPoint[];
  /** The raw-SQL ceiling at the same connection counts (absent when the scenario has none or it did not run). */
  raw?: RawPoint[];
}

/** Everything one run measured, as the report prints it. */
export interface BenchRun {
  startedAt: Date;
  baseUrl: string;
  /** e.g. "patchbay 0.1.0, node v20..., PostgreSQL" (from /api/status/). */
  server: string;
  database: string;
  machine: string;
  settings: string;
  seed: SeedResult | null;
  scenarios: ScenarioResult[];
  skipped: Array<{ name: string; reason: string }>;
  writes: WriteRow[];
  /** The same INSERT as create_single's from a raw client, at each thread count (tests/bench/raw-writes.ts). */
  rawWrites: RawWritePoint[];
  /** The template sandbox phase (renders/s, exports/s, memory), when it ran. */
  templates?: TemplateResult;
  failures: string[];
  /** From the server's output: distinct failure messages. */
  serverErrors: LoggedError[];
  serverLog: string;
  seconds: number;
  /** Seconds the VACUUM (ANALYZE) after seeding took (PostgreSQL); null when not run. */
}

/** 1,234.5 as the baseline writes numbers; a dash for what was not measured. */
export function num(n: number | undefined, digits = 1): string {
  if (n === undefined || !Number.isFinite(n)) return '–';
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** How many times `a` is `b`: "×12.3". */
function times(a: number, b: number | undefined): string {
  if (b === undefined || !Number.isFinite(a) || !(b > 0)) return '';
  const r = a / b;
  return `×${num(r, r >= 100 ? 0 : 1)}`;
}

function ratio(api: number, raw: number | undefined): string {
  if (raw === undefined || !Number.isFinite(api) || !(raw > 0)) return '';
  return num(api / raw, 2);
}

function scenarioTable(run: BenchRun): string[] {
  const lines = [
    '| scenario | conns | req/s | p50 ms | p99 ms | errors | resp KiB | verify | NetBox req/s | vs NetBox | raw req/s | raw p50 ms | API/raw |',
    '|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|',
  ];
  for (const s of run.scenarios) {
    for (const p of s.points) {
      const nb = s.inBaseline ? netboxPoint(s.name, p.connections) : undefined;
      const raw = s.raw?.find((r) => r.connections === p.connections);
      const statuses = Object.entries(p.statuses).map(([code, n]) => `${n}×${code}`).join(' ');
      lines.push(`| ${s.name}${s.inBaseline ? '' : '*'} | ${p.connections} | ${num(p.reqPerSec)} | ${num(p.latency.p50)} | ${num(p.latency.p99)} `
        + `| ${p.errors}${statuses ? ` (${statuses})` : ''} | ${num(s.respKiB)} | ${s.verify.note} | ${nb ? num(nb.reqPerSec) : ''} | ${times(p.reqPerSec, nb?.reqPerSec)} `
        + `| ${raw?.error ? 'sql error' : num(raw?.reqPerSec)} | ${raw?.error ? '' : num(raw?.latency.p50, 2)} | ${ratio(p.reqPerSec, raw?.reqPerSec)} |`);
    }
    if (!s.points.length) {
      lines.push(`| ${s.name}${s.inBaseline ? '' : '*'} | – | – | – | – | – | ${num(s.respKiB)} | ${s.verify.note} | | | | | |`);
    }
  }
  return lines;
}

function writesTable(run: BenchRun): string[] {
  const lines = [
    '| phase | threads | obj/s | p50 ms/request | p99 ms/request | errors | NetBox obj/s | vs NetBox | raw obj/s | raw p50 ms | API/raw |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const w of run.writes) {
    const nb = NETBOX_WRITES[`${w.phase}/${w.threads}`];
    // The raw ceiling is the same INSERT with the triggers as served (mode log).
    const raw = w.phase === 'create_single' && (w.mode ?? 'log') === 'log' ? run.rawWrites.find((r) => r.threads === w.threads && !r.error) : undefined;
    lines.push(`| ${w.phase}${w.mode && w.mode !== 'log' ? ` (${w.mode})` : ''} | ${w.threads} | ${num(w.objPerSec)} | ${num(w.latency.p50)} | ${num(w.latency.p99)} | ${w.errors} `
      + `| ${nb ? num(nb.objPerSec) : ''} | ${times(w.objPerSec, nb?.objPerSec)} | ${raw ? num(raw.objPerSec) : ''} | ${raw ? num(raw.latency.p50, 2) : ''} | ${ratio(w.objPerSec, raw?.objPerSec)} |`);
  }
  return lines;
}

function seedTable(seed: SeedResult): string[] {
  const lines = [
    '| type | op | objects | requests | seconds | obj/s | NetBox obj/s | vs NetBox | note |',
    '|---|---|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const r of seed.rows) {
    const rate = r.seconds > 0 ? r.objects / r.seconds : Number.NaN;
    const nb = NETBOX_SEED_OBJ_PER_SEC[r.type];
    const note = r.error ? `FAILED: ${r.error.replace(/\|/g, '\\|')}` : r.skipped ? `skipped: ${r.skipped}` : '';
    lines.push(`| ${r.type} | ${r.op} | ${num(r.objects, 0)} | ${r.requests} | ${r.skipped ? '–' : num(r.seconds, 2)} | ${num(rate)} `
      + `| ${nb === undefined ? '' : num(nb)} | ${r.skipped ? '' : times(rate, nb)} | ${note} |`);
  }
  return lines;
}

export function renderReport(run: BenchRun): string {
  const seed = run.seed;
  const out: string[] = [
    `# Patchbay benchmark, ${run.startedAt.toISOString()}`,
    '',
    `- **${run.server}**${run.baseUrl ? ` at \`${run.baseUrl}\`` : ''}, ${run.settings}`,
    `  - database: ${run.database}`,
    `  - machine: ${run.machine}`,
    `  - NetBox columns: ${BASELINE_SOURCE}`,
    '  - raw: the same rows by one hand-written SQL query (foreign keys joined, tags aggregated, count(*) for lists) in the bench process '
      + 'through the same database layer, JSON.stringify\'d; API/raw is the share of that ceiling the API reaches',
    '  - `*` marks scenarios that are not in the NetBox baseline',
  ];
  if (seed) {
    out.push(`  - seed: ${num(seed.totalObjects, 0)} objects in ${num(seed.totalSeconds)} s = ${num(seed.totalObjects / seed.totalSeconds)} obj/s `
      + `(bulk POST batches of 250; NetBox ${num(NETBOX_SEED_TOTAL_OBJ_PER_SEC)} obj/s)`);
  }
  out.push('  - then straight to the scenarios: no manual ANALYZE or VACUUM; statistics are the server\'s own maintenance (docs/maintenance.md)');
  out.push(`  - whole run: ${num(run.seconds, 0)} s`, '');
  out.push(...scenarioTable(run), '');
  if (run.skipped.length) {
    out.push('Not run (their object types do not exist yet, or were not seeded):', '');
    for (const s of run.skipped) out.push(`- ${s.name}: ${s.reason}`);
    out.push('');
  }
  if (run.writes.length) {
    out.push('## Writes (IP addresses created one POST each, then bulk PATCH and bulk DELETE in batches of 100)', '');
    out.push('raw: the INSERT create_single sends for each object, from the bench through the same database layer, one autocommit statement per object on as many connections as threads, every trigger active (change log, outbox, occupancy); API/raw is the share of that ceiling the API reaches.', '');
    out.push(...writesTable(run), '');
  }
  if (run.templates) {
    out.push('## Templates (the sandbox: render/ and ?export=, with the server\'s resident memory)', '', ...templateSection(run.templates), '');
  }
  if (seed) out.push('## Seeding', '', ...seedTable(seed), '');
  out.push('## Scenario requests', '', '| scenario | request |', '|---|---|');
  for (const s of run.scenarios) out.push(`| ${s.name} | ${s.request} |`);
  out.push('');
  if (run.failures.length) {
    out.push('## Failures', '');
    for (const f of run.failures) out.push(`- ${f}`);
    out.push('');
  }
  if (run.serverErrors.length) {
    out.push(`## Server errors (from ${run.serverLog})`, '');
    for (const e of run.serverErrors) {
      out.push(`- ${e.count}× \`${e.message.replace(/`/g, "'")}\``);
      for (const d of e.detail) out.push(`  - ${d}`);
    }
    out.push('');
  }
  return out.join('\n');
}

/** test-output/bench-<date>.md under the repository root; returns the path written. */
export function writeReport(root: string, run: BenchRun, text: string): string {
  const stamp = run.startedAt.toISOString().replace(/:/g, '-').replace(/\.\d+Z$/, 'Z');
  const file = path.join(root, 'test-output', `bench-${stamp}.md`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${text}\n`);
  return file;
}
