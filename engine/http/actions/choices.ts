import { paginatedOf } from '../../openapi/paginated-schema';
import type { DetailAction } from '../detail-actions';
import { actionScope } from './action-support';
import { methodNotAllowed, notFound } from '../http-error';
import { and, column, ident, sql } from '../../sql/fragment';
import { runRows } from '../../database/run';
import { pageLinks, pageOf } from '../pagination';
import { sendJson } from '../respond';
import { expandChoices } from '../../validation/choice-set-choices';

/**
 * NetBox's /api/extras/custom-field-choice-sets/{id}/choices/: each choice of the set as {id: value,
 * display: label}, alphabetically by value when the set says so, `?q=` keeping those whose value or
 * label contains the text (case aside), paginated as lists are. The model is the one playing the
 * custom_field_choice_set role; the caller must be allowed to see the set.
 */
export const choicesAction: DetailAction = {
  methods: ['GET'],
  options: { type: 'object', additionalProperties: false, properties: {} },
  check(registry, model) {
    return registry.roles.get('custom_field_choice_set') === model ? null : { pointer: '', message: `${model.label} does not play the custom_field_choice_set role` };
  },
  async handle(ctx, req, res, { model, id }) {
    if (req.method !== 'GET' && req.method !== 'HEAD') throw methodNotAllowed(req.method, ['GET', 'HEAD', 'OPTIONS']);
    const conditions = await actionScope(ctx, model, 'view');
    const where = [...conditions, sql`"t"."id" = ${id}::bigint`];
    const [row] = await runRows<{ base: string; extra: unknown; alphabetical: boolean }>(ctx.knex, sql`SELECT ${column('t', 'base_choices')} AS "base", ${column('t', 'extra_choices')} AS "extra", ${column('t', 'order_alphabetically')} AS "alphabetical"
      FROM ${ident(model.table)} AS "t" WHERE ${and(where)}`);
    if (!row) throw notFound();
    let choices = expandChoices(row);
    const q = ctx.query.get('q');
    if (q) {
      const needle = q.toLowerCase();
      choices = choices.filter(([value, label]) => value.toLowerCase().includes(needle) || label.toLowerCase().includes(needle));
    }
    const page = pageOf(ctx.config, ctx.query);
    const slice = page.limit === null ? choices.slice(page.offset) : choices.slice(page.offset, page.offset + page.limit);
    const links = pageLinks(`${ctx.origin}${req.originalUrl}`, page, choices.length);
    sendJson(req, res, 200, { count: choices.length, next: links.next, previous: links.previous, results: slice.map(([value, label]) => ({ id: value, display: label })) });
  },
  doc(model, { operationId }) {
    return {
      pathItem: {
        get: {
          operationId,
          tags: [model.app],
          summary: 'The choices of the set',
          description: 'Each choice as {id: value, display: label}, paginated; q keeps those whose value or label contains the text.',
          parameters: [
            { name: 'id', in: 'path', required: true, schema: { type: 'integer' } },
            { name: 'q', in: 'query', schema: { type: 'string' } },
            { name: 'limit', in: 'query', schema: { type: 'integer' } },
            { name: 'offset', in: 'query', schema: { type: 'integer' } },
          ],
          responses: {
            200: { description: 'A page of choices.', content: { 'application/json': { schema: { $ref: '#/components/schemas/PaginatedChoiceList' } } } },
            403: { $ref: '#/components/responses/Forbidden' },
            404: { $ref: '#/components/responses/NotFound' },
          },
        },
      },
      schemas: {
        PaginatedChoiceList: paginatedOf({ type: 'object', required: ['id', 'display'], properties: { id: { type: 'string' }, display: { type: 'string' } } }),
      },
    };
  },
};
