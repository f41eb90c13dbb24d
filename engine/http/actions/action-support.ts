import type { Request } from 'express';
import type { ResolvedModel } from '../../definitions/registry-types';
import type { CallContext } from '../api-context';
import type { Action } from '../../auth/permissions';
import type { Form } from '../../reads/object-json';
import { detailStatement } from '../../reads/read-statements';
import { runRows } from '../../database/run';
import { notAuthenticated, notFound, permissionDenied } from '../http-error';
import { and, ident, sql, type Sql } from '../../sql/fragment';
import { jsonOptions } from '../read-handlers';

/**
 * What detail actions share: the object the caller may act on, its representation, and how the client
 * asked for the answer.
 */

/** The conditions of the objects the caller may `action`, or a 403 (no credentials: "not provided"). */
export async function actionScope(ctx: CallContext, model: ResolvedModel, action: Action): Promise<Sql[]> {
  const scope = await ctx.scope(model, action);
  if (scope.allowed) return scope.conditions;
  throw ctx.principal ? permissionDenied() : notAuthenticated();
}

/** The object's representation (parsed), when it exists and lies within the conditions; else a 404. */
export async function objectJson(ctx: CallContext, model: ResolvedModel, id: number, conditions: Sql[], form: Form): Promise<Record<string, unknown>> {
  const json = await jsonOptions(ctx, { model, form });
  const statement = detailStatement(ctx.registry, { model, conditions: [...conditions, sql`"t"."id" = ${id}::bigint`], form, omit: new Set(), json, current: sql`TRUE` });
  const [row] = await runRows<{ body: string | null }>(ctx.knex, statement);
  if (!row?.body) throw notFound();
  return JSON.parse(row.body) as Record<string, unknown>;
}

/** A 404 unless the object exists and lies within the conditions: one indexed probe, no representation built. */
export async function requireWithin(ctx: CallContext, model: ResolvedModel, id: number, conditions: Sql[]): Promise<void> {
  const [row] = await runRows(ctx.knex, sql`SELECT 1 AS "found" FROM ${ident(model.table)} AS "t" WHERE ${and([...conditions, sql`"t"."id" = ${id}::bigint`])}`);
  if (!row) throw notFound();
}

/** A 404 unless the caller may view the object (a 403 when they may view none of its type). */
export async function requireVisible(ctx: CallContext, model: ResolvedModel, id: number): Promise<void> {
  await requireWithin(ctx, model, id, await actionScope(ctx, model, 'view'));
}

/**
 * Whether the client asked for plain text: NetBox's render endpoints answer text/plain to `Accept:
 * text/plain` (DRF's content negotiation, the first acceptable renderer wins) or `?format=txt`.
 */
export function wantsText(ctx: CallContext, req: Request): boolean {
  const format = ctx.query.get('format');
  if (format) return format === 'txt';
  const accept = req.headers.accept ?? '';
  for (const part of accept.split(',')) {
    const type = part.split(';')[0]!.trim().toLowerCase();
    if (type === 'application/json' || type === 'application/*' || type === '*/*') return false;
    if (type === 'text/plain' || type === 'text/*') return true;
  }
  return false;
}
