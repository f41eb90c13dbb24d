import type { ResolvedModel } from '../definitions/registry-types';
import type { CallContext } from '../http/api-context';
import { tracedPath } from '../domain/cables/cable-trace';
import { sameValue, withoutOrigins, type Difference } from './compare';
import type { SourceApi, SourceObject } from './source-api';

/**
 * Cable paths are not copied: the target traces them again from the imported cables and terminations.
 * For every cabled endpoint of a type serving NetBox's /trace/ (the trace_path detail action), the
 * source's trace and the target's must be the same, hop by hop.
 */
export async function traceDifferences(ctx: CallContext, api: SourceApi, model: ResolvedModel, objects: readonly SourceObject[], skip: ReadonlySet<number>, origins: readonly string[]): Promise<Difference[]> {
  const segment = [...model.detailActions].find(([, use]) => use.action === 'trace_path')?.[0];
  if (!segment) return [];
  const cabled = objects.filter((o) => o.cable !== null && o.cable !== undefined && !skip.has(o.id));
  const out: Difference[] = [];
  await Promise.all(
    cabled.map(async (o) => {
      const source = withoutOrigins(await api.getJson(`/api/${model.app}/${model.path}/${o.id}/${segment}/`), origins);
      const target = withoutOrigins(await tracedPath(ctx, model, o.id), origins);
      if (!sameValue(source, target)) out.push({ type: model.label, id: o.id, field: `${segment}/`, source, target });
    }),
  );
  return out.sort((a, b) => a.id - b.id);
}
