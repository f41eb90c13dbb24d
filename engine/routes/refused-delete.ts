import type { Knex } from 'knex';
import type { ResolvedModel } from '../definitions/registry-types';
import { andAll } from '../query/conditions';
import { rowSelectList, type Row } from '../query/row-columns';
import { displayOf } from '../serialization/display';
import { quoteIdent } from '../storage/identifiers';
import type { CallContext } from './api-context';
import { HttpError } from './http-error';

/** An object that keeps another from being deleted. */
export interface Dependent {
  model: ResolvedModel;
  id: number;
}

/** Names listed in a 409 at most; the count covers them all. */
const MAX_NAMED = 100;

/**
 * NetBox's 409 for a protected delete, naming each dependent once — and only those the caller may
 * view: the others are counted, so the refusal does not disclose objects outside the caller's scope.
 */
export async function refusedDelete(ctx: CallContext, db: Knex, dependents: Dependent[]): Promise<HttpError> {
  const byModel = new Map<ResolvedModel, Set<number>>();
  for (const d of dependents) {
    let ids = byModel.get(d.model);
    if (!ids) byModel.set(d.model, (ids = new Set()));
    ids.add(d.id);
  }
  const named: string[] = [];
  let total = 0;
  let hidden = 0;
  for (const [model, idSet] of byModel) {
    const ids = [...idSet].sort((a, b) => a - b);
    total += ids.length;
    const scope = await ctx.scope(model, 'view');
    if (!scope.allowed) {
      hidden += ids.length;
      continue;
    }
    const where = andAll([{ sql: '"t"."id" = ANY(?)', bindings: [ids] }, ...scope.conditions]);
    const result = await db.raw(`SELECT ${rowSelectList(model, 't')} FROM ${quoteIdent(model.table)} AS "t" WHERE ${where.sql} ORDER BY "t"."id"`, where.bindings as Knex.RawBinding[]);
    const rows = result.rows as Row[];
    hidden += ids.length - rows.length;
    for (const row of rows.slice(0, Math.max(0, MAX_NAMED - named.length))) named.push(`${displayOf(model, row)} (${row.id})`);
  }
  const rest = hidden ? `${named.length ? ' and ' : ''}${hidden} you may not view` : '';
  return new HttpError(409, { detail: `Unable to delete object. ${total} dependent objects were found: ${named.join(', ')}${rest}` });
}
