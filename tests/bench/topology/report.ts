import fs from 'node:fs';
import path from 'node:path';
import type { TopologyPoint } from './measure';

export interface TopologyRun {
  startedAt: Date;
  args: string[];
  machine: string;
  settings: string;
  topologies: string[];
  /** Points per topology name, in scenario then connection order. */
  points: Map<string, TopologyPoint[]>;
  failures: string[];
  /** Scenarios whose first answer was wrong for this data set (at a small --scale, say): reported, not measured. */
  notMeasured: string[];
  /** Whether topology (b)'s standby answered any transaction: 'no' on a build without replica routing. */
  replicaRouting: 'yes' | 'no' | 'unknown';
}

const f1 = (n: number) => n.toFixed(1);
const f2 = (n: number) => n.toFixed(2);
const pct = (part: number, all: number) => (all ? `${Math.round((100 * part) / all)}%` : '-');

function mean(xs: number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0;
}

function sideBySide(run: TopologyRun): string[] {
  const [a, b] = run.topologies.map((t) => run.points.get(t) ?? []);
  const out = [
    '| scenario | conns | (a) req/s | (b) req/s | (b)/(a) | (a) p50 ms | (b) p50 ms | (b) reads on standby | (a) CPU ms/req app / primary | (b) CPU ms/req app / primary / standby |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---|---|',
  ];
  for (const pa of a ?? []) {
    const pb = b?.find((p) => p.scenario === pa.scenario && p.connections === pa.connections);
    out.push(`| ${pa.scenario} | ${pa.connections} | ${f1(pa.reqPerSec)} | ${pb ? f1(pb.reqPerSec) : '-'} | ${pb ? f2(pb.reqPerSec / pa.reqPerSec) : '-'} `
      + `| ${f1(pa.p50)} | ${pb ? f1(pb.p50) : '-'} | ${pb ? pct(pb.standbyXacts, pb.standbyXacts + pb.primaryXacts) : '-'} `
      + `| ${f2(pa.appCpuMs)} / ${f2(pa.primaryCpuMs)} | ${pb ? `${f2(pb.appCpuMs)} / ${f2(pb.primaryCpuMs)} / ${f2(pb.standbyCpuMs)}` : '-'} |`);
  }
  return out;
}

/** What a 2-core machine can show, and the arithmetic for N standbys from the measured CPU per request. */
function extrapolation(run: TopologyRun): string[] {
  const [a, b] = run.topologies.map((t) => run.points.get(t) ?? []);
  const app = mean((a ?? []).map((p) => p.appCpuMs));
  const dbOnPrimary = mean((a ?? []).map((p) => p.primaryCpuMs));
  const onStandby = (b ?? []).filter((p) => p.standbyXacts > 0);
  // Without replica routing the standby ran nothing; a read costs a standby what it costs the primary.
  const dbOnStandby = onStandby.length ? mean(onStandby.map((p) => p.standbyCpuMs)) : dbOnPrimary;
  const perRequest = app + dbOnPrimary;
  const cores = 2;
  const lines = [
    '## What this machine can and cannot show',
    '',
    `Every process here (the load generator, ${b ? 'two Patchbay instances' : 'the Patchbay instance'}, the primary and the standby) shares ${cores} cores. Topology (b) `
      + 'adds processes, not CPUs: whatever it moves off the primary still runs on the same two cores, and the standby also spends CPU '
      + 'replaying WAL. So (b)/(a) near 1 is the expected result here, and it says nothing about what a standby on a machine of its '
      + 'own adds. What this machine does show: that (b) works (answers, no errors), which server answered the reads (the "reads on '
      + 'standby" column, from pg_stat_database transaction counts on each server), and how much CPU each tier spends per request, '
      + 'which is what the capacity of a real multi-machine topology follows from.',
    '',
    run.replicaRouting === 'no'
      ? '**This build does not route reads to the standby** (the standby ran no transaction in the bench database during (b): '
        + 'DATABASE_REPLICA_URLS was ignored). The standby figures below are therefore an estimate: a read is assumed to cost a standby '
        + 'what it cost the primary.'
      : run.replicaRouting === 'yes' ? 'The standby answered reads in (b) (see the column above).' : '',
    '',
    `Measured, averaged over the scenarios above: Patchbay ${f2(app)} CPU ms per request (a = app tier), PostgreSQL ${f2(dbOnPrimary)} CPU ms `
      + `per read on the primary (p), ${f2(dbOnStandby)} on a standby (s${onStandby.length ? '' : ', estimated as p'}).`,
    '',
    'On paper, with the tiers on machines of their own (C cores each), reads fully routed to the standbys and the primary kept for',
    'writes, leases and heartbeats (W CPU ms per second of its own, from the write bench):',
    '',
    '```',
    'reads/s  ≈ min( N_standby × C × 1000 / s ,  N_app_cores × 1000 / a )',
    'primary  ≈ writes/s × w + W        (w: CPU ms per write; unchanged by standbys)',
    'on one 2-core machine (everything shared):  reads/s ≤ 2000 / (a + p)',
    '```',
    '',
    `With the figures above: a 2-core standby adds about ${f1((cores * 1000) / dbOnStandby)} reads/s of database capacity, so N standbys give `
      + `≈ ${f1((cores * 1000) / dbOnStandby)} × N reads/s as long as there are ${f2(dbOnStandby ? app / dbOnStandby : 0)} app cores per standby core `
      + `(a/s) in front of them; on one shared 2-core machine the ceiling is 2000 / (a + p) ≈ ${f1(perRequest ? (cores * 1000) / perRequest : 0)} req/s, `
      + 'whatever the topology. These are CPU-bound figures: they leave out network round trips between machines (which add latency, '
      + 'not CPU) and assume reads that fit in memory on every server.',
    '',
  ];
  return lines;
}

export function renderTopologyReport(run: TopologyRun): string {
  const out = [
    `# Topology bench (${run.startedAt.toISOString()})`,
    '',
    `Command: \`npm run bench -- ${run.args.join(' ')}\``,
    '',
    `- Machine: ${run.machine}`,
    `- Settings: ${run.settings}`,
    `- Topologies: ${run.topologies.join('; ')}`,
    '',
    '## Read throughput, side by side',
    '',
    ...sideBySide(run),
    '',
    ...extrapolation(run),
  ];
  if (run.notMeasured.length) out.push('## Not measured', '', ...run.notMeasured.map((f) => `- ${f.replace(/\n/g, '\n  ')}`), '');
  if (run.failures.length) out.push('## Failures', '', ...run.failures.map((f) => `- ${f.replace(/\n/g, '\n  ')}`), '');
  return out.join('\n');
}

/** test-output/topology-<date>.md, beside the main bench's bench-<date>.md. */
export function writeTopologyReport(root: string, run: TopologyRun, text: string): string {
  const stamp = run.startedAt.toISOString().replace(/:/g, '-').replace(/\.\d+Z$/, 'Z');
  const file = path.join(root, 'test-output', `topology-${stamp}.md`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${text}\n`);
  return file;
}
