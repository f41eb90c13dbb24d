import type { Request, Response } from 'express';
import type { ResolvedModel } from '../../definitions/registry-types';
import type { CallContext } from '../../http/api-context';
import type { DetailAction } from '../../http/detail-actions';
import { actionScope, objectJson, wantsText } from '../../http/actions/action-support';
import { HttpError, methodNotAllowed, notFound, sandboxBusy } from '../../http/http-error';
import { and, column, ident, sql } from '../../sql/fragment';
import { runRows } from '../../database/run';
import { renderTemplate, templateLimits, templateOptions } from '../../sandbox/render-template';
import { checkWrite } from '../../http/model-routes';
import { parseJsonBody } from '../../http/json-body';
import { sendJson } from '../../http/respond';
import { findBadString } from '../../validation/string-hygiene';
import { schemaRef } from '../../openapi/component-names';
import { representationName } from '../../openapi/representation-schema';

/**
 * NetBox's config template rendering (ConfigTemplateRenderMixin), shared by a config template's
 * render/ and a device's or virtual machine's render-config/: POST (a write-enabled caller with the
 * add permission on the model, as NetBox's token permissions ask of a POST), the body's object merged
 * into the context, and the answer JSON {configtemplate, content} or, to Accept: text/plain or
 * ?format=txt, the text itself.
 */

/** The request body as the data merged into the context: an object, or nothing. */
export async function contextBody(ctx: CallContext, req: Request, res: Response): Promise<Record<string, unknown>> {
  const body = await parseJsonBody(req, res, ctx.config.dataUploadMaxMemorySize);
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new HttpError(400, { non_field_errors: [`Invalid data. Expected a dictionary, but got ${Array.isArray(body) ? 'list' : typeof body === 'string' ? 'str' : typeof body}.`] });
  }
  const bad = findBadString(body);
  if (bad) throw new HttpError(400, { non_field_errors: [bad] });
  return body as Record<string, unknown>;
}

/** Renders the config template `templateId` (of the config_template role) with `context`, and answers. */
export async function answerRendered(ctx: CallContext, req: Request, res: Response, templateId: number, context: Record<string, unknown>): Promise<void> {
  const template = ctx.registry.roles.get('config_template')!;
  const [row] = await runRows<{ code: string; params: unknown }>(ctx.knex, sql`SELECT ${column('t', 'template_code')} AS "code", ${column('t', 'environment_params')} AS "params" FROM ${ident(template.table)} AS "t" WHERE "t"."id" = ${templateId}::bigint`);
  if (!row) throw notFound();
  const out = await renderTemplate(row.code, context, templateOptions(row.params), templateLimits(ctx.config));
  // NetBox answers a template error with a 500; it is the template's fault, not the server's.
  if (!out.ok) throw out.busy ? sandboxBusy(out.message) : new HttpError(400, { detail: out.message });
  if (wantsText(ctx, req)) {
    res.status(200).type('text/plain; charset=utf-8').send(out.text);
    return;
  }
  const configtemplate = await objectJson(ctx, template, templateId, [], 'brief');
  sendJson(req, res, 200, { configtemplate, content: out.text });
}

/** The answers of a render, `template` being the config template model (its brief form is the JSON's configtemplate). */
export function renderResponses(template: ResolvedModel): Record<string, unknown> {
  return {
    200: {
      description: 'The rendered template: {configtemplate, content} as JSON, or the text itself to Accept: text/plain (or ?format=txt).',
      content: {
        'application/json': { schema: { type: 'object', required: ['configtemplate', 'content'], properties: { configtemplate: schemaRef(representationName(template, 'brief')), content: { type: 'string' } } } },
        'text/plain': { schema: { type: 'string' } },
      },
    },
    400: { $ref: '#/components/responses/BadRequest' },
    403: { $ref: '#/components/responses/Forbidden' },
    404: { $ref: '#/components/responses/NotFound' },
  };
}

const CONTEXT_BODY = { required: false, content: { 'application/json': { schema: { type: 'object', additionalProperties: {} } } } };

/** POST /api/extras/config-templates/{id}/render/: the template rendered with the body as its context. */
export const renderTemplateAction: DetailAction = {
  methods: ['POST'],
  options: { type: 'object', additionalProperties: false, properties: {} },
  check(registry, model) {
    return registry.roles.get('config_template') === model ? null : { pointer: '', message: `${model.label} does not play the config_template role` };
  },
  async handle(ctx, req, res, { model, id }) {
    if (req.method !== 'POST') throw methodNotAllowed(req.method, ['POST', 'OPTIONS']);
    checkWrite(ctx, req);
    const conditions = await actionScope(ctx, model, 'add');
    await requireObject(ctx, model, id, conditions);
    await answerRendered(ctx, req, res, id, await contextBody(ctx, req, res));
  },
  doc(model, { operationId }) {
    return {
      pathItem: {
        post: {
          operationId,
          tags: [model.app],
          summary: 'Render the template',
          description: 'The template rendered (Nunjucks, Jinja2-compatible) with the request body as its context.',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
          requestBody: CONTEXT_BODY,
          responses: renderResponses(model),
        },
      },
      schemas: {},
    };
  },
};

async function requireObject(ctx: CallContext, model: ResolvedModel, id: number, conditions: ReturnType<typeof sql>[]): Promise<void> {
  const rows = await runRows(ctx.knex, sql`SELECT 1 FROM ${ident(model.table)} AS "t" WHERE ${and([...conditions, sql`"t"."id" = ${id}::bigint`])}`);
  if (!rows.length) throw notFound();
}

export { CONTEXT_BODY };
