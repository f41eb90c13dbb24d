import type { TestApp } from '../../support/test-app';
import { urlOf, type Definitions, type Model } from './definitions';
import type { Rep } from './object-factory';
import type { Universe } from './filter-plan';

export type Query = Array<[string, string]>;

/** Encodes a query exactly as given (repeats kept, every byte percent-encoded as needed). */
export function queryString(query: Query): string {
  return query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
}

export interface ListResult {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  /** ids of the results, in response order (empty unless 200). */
  ids: number[];
}

/** GET a list endpoint with the query (plus limit=10000 unless given: the suite's app allows it); raw query text may be appended. */
export async function list(t: TestApp, model: Model, query: Query, opts: { raw?: string; brief?: boolean } = {}): Promise<ListResult> {
  const extra: Query = [];
  if (!query.some(([k]) => k === 'limit')) extra.push(['limit', '10000']);
  if (opts.brief) extra.push(['brief', '1']);
  const q = [...query, ...extra];
  const raw = opts.raw ?? '';
  const res = await t.api.get(`${urlOf(model)}?${queryString(q)}${raw}`).set(t.auth);
  const ids = res.status === 200 ? (res.body.results as Rep[]).map((r) => r.id as number) : [];
  if (res.status === 200 && res.body.count > ids.length && !query.some(([k]) => k === 'limit')) {
    throw new Error(`${urlOf(model)}: more than one page (${res.body.count}); the suite expects every row on one page`);
  }
  return { status: res.status, body: res.body, ids };
}

export const byNumber = (a: number, b: number) => a - b;
export const sorted = (ids: number[]) => [...ids].sort(byNumber);

/** Every row of the models named (default: every model with a list endpoint), read through the API. */
export async function fetchUniverse(t: TestApp, defs: Definitions, labels?: Set<string>): Promise<Universe> {
  const u: Universe = new Map();
  for (const model of defs.listed) {
    if (labels && !labels.has(model.label)) continue;
    const r = await list(t, model, []);
    if (r.status !== 200) throw new Error(`listing ${model.label}: ${r.status} ${JSON.stringify(r.body)}`);
    u.set(model.label, new Map((r.body.results as Rep[]).map((row) => [row.id as number, row])));
  }
  return u;
}

/**
 * A Universe kept across models: a model's rows are read again only when they may have changed since
 * (the factory marks every model it writes to as dirty).
 */
export class UniverseCache {
  private readonly u: Universe = new Map();

  constructor(private readonly t: TestApp, private readonly defs: Definitions, private readonly dirty: Set<string>) {}

  async get(labels: Set<string>): Promise<Universe> {
    const stale = new Set([...labels].filter((l) => !this.u.has(l) || this.dirty.has(l)));
    if (stale.size) {
      const fresh = await fetchUniverse(this.t, this.defs, stale);
      for (const [label, rows] of fresh) {
        this.u.set(label, rows);
        this.dirty.delete(label);
      }
    }
    return this.u;
  }
}
