import type { ResolvedModel } from '../definitions/registry-types';
import type { CallContext } from '../http/api-context';
import { listObjects } from '../http/read-handlers';

export type Representation = Record<string, unknown> & { id: number };

/** The origin the target's representations are built under: an import reads them in-process, not over HTTP. */
export const TARGET_ORIGIN = 'http://patchbay.import.invalid';

const PAGE = 1000;

/**
 * Every object of a type as the target's API represents it, by id: the same list statement a client's
 * GET runs (the superuser's view), in pages, in-process.
 */
export async function targetRepresentations(ctx: CallContext, model: ResolvedModel, ids?: ReadonlySet<number>): Promise<Map<number, Representation>> {
  const out = new Map<number, Representation>();
  // The page may come back shorter than asked (MAX_PAGE_SIZE): the next one starts where this one ended.
  for (let offset = 0; ; ) {
    const query = new URLSearchParams({ limit: String(PAGE), offset: String(offset), ordering: 'id' });
    const url = `${TARGET_ORIGIN}/api/${model.app}/${model.path}/?${query}`;
    const body = JSON.parse(await listObjects({ ...ctx, query }, model, url, [])) as { count: number; results: Representation[] };
    for (const r of body.results) if (!ids || ids.has(r.id)) out.set(r.id, r);
    offset += body.results.length;
    if (offset >= body.count || !body.results.length) break;
  }
  return out;
}
