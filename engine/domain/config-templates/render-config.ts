import type { DetailAction } from '../../http/detail-actions';
import type { Registry, ResolvedModel } from '../../definitions/registry-types';
import { resolvePath } from '../../definitions/resolve-registry';
import { actionScope, objectJson } from '../../http/actions/action-support';
import { answerRendered, contextBody, CONTEXT_BODY, renderResponses } from './render-template-action';
import { HttpError, methodNotAllowed } from '../../http/http-error';
import { column, ident, join, sql, type Sql } from '../../sql/fragment';
import { runRows } from '../../database/run';
import { checkWrite } from '../../http/model-routes';

/**
 * NetBox's render-config (RenderConfigMixin) on devices and virtual machines: the first config template
 * found along `templates` (foreign-key paths to the config_template role: the object's own, its role's,
 * its platform's), rendered with the object's config context, updated with the request body, and the
 * object itself under its model name (`device`, `virtualmachine`) as its full representation.
 */

interface Options {
  templates: string[];
}

/** The id the path leads to, as SQL over the row aliased "t": nested sub-selects through each foreign key. */
function pathId(model: ResolvedModel, path: string): Sql {
  const route = resolvePath(model, path)!;
  let inner: Sql = column(route.via.length ? `p${route.via.length}` : 't', route.field.column);
  for (let i = route.via.length - 1; i >= 0; i--) {
    const hop = route.via[i]!;
    const outer = i === 0 ? 't' : `p${i}`;
    inner = sql`(SELECT ${inner} FROM ${ident(hop.target.table)} AS ${ident(`p${i + 1}`)} WHERE ${column(`p${i + 1}`, 'id')} = ${column(outer, hop.column)})`;
  }
  return inner;
}

function problem(registry: Registry, model: ResolvedModel, options: Record<string, unknown>): { pointer: string; message: string } | null {
  const template = registry.roles.get('config_template');
  if (!template) return { pointer: '', message: 'render_config needs a model with "role": "config_template"' };
  if (!model.fieldList.some((f) => f.kind === 'config_context')) return { pointer: '', message: `${model.label} has no config_context field` };
  const paths = (options as unknown as Options).templates;
  for (const [i, path] of paths.entries()) {
    const route = resolvePath(model, path);
    if (!route || route.field.kind !== 'fk' || route.field.target !== template) return { pointer: `/templates/${i}`, message: `"${path}" is not a path to a foreign key to ${template.label}` };
  }
  return null;
}

export const renderConfigAction: DetailAction = {
  methods: ['POST'],
  options: { type: 'object', additionalProperties: false, required: ['templates'], properties: { templates: { type: 'array', minItems: 1, items: { type: 'string' } } } },
  check: problem,
  async handle(ctx, req, res, { model, id, options }) {
    if (req.method !== 'POST') throw methodNotAllowed(req.method, ['POST', 'OPTIONS']);
    checkWrite(ctx, req);
    const conditions = await actionScope(ctx, model, 'add');
    const object = await objectJson(ctx, model, id, conditions, 'full');
    const paths = (options as unknown as Options).templates;
    const [row] = await runRows<{ template: number | string | null }>(ctx.knex, sql`SELECT coalesce(${join(paths.map((p) => pathId(model, p)))}) AS "template" FROM ${ident(model.table)} AS "t" WHERE "t"."id" = ${id}::bigint`);
    if (row?.template === null || row?.template === undefined) throw new HttpError(400, { error: `No config template found for this ${model.name}.` });
    const field = model.fieldList.find((f) => f.kind === 'config_context')!;
    const data = object[field.name];
    const context: Record<string, unknown> = { ...(data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {}) };
    Object.assign(context, await contextBody(ctx, req, res), { [model.name]: object });
    await answerRendered(ctx, req, res, Number(row.template), context);
  },
  doc(model, { operationId, options }) {
    const template = resolvePath(model, (options as unknown as Options).templates[0]!)!.field.target!;
    return {
      pathItem: {
        post: {
          operationId,
          tags: [model.app],
          summary: 'Render the configuration',
          description: `The config template of the ${model.verboseName} (its own, else its role's, else its platform's) rendered with its config context, the request body merged in, and the ${model.verboseName} as "${model.name}". A ${model.verboseName} without one is a 400 {"error": ...}.`,
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
          requestBody: CONTEXT_BODY,
          responses: renderResponses(template),
        },
      },
      schemas: {},
    };
  },
};
