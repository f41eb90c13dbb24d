import type { Request, Response } from 'express';
import type { Registry, ResolvedField, ResolvedModel } from '../../definitions/registry-types';
import type { JsonSchema } from '../../validation/request-schema';
import type { CallContext } from '../../http/api-context';
import { actionScope, objectJson, requireVisible, requireWithin } from '../../http/actions/action-support';
import { checkWrite } from '../../http/model-routes';
import { parseJsonBody } from '../../http/json-body';
import { sendJson, sendJsonText } from '../../http/respond';
import { createObjectsWith } from '../../writes/write-handlers';
import { HttpError, methodNotAllowed } from '../../http/http-error';
import { and, column, ident, join, sql, type Sql } from '../../sql/fragment';
import { runRows } from '../../database/run';
import { gapsStatement, scopeOrAll, type Gap, type UsedSpans } from './free-space';
import { schemaRef } from '../../openapi/component-names';
import { representationName } from '../../openapi/representation-schema';
import type { Db, DbTransaction } from '../../database/db';

/**
 * What the allocation actions share (available-ips, available-prefixes, available-vlans, available-asns):
 * the options naming the parent's span, the type created and the field receiving the value; the scope
 * that free space and the lock are counted in; and the request flow NetBox's AvailableObjectsView has
 * (GET lists what is free, POST one object or a list allocates in order: 201, or 409 when not enough
 * remains and nothing is written).
 */
export interface AllocationOptions {
  /** The created type (`ipam.ipaddress`). */
  creates: string;
  /** Its field that receives the allocated value (`address`). */
  value: string;
  /** Created field -> the parent's field, or "id" for the parent itself: set on every created object (`{"vrf": "vrf"}`, `{"group": "id"}`). */
  set?: Record<string, string>;
  /** Created fields (keys of `set`) whose values delimit the space: only rows with the parent's values are used space (`["vrf"]`). */
  scope?: string[];
  /** With scope: the parent's field -> values that, while the parent's own scope fields are unset, make every row count, whatever its scope (a global container prefix). */
  unscoped_when?: Record<string, Array<string | number | boolean>>;
  /** Keys of `set` shown, nested, beside each free value of a GET (`["vrf"]`). */
  shows?: string[];
}

export const ALLOCATION_OPTIONS: Record<string, JsonSchema> = {
  creates: { type: 'string' },
  value: { type: 'string' },
  set: { type: 'object', additionalProperties: { type: 'string' } },
  scope: { type: 'array', items: { type: 'string' } },
  unscoped_when: { type: 'object', additionalProperties: { type: 'array', items: { type: ['string', 'number', 'boolean'] } } },
  shows: { type: 'array', items: { type: 'string' } },
};

export type Problem = { pointer: string; message: string } | null;

export function createdModel(registry: Registry, o: AllocationOptions): ResolvedModel {
  return registry.models.get(o.creates)!;
}

/** The checks every allocation's options need: the created type and its fields exist, the parent's fields too. */
export function checkAllocation(registry: Registry, model: ResolvedModel, o: AllocationOptions, valueKinds: readonly string[]): Problem {
  const created = registry.models.get(o.creates);
  if (!created) return { pointer: '/creates', message: `unknown model "${o.creates}"` };
  const v = created.fields.get(o.value);
  if (!v || !valueKinds.includes(v.kind)) return { pointer: '/value', message: `"${o.value}" is not a ${valueKinds.join(' or ')} field of ${created.label}` };
  for (const [mine, theirs] of Object.entries(o.set ?? {})) {
    const f = created.fields.get(mine);
    if (!f || f.kind !== 'fk') return { pointer: `/set/${mine}`, message: `"${mine}" is not a foreign key of ${created.label}` };
    if (theirs === 'id' ? f.target !== model : model.fields.get(theirs)?.kind !== 'fk' || model.fields.get(theirs)?.target !== f.target) {
      return { pointer: `/set/${mine}`, message: `"${theirs}" is not "id" or a foreign key of ${model.label} to ${f.target.label}` };
    }
  }
  for (const [i, s] of (o.scope ?? []).entries()) if (!o.set?.[s]) return { pointer: `/scope/${i}`, message: `"${s}" is not a key of set` };
  for (const [i, s] of (o.shows ?? []).entries()) if (!o.set?.[s]) return { pointer: `/shows/${i}`, message: `"${s}" is not a key of set` };
  for (const f of Object.keys(o.unscoped_when ?? {})) if (!model.fields.get(f)?.column) return { pointer: `/unscoped_when/${f}`, message: `"${f}" is not a stored field of ${model.label}` };
  return null;
}

export function columnOf(model: ResolvedModel, name: string): string {
  if (name === 'id') return 'id';
  const f: ResolvedField | undefined = model.fields.get(name);
  if (!f?.column) throw new Error(`${model.label}: ${name} has no column`);
  return f.column;
}

/** The conditions that keep used rows (alias "c", or `alias`) within the parent's ("p") scope. */
export function scopeConditions(model: ResolvedModel, created: ResolvedModel, o: AllocationOptions, alias = 'c'): Sql[] {
  const pairs = (o.scope ?? []).map((s) => ({ mine: columnOf(created, s), parent: `s_${s}` }));
  const scope = pairs.map(({ mine, parent }) => sql`${column(alias, mine)} IS NOT DISTINCT FROM ${column('p', parent)}`);
  const unset = pairs.map(({ parent }) => sql`${column('p', parent)} IS NULL`);
  const when = Object.entries(o.unscoped_when ?? {}).map(([f, values]) => sql`${column('p', `w_${f}`)}::text = ANY(${values.map(String)}::text[])`);
  return scopeOrAll(scope, unset, when.length ? and(when) : null);
}

/** The parent's columns the scope reads, as `s_<field>` and `w_<field>`, for the "p" row. */
export function scopeColumns(model: ResolvedModel, o: AllocationOptions): Sql[] {
  const cols = (o.scope ?? []).map((s) => sql`${column('t', columnOf(model, o.set![s]!))} AS ${ident(`s_${s}`)}`);
  for (const f of Object.keys(o.unscoped_when ?? {})) cols.push(sql`${column('t', columnOf(model, f))} AS ${ident(`w_${f}`)}`);
  return cols;
}

/**
 * The transaction-scoped advisory lock of the allocation space: the created type and the parent's scope
 * values (one VRF's addresses; one VLAN group's VIDs). Every allocation into that space, through any
 * parent and any server instance, waits for the one before it to commit, and then reads the free space
 * in a statement of its own, so it sees what the other wrote.
 */
export async function lockSpace(trx: DbTransaction, model: ResolvedModel, o: AllocationOptions, id: number): Promise<void> {
  const parts = [sql`${`allocate:${o.creates}`}::text`, ...(o.scope ?? []).map((s) => sql`coalesce(${column('t', columnOf(model, o.set![s]!))}::text, '')`)];
  await runRows(trx, sql`SELECT pg_advisory_xact_lock(hashtextextended(concat_ws('|', ${join(parts)}), 0)) FROM ${ident(model.table)} AS "t" WHERE "t"."id" = ${id}::bigint`);
}

/** The gaps of the parent's span, at most `limit` (null: all). */
export async function readGaps(db: Db, statement: Sql): Promise<Gap[]> {
  return runRows<Gap>(db, statement);
}

export { gapsStatement, type UsedSpans };

/** GET's `limit` as NetBox's get_results_limit: PAGINATE_COUNT by default, 0 means MAX_PAGE_SIZE, capped by it, unparsable falls back. */
export function resultsLimit(ctx: CallContext): number {
  const raw = ctx.query.get('limit');
  const { paginateCount, maxPageSize } = ctx.config;
  let limit = raw !== null && /^\d+$/.test(raw.trim()) ? Number(raw) || maxPageSize : paginateCount;
  if (maxPageSize) limit = Math.min(limit, maxPageSize);
  return limit;
}

export const insufficient = () => new HttpError(409, { detail: 'Insufficient resources are available to satisfy the request' });

/** A parent's nested forms of the `set` fields shown beside free values. */
export async function shownValues(ctx: CallContext, model: ResolvedModel, id: number, view: Sql[], o: AllocationOptions): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const shows = o.shows ?? [];
  if (!shows.length) {
    await requireWithin(ctx, model, id, view);
    return out;
  }
  const full = await objectJson(ctx, model, id, view, 'full');
  for (const s of shows) {
    const from = o.set![s]!;
    out[s] = from === 'id' ? await objectJson(ctx, model, id, view, 'brief') : (full[from] ?? null);
  }
  return out;
}

/** The parent's values copied onto every created object (`set`), by id. */
export async function setValues(trx: DbTransaction, model: ResolvedModel, id: number, o: AllocationOptions): Promise<Record<string, unknown>> {
  const entries = Object.entries(o.set ?? {});
  if (!entries.length) return {};
  const [row] = await runRows<Record<string, unknown>>(trx, sql`SELECT ${join(entries.map(([mine, from]) => sql`${column('t', columnOf(model, from))} AS ${ident(mine)}`))} FROM ${ident(model.table)} AS "t" WHERE "t"."id" = ${id}::bigint`);
  const out: Record<string, unknown> = {};
  for (const [mine] of entries) out[mine] = row?.[mine] === null || row?.[mine] === undefined ? null : Number(row[mine]);
  return out;
}

/** The request items of a POST: one object or a non-empty list of objects; else a 400 as a create would give. */
export async function requestItems(ctx: CallContext, req: Request, res: Response): Promise<{ many: boolean; items: Array<Record<string, unknown>> }> {
  const body = await parseJsonBody(req, res, ctx.config.dataUploadMaxMemorySize);
  const many = Array.isArray(body);
  const list = many ? (body as unknown[]) : [body ?? {}];
  if (many && !list.length) throw new HttpError(400, { non_field_errors: ['Expected a list of items but got an empty list.'] });
  const bad = list.map((x) => (x && typeof x === 'object' && !Array.isArray(x) ? {} : { non_field_errors: [`Invalid data. Expected a dictionary, but got ${Array.isArray(x) ? 'list' : typeof x}.`] }));
  if (bad.some((b) => Object.keys(b).length)) throw new HttpError(400, many ? bad : bad[0]);
  return { many, items: list as Array<Record<string, unknown>> };
}

/**
 * The flow every allocation shares. `free(db, limit)` answers GET with at most `limit` free values (already
 * in their answer form, without the shown fields); `allocate(trx, items)` fills each item's value inside the
 * locked transaction or throws insufficient().
 */
export async function serveAllocation(
  ctx: CallContext,
  req: Request,
  res: Response,
  model: ResolvedModel,
  id: number,
  o: AllocationOptions,
  free: (db: Db, limit: number) => Promise<Array<Record<string, unknown>>>,
  allocate: (trx: DbTransaction, items: Array<Record<string, unknown>>, many: boolean) => Promise<Array<Record<string, unknown>>>,
): Promise<void> {
  const created = createdModel(ctx.registry, o);
  if (req.method === 'GET' || req.method === 'HEAD') {
    const view = await actionScope(ctx, model, 'view');
    const shown = await shownValues(ctx, model, id, view, o);
    const values = await free(ctx.knex, resultsLimit(ctx));
    sendJson(req, res, 200, values.map((v) => ({ ...v, ...shown })));
    return;
  }
  if (req.method !== 'POST') throw methodNotAllowed(req.method, ['GET', 'POST', 'HEAD', 'OPTIONS']);
  checkWrite(ctx, req);
  await requireVisible(ctx, model, id);
  const add = await actionScope(ctx, created, 'add');
  const { many, items } = await requestItems(ctx, req, res);
  const text = await createObjectsWith(ctx, created, many, items.length, add, async (trx) => {
    await lockSpace(trx, model, o, id);
    const fixed = await setValues(trx, model, id, o);
    const filled = await allocate(trx, items, many);
    return filled.map((item) => ({ ...item, ...fixed }));
  });
  sendJsonText(req, res, 201, text);
}

/** The OpenAPI path item of an allocation endpoint. */
export function allocationDoc(model: ResolvedModel, operationId: string, created: ResolvedModel, what: string, free: JsonSchema, request: JsonSchema): { pathItem: Record<string, unknown>; schemas: Record<string, JsonSchema> } {
  const ref = (m: ResolvedModel) => schemaRef(representationName(m, 'full'));
  const params = [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }];
  return {
    pathItem: {
      get: {
        operationId: `${operationId}_list`,
        tags: [model.app],
        summary: `Free ${what} of the ${model.verboseName}`,
        description: `The free ${what} of the ${model.verboseName}, in order, at most ?limit= (PAGINATE_COUNT by default, 0 for MAX_PAGE_SIZE). View permission on the ${model.verboseName}.`,
        parameters: [...params, { name: 'limit', in: 'query', required: false, schema: { type: 'integer' } }],
        responses: { '200': { description: 'Free values', content: { 'application/json': { schema: { type: 'array', items: free } } } } },
      },
      post: {
        operationId: `${operationId}_create`,
        tags: [model.app],
        summary: `Allocate ${what} of the ${model.verboseName}`,
        description: `Creates one ${created.verboseName} (a body object) or several (a list), in order, each taking the next free value; other fields pass through to the created objects. 409 {"detail": "Insufficient resources are available to satisfy the request"} when not enough remains (nothing is created). Add permission on ${created.verboseNamePlural} and view permission on the ${model.verboseName}. Concurrent allocations into the same space are serialised by a transaction-scoped advisory lock.`,
        parameters: params,
        requestBody: { required: true, content: { 'application/json': { schema: { oneOf: [request, { type: 'array', items: request }] } } } },
        responses: {
          '201': { description: 'The created objects (one object for a body object)', content: { 'application/json': { schema: { oneOf: [ref(created), { type: 'array', items: ref(created) }] } } } },
          '409': { description: 'Not enough free space' },
        },
      },
    },
    schemas: {},
  };
}
