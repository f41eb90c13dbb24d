import type { DetailAction } from '../../http/detail-actions';
import type { Registry, ResolvedModel } from '../../definitions/registry-types';
import { pathNodes, type PathNodes } from '../../definitions/path-nodes';
import type { CallContext } from '../../http/api-context';
import { requireVisible } from '../../http/actions/action-support';
import { jsonOptions } from '../../http/read-handlers';
import { representationOf } from '../../reads/compiled-representations';
import { methodNotAllowed } from '../../http/http-error';
import { and, ident, join, sql, type Sql } from '../../sql/fragment';
import { idAndUrl } from '../../reads/object-json';
import type { Form } from '../../reads/forms';
import { runRows } from '../../database/run';
import { sendJson } from '../../http/respond';
import type { PathNode } from './cable-paths';

/**
 * NetBox's cable trace endpoints, read from the stored paths (engine/domain/cables/cable-paths.ts), never by
 * walking cables: an endpoint's /trace/ (PathEndpointMixin.trace) and a pass-through port's or circuit
 * termination's /paths/ (PassThroughPortMixin.paths, CablePathSerializer). Which models may serve them
 * comes from their `path_node` word.
 */

/** NetBox's TracedCableSerializer: a plain ModelSerializer, so choices are their raw values. */
const TRACED_CABLE = ['id', 'url', 'type', 'status', 'label', 'color', 'length', 'length_unit', 'description'];

function tracedCable(full: Record<string, unknown>): Record<string, unknown> {
  const raw = (v: unknown) => (v !== null && typeof v === 'object' && 'value' in v ? (v as { value: unknown }).value : v);
  return Object.fromEntries(TRACED_CABLE.map((k) => [k, raw(full[k])]));
}

type Objects = Map<string, Record<string, unknown>>;
const keyOf = (label: string, id: number | string) => `${label}:${String(id)}`;

/**
 * Every node of the given paths in its brief (nested) form, a cable in its full form: one statement
 * whatever the length of the paths, one SELECT per type on them joined by UNION ALL. A node the caller
 * may not view (a cable, a far end, a port on the way) is shown by its id and URL only: the path keeps
 * its shape, and nothing of what lies on it is told beyond what the caller may read.
 */
async function nodeObjects(ctx: CallContext, p: PathNodes, paths: PathNode[][][]): Promise<Objects> {
  const ids = new Map<ResolvedModel, Set<number>>();
  for (const hop of paths.flat()) {
    for (const [label, id] of hop) {
      const model = ctx.registry.models.get(label);
      if (!model) continue;
      if (!ids.has(model)) ids.set(model, new Set());
      ids.get(model)!.add(Number(id));
    }
  }
  const out: Objects = new Map();
  if (!ids.size) return out;
  const formOf = (model: ResolvedModel): Form => (model === p.cable.model ? 'full' : 'brief');
  const json = await jsonOptions(ctx, [...ids.keys()].map((model) => ({ model, form: formOf(model) })));
  const selects: Sql[] = [];
  for (const [model, set] of ids) {
    const object = representationOf(ctx.registry, model, formOf(model), new Set(), json);
    const scope = await ctx.scope(model, 'view');
    const visible = scope.allowed ? and(scope.conditions) : sql`FALSE`;
    selects.push(sql`SELECT ${model.label}::text AS "label", "t"."id", (${visible}) AS "visible", (CASE WHEN ${visible} THEN ${object} ELSE ${idAndUrl(model, 't')} END)::text AS "body"
      FROM ${ident(model.table)} AS "t" WHERE "t"."id" = ANY(${[...set]}::bigint[])`);
  }
  // The ids are an array parameter, for which PostgreSQL would plan the large representations again on
  // every execution (9 ms of a trace's 10 on a patch-panel path); the plan for any ids is the same.
  const statement = join(selects, ' UNION ALL ').bindParams({ origin: json.origin });
  const rows = await ctx.knex.transaction(async (trx) => {
    await runRows(trx, sql`SET LOCAL plan_cache_mode = force_generic_plan`);
    return runRows<{ label: string; id: number | string; visible: boolean; body: string }>(trx, statement);
  });
  for (const r of rows) {
    const obj = JSON.parse(r.body) as Record<string, unknown>;
    out.set(keyOf(r.label, r.id), r.visible && r.label === p.cable.model.label ? tracedCable(obj) : obj);
  }
  return out;
}

/**
 * A hop's objects, in path order. A node deleted since the path was stored (a path is retraced in the
 * delete's transaction, so only until that commits) is left out rather than failing the whole answer.
 */
function hopObjects(objects: Objects, hop: PathNode[]): Array<Record<string, unknown>> {
  return hop.flatMap(([label, id]) => {
    const obj = objects.get(keyOf(label, id));
    return obj ? [obj] : [];
  });
}

function paths(registry: Registry): PathNodes {
  const p = pathNodes(registry);
  if (!p) throw new Error('no cable path stores in this registry');
  return p;
}

function kindIs(registry: Registry, model: ResolvedModel, kinds: string[]): { pointer: string; message: string } | null {
  if (!pathNodes(registry)) return { pointer: '', message: 'no model declares the cable path stores (path_node kinds path and path_end)' };
  const kind = model.def.path_node?.kind;
  return kind && kinds.includes(kind) ? null : { pointer: '', message: `${model.label} is not a path_node of kind ${kinds.join(' or ')}` };
}

function getOnly(method: string): void {
  if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed(method, ['GET', 'HEAD', 'OPTIONS']);
}

function docOf(model: ResolvedModel, operationId: string, summary: string, description: string): ReturnType<DetailAction['doc']> {
  return {
    pathItem: {
      get: {
        operationId,
        tags: [model.app],
        summary,
        description,
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
        responses: {
          200: { description: summary, content: { 'application/json': { schema: { type: 'array', items: {} } } } },
          403: { $ref: '#/components/responses/Forbidden' },
          404: { $ref: '#/components/responses/NotFound' },
        },
      },
    },
    schemas: {},
  };
}

/** GET <endpoint>/{id}/trace/: the stored path as [near ends, cable, far ends] segments. */
export const traceAction: DetailAction = {
  methods: ['GET'],
  options: { type: 'object', additionalProperties: false, properties: {} },
  check: (registry, model) => kindIs(registry, model, ['endpoint']),
  async handle(ctx, req, res, { model, id }) {
    getOnly(req.method);
    await requireVisible(ctx, model, id);
    sendJson(req, res, 200, await tracedPath(ctx, model, id));
  },
  doc: (model, { operationId }) => docOf(model, operationId, 'Trace the cable path', 'Each segment of the stored path as [near ends, cable, far ends].'),
};

/** An endpoint's /trace/ answer: each segment of its stored path as [near ends, cable, far ends] (also what an import checks against its source's). */
export async function tracedPath(ctx: CallContext, model: ResolvedModel, id: number): Promise<unknown[]> {
  const p = paths(ctx.registry);
  const e = p.ends;
  const [row] = await runRows<{ path: PathNode[][] }>(ctx.knex, sql`SELECT "s".${ident(p.store.path)} AS "path" FROM ${ident(e.model.table)} AS "e"
    JOIN ${ident(p.store.model.table)} AS "s" ON "s"."id" = "e".${ident(e.path.column)}
    WHERE "e".${ident(e.end)} = 'origin' AND "e".${ident(e.node.typeColumn)} = ${model.label}::text AND "e".${ident(e.node.idColumn)} = ${id}::bigint`);
  const hops: PathNode[][] = [...(row?.path ?? [])];
  // As PathEndpoint.trace(): a path ending at a pass-through port gets empty cable and far end; one ending at a site or provider network an empty cable before it.
  if (hops.length % 3 === 1) hops.push([], []);
  else if (hops.length % 3 === 2) hops.splice(hops.length - 1, 0, []);
  const objects = await nodeObjects(ctx, p, [hops]);
  const out: unknown[] = [];
  for (let i = 0; i < hops.length; i += 3) {
    if (!hops[i]!.length) break;
    out.push([hopObjects(objects, hops[i]!), hops[i + 1]!.length ? (hopObjects(objects, hops[i + 1]!)[0] ?? []) : [], hopObjects(objects, hops[i + 2]!)]);
  }
  return out;
}

/** GET <pass-through port>/{id}/paths/: every stored path through the object, as NetBox's CablePathSerializer. */
export const pathsAction: DetailAction = {
  methods: ['GET'],
  options: { type: 'object', additionalProperties: false, properties: {} },
  check: (registry, model) => kindIs(registry, model, ['front_port', 'rear_port', 'circuit_termination']),
  async handle(ctx, req, res, { model, id }) {
    getOnly(req.method);
    await requireVisible(ctx, model, id);
    const p = paths(ctx.registry);
    const s = p.store;
    const probe = JSON.stringify([[[model.label, id]]]);
    const rows = await runRows<{ id: number | string; path: PathNode[][]; is_active: boolean; is_complete: boolean; is_split: boolean }>(ctx.knex, sql`SELECT "id", ${ident(s.path)} AS "path",
      ${ident(s.isActive)} AS "is_active", ${ident(s.isComplete)} AS "is_complete", ${ident(s.isSplit)} AS "is_split"
      FROM ${ident(s.model.table)} WHERE ${ident(s.path)} @> ${probe}::jsonb ORDER BY "id"`);
    const objects = await nodeObjects(ctx, p, rows.map((r) => r.path));
    const out = rows.map((r) => ({ id: Number(r.id), path: r.path.map((hop) => hopObjects(objects, hop)), is_active: r.is_active, is_complete: r.is_complete, is_split: r.is_split }));
    sendJson(req, res, 200, out);
  },
  doc: (model, { operationId }) => docOf(model, operationId, 'The cable paths through the object', 'Every stored cable path passing through the object: id, path (each hop\'s objects, nested), is_active, is_complete, is_split.'),
};
