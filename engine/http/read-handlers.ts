import type { ResolvedModel } from '../definitions/registry-types';
import type { Form, JsonOptions } from '../reads/object-json';
import { readerAccess, type Shown } from './reader-access';
import { detailStatement, listStatement } from '../reads/read-statements';
import { credentialsAreCurrent, StaleCredentials } from '../auth/credential-cache';
import { runRows } from '../database/run';
import type { CallContext } from './api-context';
import { pageLinks, pageOf } from './pagination';
import { notFound } from './http-error';
import { compileListQuery } from '../filters/compile-list-query';
import { FilterErrors } from '../filters/filter-errors';
import { sql, type Sql } from '../sql/fragment';

/** brief=1 (or true) asks for the brief form. */
export function formOf(query: URLSearchParams): Form {
  const b = query.get('brief');
  return b !== null && ['1', 'true', 'True', 'yes', 'on'].includes(b) ? 'brief' : 'full';
}

/** exclude=a,b leaves those fields out (and skips the work, e.g. config_context). */
export function omitOf(query: URLSearchParams): Set<string> {
  return new Set(query.getAll('exclude').flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean));
}

/**
 * A list page, one statement: the rows, the count and every embedded object, JSON built by PostgreSQL.
 * The body is assembled around the page's JSON text without parsing it again.
 */
export async function listObjects(ctx: CallContext, model: ResolvedModel, fullUrl: string, scope: Sql[]): Promise<string> {
  const page = pageOf(ctx.config, ctx.query);
  const form = formOf(ctx.query);
  const json = await jsonOptions(ctx, { model, form });
  const plan = await compileListQuery(ctx.knex, ctx.registry, model, ctx.query, { userId: ctx.principal?.userId ?? null, reveal: json.access.reveal(model), strict: ctx.config.strictFiltering });
  const conditions = [...scope, ...plan.conditions];
  const checks = plan.checks.map((c) => c.firstMissing);
  const statement = listStatement(ctx.registry, {
    model,
    conditions,
    ordering: plan.ordering,
    limit: page.limit,
    offset: page.offset,
    form,
    omit: omitOf(ctx.query),
    json,
    current: credentialsAreCurrent(ctx.principal),
    checks,
  });
  const [row] = await runRows<{ current: boolean; count: number; results: string } & Record<string, unknown>>(ctx.knex, statement);
  if (!row!.current) throw new StaleCredentials();
  const errors = new FilterErrors();
  plan.checks.forEach((check, i) => {
    const missing = row![`check_${i}`];
    if (missing !== null && missing !== undefined) errors.add(check.param, `Select a valid choice. ${check.values[Number(missing) - 1]} is not one of the available choices.`);
  });
  errors.throwIfAny();
  const links = pageLinks(fullUrl, page, row!.count);
  return `{"count":${row!.count},"next":${JSON.stringify(links.next)},"previous":${JSON.stringify(links.previous)},"results":${row!.results}}`;
}

/** GET on a detail endpoint: one statement. */
export async function getObject(ctx: CallContext, model: ResolvedModel, id: number, scope: Sql[]): Promise<string> {
  const conditions = [...scope, sql`"t"."id" = ${id}`];
  const form = formOf(ctx.query);
  const json = await jsonOptions(ctx, { model, form });
  const statement = detailStatement(ctx.registry, { model, conditions, form, omit: omitOf(ctx.query), json, current: credentialsAreCurrent(ctx.principal) });
  const [row] = await runRows<{ current: boolean; body: string | null }>(ctx.knex, statement);
  if (!row!.current) throw new StaleCredentials();
  if (row!.body === null) throw notFound();
  return row!.body;
}

/**
 * How the representations of an answer are built for this caller: the request's origin, whether secrets
 * show (ALLOW_TOKEN_RETRIEVAL, unless the answer creates the object), and what the caller may see of the
 * objects they link to. Awaited before any transaction the answer is read in: it may load permissions.
 */
export async function jsonOptions(ctx: CallContext, shown: Shown | readonly Shown[], revealSecrets = ctx.config.allowTokenRetrieval): Promise<JsonOptions> {
  const list = Array.isArray(shown) ? (shown as readonly Shown[]) : [shown as Shown];
  return { origin: ctx.origin, revealSecrets, access: await readerAccess(ctx, list) };
}
