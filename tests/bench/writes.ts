import { ApiClient, excerpt, isObject, listBody, type JsonObject } from './http-client';
import { summarize, type LatencySummary } from './stats';

/** One row of the baseline's Writes table. */
export interface WriteRow {
  phase: 'create_single' | 'bulk_patch' | 'bulk_delete' | 'device_51_components';
  /** The condition it ran under (tests/bench/write-modes.ts): log, nolog or webhook. */
  mode?: string;
  threads: number;
  objects: number;
  requests: number;
  seconds: number;
  objPerSec: number;
  /** Per request. */
  latency: LatencySummary;
  errors: number;
  /** First failure seen, for the report. */
  firstError?: string;
}

const ENDPOINT = '/api/ipam/ip-addresses/';
const BATCH = 100;

/** Runs `jobs` with `threads` workers pulling from one queue; each job's latency is recorded. */
export async function pool<T>(jobs: T[], threads: number, run: (job: T) => Promise<string | null>): Promise<{ latencies: number[]; errors: string[]; seconds: number }> {
  const latencies: number[] = [];
  const errors: string[] = [];
  let next = 0;
  const start = performance.now();
  const worker = async () => {
    while (next < jobs.length) {
      const job = jobs[next++]!;
      const t0 = performance.now();
      let err: string | null;
      try {
        err = await run(job);
      } catch (e) {
        err = (e as Error).message;
      }
      latencies.push(performance.now() - t0);
      if (err) errors.push(err);
    }
  };
  await Promise.all(Array.from({ length: threads }, worker));
  return { latencies, errors, seconds: (performance.now() - start) / 1000 };
}

export function row(phase: WriteRow['phase'], threads: number, objects: number, r: { latencies: number[]; errors: string[]; seconds: number }): WriteRow {
  return {
    phase, threads, objects, requests: r.latencies.length, seconds: r.seconds,
    objPerSec: objects / r.seconds, latency: summarize(r.latencies), errors: r.errors.length, firstError: r.errors[0],
  };
}

const chunks = <T>(xs: T[], n: number): T[][] => Array.from({ length: Math.ceil(xs.length / n) }, (_, i) => xs.slice(i * n, i * n + n));

/**
 * The baseline's writes: `objects` IP addresses created one POST each, then PATCHed and DELETEd in bulk
 * requests of 100, with `threads` client threads. `round` keeps each run's addresses apart.
 */
export async function runWrites(api: ApiClient, objects: number, threads: number, round: number): Promise<{ rows: WriteRow[]; verify: string | null }> {
  const before = listBody((await api.get(`${ENDPOINT}?limit=1&brief=1`)).json)?.count ?? -1;
  const ids: number[] = [];
  const bodies: JsonObject[] = Array.from({ length: objects }, (_, i) => ({
    address: `10.${200 + (round % 50)}.${Math.floor(i / 250)}.${(i % 250) + 1}/24`,
    status: 'active',
    description: 'bench write',
  }));
  const created = await pool(bodies, threads, async (body) => {
    const res = await api.request('POST', ENDPOINT, body);
    if (res.status !== 201 || !isObject(res.json) || typeof res.json.id !== 'number') return `POST: ${excerpt(res)}`;
    ids.push(res.json.id);
    return null;
  });
  const rows = [row('create_single', threads, objects, created)];

  const patched = await pool(chunks(ids, BATCH), threads, async (batch) => {
    const res = await api.request('PATCH', ENDPOINT, batch.map((id) => ({ id, description: 'bench patched' })));
    if (res.status !== 200 || !Array.isArray(res.json) || res.json.length !== batch.length) return `PATCH: ${excerpt(res)}`;
    if (res.json.some((o) => !isObject(o) || o.description !== 'bench patched')) return 'PATCH: an object came back unpatched';
    return null;
  });
  rows.push(row('bulk_patch', threads, ids.length, patched));

  const deleted = await pool(chunks(ids, BATCH), threads, async (batch) => {
    const res = await api.request('DELETE', ENDPOINT, batch.map((id) => ({ id })));
    return res.status === 204 ? null : `DELETE: ${excerpt(res)}`;
  });
  rows.push(row('bulk_delete', threads, ids.length, deleted));

  const after = listBody((await api.get(`${ENDPOINT}?limit=1&brief=1`)).json)?.count ?? -1;
  const verify = after === before ? null : `ip-addresses count ${after} after the writes, ${before} before`;
  return { rows, verify };
}
