/**
 * The source of an import: a NetBox 3.7 (or anything speaking its REST dialect) read over HTTP with a
 * token. Only what any NetBox answers is used — the API root, list endpoints with limit/offset/ordering,
 * and media URLs — so the importer never depends on Patchbay's own extensions.
 */

export type SourceObject = Record<string, unknown> & { id: number };

export class SourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SourceError';
  }
}

/** Requests in flight at once: list pages are the source's work, and a NetBox has a few workers. */
const IN_FLIGHT = 4;
const ATTEMPTS = 4;
const PAGE = 1000;

export interface SourceApi {
  /** The scheme and host of the source, as its URLs start. */
  origin: string;
  getJson(pathAndQuery: string): Promise<unknown>;
  getBytes(url: string): Promise<Buffer>;
  /** Every object of a list endpoint (`/api/dcim/sites/`), by id; pages are fetched in parallel. */
  listAll(listPath: string, onPage?: (n: number, total: number) => void): Promise<SourceObject[]>;
}

/** A counting gate: at most `n` holders at a time, the others queued in order. */
function gate(n: number): <T>(work: () => Promise<T>) => Promise<T> {
  let free = n;
  const waiting: Array<() => void> = [];
  return async <T>(work: () => Promise<T>): Promise<T> => {
    if (free > 0) free--;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else free++;
    }
  };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function sourceApi(base: string, token: string): SourceApi {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new SourceError(`--from must be a URL such as https://netbox.example.com: ${base}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new SourceError(`--from must be an http or https URL: ${base}`);
  const root = url.href.replace(/\/+$/, '').replace(/\/api$/, '');
  const limit = gate(IN_FLIGHT);
  const headers = { Authorization: `Token ${token}`, Accept: 'application/json' };

  /** One GET, retried on connection errors and on 429/502/503/504 (a source under load or restarting). */
  const get = (target: string): Promise<Response> =>
    limit(async () => {
      for (let attempt = 1; ; attempt++) {
        let res: Response;
        try {
          res = await fetch(target, { headers, redirect: 'follow' });
        } catch (e) {
          if (attempt >= ATTEMPTS) throw new SourceError(`cannot reach ${target}: ${(e as Error).message}`);
          await pause(250 * 2 ** attempt);
          continue;
        }
        if ([429, 502, 503, 504].includes(res.status) && attempt < ATTEMPTS) {
          await res.arrayBuffer().catch(() => undefined);
          await pause(250 * 2 ** attempt);
          continue;
        }
        if (!res.ok) {
          const text = (await res.text().catch(() => '')).slice(0, 300);
          throw new SourceError(`${target} answered ${res.status}: ${text}`);
        }
        return res;
      }
    });

  const absolute = (pathAndQuery: string) => (/^https?:\/\//.test(pathAndQuery) ? pathAndQuery : `${root}${pathAndQuery}`);
  const getJson = async (pathAndQuery: string): Promise<unknown> => {
    const res = await get(absolute(pathAndQuery));
    try {
      return await res.json();
    } catch {
      throw new SourceError(`${absolute(pathAndQuery)} did not answer JSON`);
    }
  };

  const page = async (listPath: string, offset: number, size: number): Promise<{ count: number; results: SourceObject[]; next: unknown }> => {
    const body = (await getJson(`${listPath}?limit=${size}&offset=${offset}&ordering=id`)) as { count?: unknown; results?: unknown; next?: unknown };
    if (typeof body?.count !== 'number' || !Array.isArray(body.results)) throw new SourceError(`${listPath} is not a NetBox list (no count and results)`);
    return { count: body.count, results: body.results as SourceObject[], next: body.next };
  };

  return {
    origin: new URL(root).origin,
    getJson,
    getBytes: async (target) => Buffer.from(await (await get(absolute(target))).arrayBuffer()),
    async listAll(listPath, onPage) {
      const first = await page(listPath, 0, PAGE);
      // A source may clamp the page size below what was asked (MAX_PAGE_SIZE): the first page says by how much.
      const size = first.next ? Math.max(first.results.length, 1) : PAGE;
      const pages = [first.results];
      onPage?.(first.results.length, first.count);
      const rest: Array<Promise<void>> = [];
      for (let offset = first.results.length, k = 1; first.next && offset < first.count; offset += size, k++) {
        const at = k;
        rest.push(
          page(listPath, offset, size).then((p) => {
            pages[at] = p.results;
            onPage?.(p.results.length, first.count);
          }),
        );
      }
      await Promise.all(rest);
      const seen = new Map<number, SourceObject>();
      for (const o of pages.flat()) if (o && typeof o.id === 'number') seen.set(o.id, o);
      return [...seen.values()].sort((a, b) => a.id - b.id);
    },
  };
}
