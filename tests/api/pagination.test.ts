/**
 * Paginated lists (spec 4.3, 8): count/next/previous/results, limit and offset, PAGINATE_COUNT,
 * MAX_PAGE_SIZE (limit=0 means the cap; MAX_PAGE_SIZE=0 lifts it), links that always carry limit and
 * offset, invalid values, and an ordering stable enough that pages never overlap.
 */
import { startTestApp, type TestApp } from '../support/test-app';

type Json = Record<string, unknown>;

interface Page {
  count: number;
  next: string | null;
  previous: string | null;
  results: Json[];
}

/** Seeding a thousand objects on the embedded database of a busy 2-core machine can take a while. */
const SETUP_TIMEOUT = 180_000;

/** Creates `n` objects with one bulk POST per chunk; returns their ids in creation order. */
async function bulkCreate(t: TestApp, path: string, n: number, make: (i: number) => Json): Promise<number[]> {
  const ids: number[] = [];
  for (let start = 0; start < n; start += 250) {
    const items = Array.from({ length: Math.min(250, n - start) }, (_, k) => make(start + k));
    const res = await t.api.post(path).set(t.auth).send(items);
    if (res.status !== 201) throw new Error(`bulk POST ${path} -> ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
    ids.push(...(res.body as Json[]).map((o) => o.id as number));
  }
  return ids;
}

async function page(t: TestApp, url: string): Promise<Page> {
  const res = await t.api.get(url).set(t.auth);
  if (res.status !== 200) throw new Error(`GET ${url} -> ${res.status} ${JSON.stringify(res.body)}`);
  expect(Object.keys(res.body as object)).toEqual(['count', 'next', 'previous', 'results']);
  return res.body as Page;
}

/** The path and query of a link, checked to be absolute and to point at the same list. */
function follow(link: string, listPath: string): string {
  expect(link).toMatch(/^https?:\/\/[^/]+\//);
  const u = new URL(link);
  expect(u.pathname).toBe(listPath);
  return `${u.pathname}${u.search}`;
}

function paramsOf(link: string | null): Record<string, string> | null {
  if (link === null) return null;
  return Object.fromEntries(new URL(link).searchParams.entries());
}

/** Walks every page from `first`, following next links; returns the ids seen, in order. */
async function walk(t: TestApp, listPath: string, first: string): Promise<{ ids: number[]; pages: number }> {
  const ids: number[] = [];
  let url: string | null = first;
  let pages = 0;
  while (url !== null) {
    const p: Page = await page(t, url);
    ids.push(...p.results.map((r) => r.id as number));
    url = p.next === null ? null : follow(p.next, listPath);
    if (++pages > 500) throw new Error('too many pages');
  }
  return { ids, pages };
}

describe('defaults (PAGINATE_COUNT 50, MAX_PAGE_SIZE 1000)', () => {
  let t: TestApp;
  const TAGS = '/api/extras/tags/';
  const PREFIXES = '/api/ipam/prefixes/';
  const TOTAL = 130;
  let tagIds: number[];

  beforeAll(async () => {
    // The prefixes repeat on purpose (ties the ordering must break by id): unique IP space is off.
    t = await startTestApp({ env: { ENFORCE_GLOBAL_UNIQUE: 'false' } });
    // Names created out of order, so the list's ordering (by name) differs from creation order.
    tagIds = await bulkCreate(t, TAGS, TOTAL, (i) => {
      const k = (i * 37) % TOTAL;
      return { name: `tag ${String(k).padStart(4, '0')}`, slug: `tag-${k}` };
    });
    // Many prefixes share the same network, so only the id tie-breaker keeps pages apart.
    await bulkCreate(t, PREFIXES, 1100, (i) => ({ prefix: `10.${i % 3}.0.0/16`, description: `p${i}` }));
  }, SETUP_TIMEOUT);
  afterAll(async () => {
    await t.close();
  });

  test('no limit: the first 50, count is the total, next carries limit=50&offset=50, previous null', async () => {
    const p = await page(t, TAGS);
    expect(p.count).toBe(TOTAL);
    expect(p.results).toHaveLength(50);
    expect(paramsOf(p.next)).toEqual({ limit: '50', offset: '50' });
    expect(p.previous).toBeNull();
    follow(p.next!, TAGS);
  });

  test('results follow the default ordering (by name)', async () => {
    const p = await page(t, `${TAGS}?limit=1000`);
    const names = p.results.map((r) => r.name as string);
    expect(names).toEqual([...names].sort());
    expect(p.results.map((r) => r.id).sort((a, b) => Number(a) - Number(b))).toEqual([...tagIds].sort((a, b) => a - b));
  });

  test('limit=100 with no offset: the first 100, next at offset 100 with the same limit', async () => {
    const all = await page(t, `${TAGS}?limit=1000`);
    const p = await page(t, `${TAGS}?limit=100`);
    expect(p.count).toBe(TOTAL);
    expect(p.results.map((r) => r.id)).toEqual(all.results.slice(0, 100).map((r) => r.id));
    expect(paramsOf(p.next)).toEqual({ limit: '100', offset: '100' });
    expect(p.previous).toBeNull();
    const second = await page(t, follow(p.next!, TAGS));
    expect(second.results.map((r) => r.id)).toEqual(all.results.slice(100).map((r) => r.id));
    expect(second.next).toBeNull();
    expect(paramsOf(second.previous)).toEqual({ limit: '100', offset: '0' });
  });

  test('limit and offset select a window; previous includes offset=0', async () => {
    const all = await page(t, `${TAGS}?limit=1000`);
    const p = await page(t, `${TAGS}?limit=10&offset=10`);
    expect(p.count).toBe(TOTAL);
    expect(p.results.map((r) => r.id)).toEqual(all.results.slice(10, 20).map((r) => r.id));
    expect(paramsOf(p.next)).toEqual({ limit: '10', offset: '20' });
    expect(paramsOf(p.previous)).toEqual({ limit: '10', offset: '0' });
    const prev = await page(t, follow(p.previous!, TAGS));
    expect(prev.results.map((r) => r.id)).toEqual(all.results.slice(0, 10).map((r) => r.id));
    expect(prev.previous).toBeNull();
  });

  test('an offset that is not a multiple of the limit: previous clamps at 0', async () => {
    const p = await page(t, `${TAGS}?limit=10&offset=4`);
    expect(paramsOf(p.previous)).toEqual({ limit: '10', offset: '0' });
    expect(paramsOf(p.next)).toEqual({ limit: '10', offset: '14' });
  });

  test('the last page: next null; past the end: empty results, count still the total', async () => {
    const last = await page(t, `${TAGS}?limit=50&offset=100`);
    expect(last.results).toHaveLength(TOTAL - 100);
    expect(last.next).toBeNull();
    expect(paramsOf(last.previous)).toEqual({ limit: '50', offset: '50' });
    const exact = await page(t, `${TAGS}?limit=65&offset=65`);
    expect(exact.results).toHaveLength(65);
    expect(exact.next).toBeNull();
    const beyond = await page(t, `${TAGS}?limit=10&offset=500`);
    expect(beyond.count).toBe(TOTAL);
    expect(beyond.results).toEqual([]);
    expect(beyond.next).toBeNull();
    expect(paramsOf(beyond.previous)).toEqual({ limit: '10', offset: '490' });
  });

  test('links keep the other query parameters', async () => {
    const p = await page(t, `${TAGS}?brief=1&limit=20&offset=20`);
    expect(paramsOf(p.next)).toEqual({ brief: '1', limit: '20', offset: '40' });
    expect(paramsOf(p.previous)).toEqual({ brief: '1', limit: '20', offset: '0' });
    expect(Object.keys(p.results[0]!)).toEqual(['id', 'url', 'display', 'name', 'slug', 'color']);
  });

  test('MAX_PAGE_SIZE (1000) caps limit; limit=0 means the cap, with a next link when more remain', async () => {
    const capped = await page(t, `${PREFIXES}?limit=5000`);
    expect(capped.count).toBe(1100);
    expect(capped.results).toHaveLength(1000);
    expect(paramsOf(capped.next)).toEqual({ limit: '1000', offset: '1000' });
    const zero = await page(t, `${PREFIXES}?limit=0`);
    expect(zero.count).toBe(1100);
    expect(zero.results).toHaveLength(1000);
    expect(paramsOf(zero.next)).toEqual({ limit: '1000', offset: '1000' });
    const rest = await page(t, follow(zero.next!, PREFIXES));
    expect(rest.results).toHaveLength(100);
    expect(rest.next).toBeNull();
    expect(paramsOf(rest.previous)).toEqual({ limit: '1000', offset: '0' });
  });

  test('limit=0 when everything fits under the cap: all of it, next null', async () => {
    const p = await page(t, `${TAGS}?limit=0`);
    expect(p.results).toHaveLength(TOTAL);
    expect(p.next).toBeNull();
    expect(p.previous).toBeNull();
  });

  test('stable ordering: walking small pages sees every object exactly once, in the order of one big page', async () => {
    // Prefixes are ordered by (vrf, prefix): 1100 rows share three values, so ties are the rule here.
    const big = await page(t, `${PREFIXES}?limit=1000`);
    const bigRest = await page(t, `${PREFIXES}?limit=1000&offset=1000`);
    const expected = [...big.results, ...bigRest.results].map((r) => r.id as number);
    expect(new Set(expected).size).toBe(1100);
    const walked = await walk(t, PREFIXES, `${PREFIXES}?limit=37`);
    expect(walked.pages).toBe(Math.ceil(1100 / 37));
    expect(walked.ids).toEqual(expected);
    const tags = await walk(t, TAGS, `${TAGS}?limit=7&offset=0`);
    expect(tags.ids).toEqual((await page(t, `${TAGS}?limit=0`)).results.map((r) => r.id));
  });

  // NetBox's paginator reads limit and offset with Python's int(): what it cannot read (or a negative
  // number) falls back to the default page size, or to offset 0; a huge limit is capped at MAX_PAGE_SIZE.
  test.each([
    ['limit=abc', 50, 0],
    ['limit=-1', 50, 0],
    ['limit=1.5', 50, 0],
    ['limit=1e3', 50, 0],
    ['limit=99999999999999999999', 1000, 0],
    ['limit=%2B7', 7, 0],
    ['offset=abc', 50, 0],
    ['offset=-1', 50, 0],
    ['offset=2.5', 50, 0],
    ['limit=10&offset=x', 10, 0],
    ['limit=%207%20&offset=%203', 7, 3],
  ])('%s is read as limit %i, offset %i', async (query, limit, offset) => {
    const all = (await page(t, `${TAGS}?limit=0`)).results.map((r) => r.id);
    const res = await t.api.get(`${TAGS}?${query}`).set(t.auth);
    expect(res.status).toBe(200);
    expect((res.body as { results: Array<{ id: number }> }).results.map((r) => r.id)).toEqual(all.slice(offset, offset + limit));
  });

  test('an empty list: count 0, no links, no results', async () => {
    const p = await page(t, '/api/ipam/vrfs/');
    expect(p).toEqual({ count: 0, next: null, previous: null, results: [] });
    const offset = await page(t, '/api/ipam/vrfs/?limit=10&offset=10');
    expect(offset.count).toBe(0);
    expect(offset.results).toEqual([]);
    expect(offset.next).toBeNull();
  });
});

describe('MAX_PAGE_SIZE=20, PAGINATE_COUNT=5', () => {
  let t: TestApp;
  const SITES = '/api/dcim/sites/';
  const TOTAL = 47;

  beforeAll(async () => {
    t = await startTestApp({ env: { MAX_PAGE_SIZE: '20', PAGINATE_COUNT: '5' } });
    await bulkCreate(t, SITES, TOTAL, (i) => ({ name: `site ${String(i).padStart(3, '0')}`, slug: `site-${i}` }));
  }, SETUP_TIMEOUT);
  afterAll(async () => {
    await t.close();
  });

  test('the default page size is PAGINATE_COUNT', async () => {
    const p = await page(t, SITES);
    expect(p.count).toBe(TOTAL);
    expect(p.results).toHaveLength(5);
    expect(paramsOf(p.next)).toEqual({ limit: '5', offset: '5' });
  });

  test('a limit above MAX_PAGE_SIZE is capped, and the links carry the capped limit', async () => {
    const p = await page(t, `${SITES}?limit=100`);
    expect(p.results).toHaveLength(20);
    expect(paramsOf(p.next)).toEqual({ limit: '20', offset: '20' });
    const second = await page(t, `${SITES}?limit=100&offset=20`);
    expect(second.results).toHaveLength(20);
    expect(paramsOf(second.previous)).toEqual({ limit: '20', offset: '0' });
  });

  test('limit=0 means MAX_PAGE_SIZE, with a next link while more remain (pynetbox\'s paging)', async () => {
    const p = await page(t, `${SITES}?limit=0`);
    expect(p.count).toBe(TOTAL);
    expect(p.results).toHaveLength(20);
    expect(paramsOf(p.next)).toEqual({ limit: '20', offset: '20' });
    const walked = await walk(t, SITES, `${SITES}?limit=0`);
    expect(walked.pages).toBe(3);
    expect(new Set(walked.ids).size).toBe(TOTAL);
  });

  test('a limit under the cap is honoured', async () => {
    const p = await page(t, `${SITES}?limit=12&offset=40`);
    expect(p.results).toHaveLength(7);
    expect(p.next).toBeNull();
    expect(paramsOf(p.previous)).toEqual({ limit: '12', offset: '28' });
  });
});

describe('MAX_PAGE_SIZE=0 (no cap)', () => {
  let t: TestApp;
  // Tags: the cheapest type to create in bulk; more of them than the default cap of 1000.
  const TAGS = '/api/extras/tags/';
  const TOTAL = 1203;

  beforeAll(async () => {
    t = await startTestApp({ env: { MAX_PAGE_SIZE: '0' } });
    await bulkCreate(t, TAGS, TOTAL, (i) => ({ name: `t${String(i).padStart(5, '0')}`, slug: `t${i}` }));
  }, SETUP_TIMEOUT);
  afterAll(async () => {
    await t.close();
  });

  test('limit=0 returns every object in one page, next and previous null', async () => {
    const p = await page(t, `${TAGS}?limit=0`);
    expect(p.count).toBe(TOTAL);
    expect(p.results).toHaveLength(TOTAL);
    expect(p.next).toBeNull();
    expect(p.previous).toBeNull();
    expect(new Set(p.results.map((r) => r.id)).size).toBe(TOTAL);
  });

  test('without a limit the default page size still applies', async () => {
    const p = await page(t, TAGS);
    expect(p.results).toHaveLength(50);
    expect(paramsOf(p.next)).toEqual({ limit: '50', offset: '50' });
  });

  test('a large limit is not capped', async () => {
    const p = await page(t, `${TAGS}?limit=1200`);
    expect(p.results).toHaveLength(1200);
    expect(paramsOf(p.next)).toEqual({ limit: '1200', offset: '1200' });
  });
});
