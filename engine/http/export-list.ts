import type { Response } from 'express';
import type { ResolvedModel } from '../definitions/registry-types';
import type { CallContext } from './api-context';
import { compileListQuery } from '../filters/compile-list-query';
import { FilterErrors } from '../filters/filter-errors';
import { listStatement } from '../reads/read-statements';
import { runRows } from '../database/run';
import { HttpError, notFound, sandboxBusy } from './http-error';
import { credentialsAreCurrent, StaleCredentials } from '../auth/credential-cache';
import { ident, sql, type Sql } from '../sql/fragment';
import { ContextJson, renderTemplate, templateLimits } from '../sandbox/render-template';
import { jsonOptions } from './read-handlers';
import { setExportHeaders } from './export-headers';

/**
 * NetBox's ExportTemplatesMixin: `?export=<name>` on a list renders the export template of that name
 * made for the list's type (the model with the export_template role) over the objects the list would
 * show, filtered and permitted alike but not paginated, in their full representation, as `queryset`.
 * The answer has the template's MIME type (text/plain; charset=utf-8 by default) and, as an attachment,
 * the file name netbox_<objects>.<extension>. Two statements: the template, then the objects.
 */
export async function exportList(ctx: CallContext, res: Response, model: ResolvedModel, name: string, scope: Sql[]): Promise<void> {
  const role = ctx.registry.roles.get('export_template');
  if (!role) throw notFound();
  const [template] = await runRows<{ code: string; mime: string; extension: string; attachment: boolean }>(ctx.knex, sql`SELECT "template_code" AS "code", "mime_type" AS "mime", "file_extension" AS "extension", "as_attachment" AS "attachment"
      FROM ${ident(role.table)} WHERE "name" = ${name}::text AND ${model.label}::text = ANY("content_types") ORDER BY "id" LIMIT 1`);
  if (!template) throw notFound();
  const plan = await compileListQuery(ctx.knex, ctx.registry, model, ctx.query, { userId: ctx.principal?.userId ?? null, strict: ctx.config.strictFiltering });
  const max = ctx.config.exportMaxObjects;
  const statement = listStatement(ctx.registry, {
    model,
    conditions: [...scope, ...plan.conditions],
    ordering: plan.ordering,
    limit: max ? max : null,
    offset: 0,
    form: 'full',
    omit: new Set(),
    json: await jsonOptions(ctx, { model, form: 'full' }),
    current: credentialsAreCurrent(ctx.principal),
    checks: plan.checks.map((c) => c.firstMissing),
  });
  const [row] = await runRows<{ current: boolean; count: number; results: string } & Record<string, unknown>>(ctx.knex, statement);
  if (!row!.current) throw new StaleCredentials();
  const errors = new FilterErrors();
  plan.checks.forEach((check, i) => {
    const missing = row![`check_${i}`];
    if (missing !== null && missing !== undefined) errors.add(check.param, `Select a valid choice. ${check.values[Number(missing) - 1]} is not one of the available choices.`);
  });
  errors.throwIfAny();
  if (max && row!.count > max) {
    throw new HttpError(400, { export: [`The list holds ${row!.count} objects; an export renders at most ${max} (PATCHBAY_EXPORT_MAX_OBJECTS): narrow it with filters.`] });
  }
  // The objects are JSON text from the database already: handed to the sandbox as they are.
  const out = await renderTemplate(template.code, new ContextJson(`{"queryset":${row!.results}}`), {}, templateLimits(ctx.config));
  if (!out.ok) throw out.busy ? sandboxBusy(out.message) : new HttpError(400, { export: [out.message] });
  res.status(200);
  setExportHeaders(res, template, `netbox_${model.verboseNamePlural.replace(/ /g, '_')}`);
  // Sent as the bytes rendered, under the template's own MIME type (Express would add a charset to it).
  res.end(Buffer.from(out.text, 'utf8'));
}
