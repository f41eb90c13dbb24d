import type { Request, Response } from 'express';
import type { Registry, ResolvedModel } from '../definitions/registry-types';
import type { CallContext } from './api-context';
import type { AppView } from './app-views';
import type { JsonSchema } from '../validation/request-schema';
import { HttpError, methodNotAllowed, notAuthenticated, notFound } from './http-error';
import { column, ident, join, sql, type Sql } from '../sql/fragment';
import { runRows } from '../database/run';
import { parseJsonBody } from './json-body';
import { sendJson } from './respond';
import { checkWrite } from './model-routes';
import { findBadString } from '../validation/string-hygiene';

/**
 * A user's own single record (NetBox's dashboard, their preferences): the row of `model` whose owner
 * field is the caller, one per user (the owner field is unique). Whoever is logged in reads and writes
 * their own and nobody else's; the row is made on the first write.
 */

type Options = Record<string, unknown>;

/** The model and json fields the options name, or why they do not fit. */
function ownedModel(registry: Registry, options: Options, fieldNames: readonly string[]): { model: ResolvedModel; owner: string; problem: null } | { problem: string } {
  const model = typeof options.model === 'string' ? registry.models.get(options.model) : undefined;
  if (!model) return { problem: `options.model: unknown model "${String(options.model)}"` };
  const owner = model.ownerField;
  if (!owner || !owner.def.unique) return { problem: `options.model: ${model.label} needs an owner_field that is unique (one record per user)` };
  for (const name of fieldNames) {
    if (model.fields.get(name)?.kind !== 'json') return { problem: `options: "${name}" is not a json field of ${model.label}` };
  }
  return { model, owner: owner.column, problem: null };
}

function fieldsOf(options: Options): string[] {
  if (Array.isArray(options.fields)) return options.fields.filter((f): f is string => typeof f === 'string');
  return typeof options.field === 'string' ? [options.field] : [];
}

function resolved(ctx: CallContext, options: Options): { model: ResolvedModel; owner: string; fields: string[] } {
  const fields = fieldsOf(options);
  const m = ownedModel(ctx.registry, options, fields);
  if (m.problem !== null) throw new Error(m.problem);
  return { model: m.model, owner: m.owner, fields };
}

function callerId(ctx: CallContext): number {
  if (!ctx.principal) throw notAuthenticated();
  return ctx.principal.userId;
}

async function readBodyObject(ctx: CallContext, req: Request, res: Response): Promise<Record<string, unknown>> {
  const body = await parseJsonBody(req, res, ctx.config.dataUploadMaxMemorySize);
  if (body === undefined) return {};
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new HttpError(400, { non_field_errors: [`Invalid data. Expected a dictionary, but got ${Array.isArray(body) ? 'list' : body === null ? 'null' : typeof body === 'string' ? 'str' : typeof body}.`] });
  }
  const bad = findBadString(body);
  if (bad) throw new HttpError(400, { non_field_errors: [bad] });
  return body as Record<string, unknown>;
}

const RECORD_METHODS = ['GET', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

/** The caller's record as its `fields` (each null when the caller has none yet, as NetBox answers). */
async function readRecord(ctx: CallContext, model: ResolvedModel, owner: string, fields: string[], user: number): Promise<Record<string, unknown>> {
  const cols = join(fields.map((f) => sql`${column('r', f)} AS ${ident(f)}`));
  const [row] = await runRows<Record<string, unknown>>(ctx.knex, sql`SELECT ${cols} FROM ${ident(model.table)} AS "r" WHERE ${column('r', owner)} = ${user}::bigint`);
  return Object.fromEntries(fields.map((f) => [f, row?.[f] ?? null]));
}

/**
 * NetBox's /api/extras/dashboard/: GET the caller's {layout, config}; PUT or PATCH set the fields named
 * (made on the first write); DELETE removes the record.
 */
export const ownRecord: AppView = {
  check(registry, options) {
    const m = ownedModel(registry, options, fieldsOf(options));
    return m.problem ?? (fieldsOf(options).length ? null : 'options.fields: name the json fields shown');
  },
  async handle(ctx, req, res, { rest, options }) {
    if (rest.length) throw notFound();
    if (!RECORD_METHODS.includes(req.method)) throw methodNotAllowed(req.method, RECORD_METHODS);
    const { model, owner, fields } = resolved(ctx, options);
    const user = callerId(ctx);
    if (req.method === 'OPTIONS') return sendJson(req, res, 200, { name: model.verboseName.replace(/^./, (c) => c.toUpperCase()), description: model.def.description ?? '', renders: ['application/json'], parses: ['application/json'] });
    if (req.method === 'GET' || req.method === 'HEAD') return sendJson(req, res, 200, await readRecord(ctx, model, owner, fields, user));
    checkWrite(ctx, req);
    if (req.method === 'DELETE') {
      const gone = await runRows(ctx.knex, sql`DELETE FROM ${ident(model.table)} WHERE ${ident(owner)} = ${user}::bigint RETURNING "id"`);
      if (!gone.length) throw notFound();
      res.status(204).end();
      return;
    }
    const body = await readBodyObject(ctx, req, res);
    const errors: Record<string, string[]> = {};
    const given = fields.filter((f) => f in body);
    for (const f of given) if (body[f] === null) errors[f] = ['This field may not be null.'];
    if (Object.keys(errors).length) throw new HttpError(400, errors);
    const names = [owner, ...given];
    const values: Sql[] = [sql`${user}::bigint`, ...given.map((f) => sql`${JSON.stringify(body[f])}::jsonb`)];
    const update = given.length ? join(given.map((f) => sql`${ident(f)} = EXCLUDED.${ident(f)}`)) : sql`${ident(owner)} = EXCLUDED.${ident(owner)}`;
    // One statement: two first writes at once cannot make two records (the owner is unique).
    await runRows(ctx.knex, sql`INSERT INTO ${ident(model.table)} (${join(names.map((n) => ident(n)))}) VALUES (${join(values)})
      ON CONFLICT (${ident(owner)}) DO UPDATE SET ${update}`);
    sendJson(req, res, 200, await readRecord(ctx, model, owner, fields, user));
  },
  doc(app, segment, options) {
    const fields = fieldsOf(options);
    const schema: JsonSchema = { type: 'object', properties: Object.fromEntries(fields.map((f) => [f, {}])) };
    const name = `${app.name}_${segment.replace(/-/g, '_')}`;
    const body = { content: { 'application/json': { schema: { $ref: `#/components/schemas/${componentName(segment)}` } } } };
    const ok = { 200: { description: 'The caller\'s own record.', ...body }, 403: { $ref: '#/components/responses/Forbidden' } };
    return {
      paths: {
        [`/api/${app.name}/${segment}/`]: {
          get: { operationId: `${name}_retrieve`, tags: [app.name], summary: `The caller's ${segment}`, description: 'Each field is null while the caller has none.', responses: ok },
          put: { operationId: `${name}_update`, tags: [app.name], requestBody: body, responses: ok },
          patch: { operationId: `${name}_partial_update`, tags: [app.name], requestBody: body, responses: ok },
          delete: { operationId: `${name}_destroy`, tags: [app.name], responses: { 204: { description: 'Removed.' }, 404: { description: 'The caller has none.' } } },
        },
      },
      schemas: { [componentName(segment)]: schema },
    };
  },
};

function componentName(segment: string): string {
  return segment.split(/[-_]/).map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
}

/**
 * NetBox's /api/users/config/: GET the caller's preferences (one JSON object, {} while there are none);
 * PATCH merges the body into them, nested objects key by key (NetBox's deepmerge), in one statement so
 * that two changes at once both land.
 */
export const ownPreferences: AppView = {
  check(registry, options) {
    const m = ownedModel(registry, options, fieldsOf(options));
    return m.problem ?? (fieldsOf(options).length === 1 ? null : 'options.field: name the json field holding the preferences');
  },
  async handle(ctx, req, res, { rest, options }) {
    if (rest.length) throw notFound();
    const methods = ['GET', 'PATCH', 'HEAD', 'OPTIONS'];
    if (!methods.includes(req.method)) throw methodNotAllowed(req.method, methods);
    const { model, owner, fields } = resolved(ctx, options);
    const field = fields[0]!;
    const user = callerId(ctx);
    if (req.method === 'OPTIONS') return sendJson(req, res, 200, { name: 'User Config', description: model.def.description ?? '', renders: ['application/json'], parses: ['application/json'] });
    if (req.method === 'GET' || req.method === 'HEAD') {
      const record = await readRecord(ctx, model, owner, fields, user);
      return sendJson(req, res, 200, record[field] ?? {});
    }
    checkWrite(ctx, req);
    const body = await readBodyObject(ctx, req, res);
    const merged = sql`patchbay_jsonb_deep_merge(${column('r', field)}, EXCLUDED.${ident(field)})`;
    const [row] = await runRows<{ data: unknown }>(ctx.knex, sql`INSERT INTO ${ident(model.table)} AS "r" (${ident(owner)}, ${ident(field)})
      VALUES (${user}::bigint, patchbay_jsonb_deep_merge('{}'::jsonb, ${JSON.stringify(body)}::jsonb))
      ON CONFLICT (${ident(owner)}) DO UPDATE SET ${ident(field)} = ${merged} RETURNING ${column('r', field)} AS "data"`);
    sendJson(req, res, 200, row?.data ?? {});
  },
  doc(app, segment) {
    const name = `${app.name}_${segment.replace(/-/g, '_')}`;
    const ok = { 200: { description: 'The caller\'s preferences.', content: { 'application/json': { schema: { type: 'object', additionalProperties: {} } } } }, 403: { $ref: '#/components/responses/Forbidden' } };
    return {
      paths: {
        [`/api/${app.name}/${segment}/`]: {
          get: { operationId: `${name}_list`, tags: [app.name], summary: 'The caller\'s preferences', responses: ok },
          patch: {
            operationId: `${name}_partial_update`, tags: [app.name], summary: 'Merge into the caller\'s preferences',
            requestBody: { content: { 'application/json': { schema: { type: 'object', additionalProperties: {} } } } }, responses: ok,
          },
        },
      },
      schemas: {},
    };
  },
};
