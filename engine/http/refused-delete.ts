import type { ResolvedModel } from '../definitions/registry-types';
import { and, ident, sql } from '../sql/fragment';
import { runRows } from '../database/run';
import { displaySql } from '../reads/object-json';
import type { CallContext } from './api-context';
import { HttpError } from './http-error';
import type { Db } from '../database/db';

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
export async function refusedDelete(ctx: CallContext, db: Db, dependents: Dependent[]): Promise<HttpError> {
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
    const where = and([sql`"t"."id" = ANY(${ids})`, ...scope.conditions]);
    const rows = await runRows<{ id: number | string; display: string }>(db, sql`SELECT "t"."id", ${displaySql(model, 't')} AS "display" FROM ${ident(model.table)} AS "t" WHERE ${where} ORDER BY "t"."id"`);
    hidden += ids.length - rows.length;
    for (const row of rows.slice(0, Math.max(0, MAX_NAMED - named.length))) named.push(`${row.display} (${String(row.id)})`);
  }
  const rest = hidden ? `${named.length ? ' and ' : ''}${hidden} you may not view` : '';
  return new HttpError(409, { detail: `Unable to delete object. ${total} dependent objects were found: ${named.join(', ')}${rest}` });
}
