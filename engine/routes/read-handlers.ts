import type { ResolvedModel } from '../definitions/registry-types';
import type { Form } from '../query/related-loader';
import { countRows, fetchPage } from '../query/list-query';
import { renderRows } from '../query/read-objects';
import type { Condition } from '../query/conditions';
import type { CallContext } from './api-context';
import { pageLinks, pageOf } from './pagination';
import { notFound } from './http-error';
import { compileListQuery } from '../filters/compile-list-query';

/** brief=1 (or true) asks for the brief form. */
export function formOf(query: URLSearchParams): Form {
  const b = query.get('brief');
  return b !== null && ['1', 'true', 'True', 'yes', 'on'].includes(b) ? 'brief' : 'full';
}

/** exclude=a,b leaves those fields out (and skips the work, e.g. config_context). */
export function omitOf(query: URLSearchParams): Set<string> {
  return new Set(query.getAll('exclude').flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean));
}

/** GET on a list endpoint: one statement for the page, one for the count, then the related data. */
export async function listObjects(ctx: CallContext, model: ResolvedModel, fullUrl: string, scope: Condition[]): Promise<unknown> {
  const page = pageOf(ctx.config, ctx.query);
  const plan = await compileListQuery(ctx.knex, ctx.registry, model, ctx.query);
  const conditions = [...scope, ...plan.conditions];
  const form = formOf(ctx.query);
  const omit = omitOf(ctx.query);
  const rows = await fetchPage(ctx.knex, { model, conditions, ordering: plan.ordering, limit: page.limit, offset: page.offset });
  const count = page.limit !== null && page.offset === 0 && rows.length < page.limit ? rows.length : await countRows(ctx.knex, model, conditions);
  const results = await renderRows(ctx.knex, ctx.registry, ctx.serializer, model, rows, form, omit);
  const links = pageLinks(fullUrl, page, count);
  return { count, next: links.next, previous: links.previous, results };
}

/** GET on a detail endpoint. */
export async function getObject(ctx: CallContext, model: ResolvedModel, id: number, scope: Condition[]): Promise<unknown> {
  const conditions: Condition[] = [...scope, { sql: '"t"."id" = ?', bindings: [id] }];
  const rows = await fetchPage(ctx.knex, { model, conditions, ordering: [], limit: 1, offset: 0 });
  if (!rows.length) throw notFound();
  const form = formOf(ctx.query);
  const omit = omitOf(ctx.query);
  const [rep] = await renderRows(ctx.knex, ctx.registry, ctx.serializer, model, rows, form, omit);
  return rep;
}
