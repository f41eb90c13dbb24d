import { ApiClient, excerpt, isObject, listBody, type JsonObject } from './http-client';
import type { DataShape } from './data-shape';
import { SEED_STEPS, type SeedContext, type SeedStep } from './seed-plan';

/** One row of the Seeding table. */
export interface SeedRow {
  type: string;
  op: string;
  objects: number;
  requests: number;
  seconds: number;
  /** Why the step did not run (its type, or one it needs, does not exist yet). */
  skipped?: string;
  error?: string;
}

export interface SeedResult {
  rows: SeedRow[];
  /** Ids created per endpoint, in creation order; an endpoint whose step failed has none. */
  ids: Map<string, number[]>;
  totalObjects: number;
  totalSeconds: number;
  failed: boolean;
}

/** Refuses a database that already holds the bench's kind of data (a DATABASE_URL the user gave). */
export async function assertEmpty(api: ApiClient, endpoints: Set<string>): Promise<void> {
  for (const ep of ['dcim/sites', 'ipam/prefixes', 'ipam/ip-addresses']) {
    if (!endpoints.has(ep)) continue;
    const body = listBody((await api.get(`/api/${ep}/?limit=1&brief=1`)).json);
    if (body && body.count > 0) {
      throw new Error(`the database behind DATABASE_URL already has ${ep} (count ${body.count}); the bench needs an empty one `
        + '(unset DATABASE_URL to let it recreate patchbay_bench)');
    }
  }
}

async function runStep(api: ApiClient, step: SeedStep, items: JsonObject[]): Promise<{ ids: number[]; requests: number; error?: string }> {
  const ids: number[] = [];
  let requests = 0;
  const method = step.op === 'create' ? 'POST' : 'PATCH';
  for (let i = 0; i < items.length; i += step.batch) {
    const batch = items.slice(i, i + step.batch);
    const res = await api.request(method, `/api/${step.endpoint}/`, batch);
    requests++;
    const expected = step.op === 'create' ? 201 : 200;
    if (res.status !== expected || !Array.isArray(res.json) || res.json.length !== batch.length) {
      return { ids, requests, error: `${method} /api/${step.endpoint}/ (batch ${requests}, ${batch.length} objects): ${excerpt(res)}` };
    }
    for (const o of res.json) {
      if (!isObject(o) || typeof o.id !== 'number') return { ids, requests, error: `${method} /api/${step.endpoint}/ answered an object without id` };
      ids.push(o.id);
    }
  }
  return { ids, requests };
}

/** Seeds the baseline's data set over HTTP, type by type, in bulk requests; types the server lacks are skipped. */
export async function seed(api: ApiClient, endpoints: Set<string>, shape: DataShape, log: (line: string) => void): Promise<SeedResult> {
  const ids = new Map<string, number[]>();
  const ctx: SeedContext = { shape, ids: (ep) => ids.get(ep) ?? [] };
  const rows: SeedRow[] = [];
  let failed = false;
  const started = performance.now();
  for (const step of SEED_STEPS) {
    const row: SeedRow = { type: step.type, op: step.op, objects: 0, requests: 0, seconds: 0 };
    rows.push(row);
    const missing = [...new Set([step.endpoint, ...step.needs])].filter((ep) => !endpoints.has(ep));
    const unseeded = step.needs.filter((ep) => endpoints.has(ep) && !ids.get(ep)?.length);
    if (missing.length) {
      row.skipped = `no ${missing.join(', ')} endpoint`;
      continue;
    }
    if (unseeded.length) {
      row.skipped = `${unseeded.join(', ')} not seeded`;
      continue;
    }
    const items = step.build(ctx);
    const t0 = performance.now();
    const out = await runStep(api, step, items);
    row.seconds = (performance.now() - t0) / 1000;
    row.requests = out.requests;
    row.objects = out.ids.length;
    if (out.error) {
      row.error = out.error;
      failed = true;
      log(`  seed ${step.type}: FAILED ${out.error}`);
      continue;
    }
    if (step.op === 'create') ids.set(step.endpoint, out.ids);
    log(`  seed ${step.type}: ${row.objects} in ${row.seconds.toFixed(2)} s (${(row.objects / row.seconds).toFixed(1)} obj/s)`);
  }
  const totalSeconds = (performance.now() - started) / 1000;
  const totalObjects = rows.reduce((n, r) => n + r.objects, 0);
  return { rows, ids, totalObjects, totalSeconds, failed };
}
