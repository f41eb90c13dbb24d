import type { Config } from '../config';

export interface Page {
  /** null: every matching row */
  limit: number | null;
  offset: number;
}

/**
 * A paging parameter as NetBox reads it: a non-negative integer (Python's int(): surrounding spaces and a
 * sign allowed), or undefined when absent or unreadable — NetBox then falls back to its default.
 */
function nonNegativeInt(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name);
  const m = raw === null ? null : /^\s*\+?(\d+)\s*$/.exec(raw);
  if (!m) return undefined;
  return Math.min(Number(m[1]), Number.MAX_SAFE_INTEGER);
}

/**
 * limit/offset as NetBox's OptionalLimitOffsetPagination: PAGINATE_COUNT by default, MAX_PAGE_SIZE caps
 * limit and limit=0 asks for the cap; with MAX_PAGE_SIZE=0 there is no cap and limit=0 returns all.
 */
export function pageOf(config: Config, query: URLSearchParams): Page {
  const offset = nonNegativeInt(query, 'offset') ?? 0;
  const asked = nonNegativeInt(query, 'limit');
  const max = config.maxPageSize;
  let limit: number | null;
  if (asked === undefined) limit = max ? Math.min(config.paginateCount, max) : config.paginateCount;
  else if (asked === 0) limit = max ? max : null;
  else limit = max ? Math.min(asked, max) : asked;
  return { limit, offset };
}

/** Links to the neighbouring pages, always carrying limit and offset (offset=0 included). */
export function pageLinks(url: string, page: Page, count: number): { next: string | null; previous: string | null } {
  if (page.limit === null) return { next: null, previous: null };
  const limit = page.limit;
  const make = (offset: number) => {
    const u = new URL(url);
    u.searchParams.set('limit', String(limit));
    u.searchParams.set('offset', String(offset));
    return u.toString();
  };
  const next = page.offset + limit < count ? make(page.offset + limit) : null;
  const previous = page.offset > 0 ? make(Math.max(0, page.offset - limit)) : null;
  return { next, previous };
}
