import type { Config } from '../config';
import { HttpError } from './http-error';

export interface Page {
  /** null: every matching row */
  limit: number | null;
  offset: number;
}

function nonNegativeInt(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === null || raw === '') return undefined;
  if (!/^\d{1,15}$/.test(raw)) throw new HttpError(400, { [name]: ['A valid integer is required.'] });
  return Number(raw);
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
