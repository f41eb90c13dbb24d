import type { ResolvedModel } from '../definitions/registry-types';
import type { CallContext } from '../http/api-context';
import type { PreparedWrite } from './prepare-write';
import type { PreparedEarlier } from './prepared-earlier';
import { checkVerdicts, type CompiledChecks } from '../validation/definition-checks';
import { ValidationError } from '../validation/field-errors';
import { StaleCredentials } from '../auth/credential-cache';
import { asPgError, constraintErrors, isRetryable } from '../database/db-errors';
import { childConstraintErrors } from './write-rows';
import { documentRow } from './write-row-sets';
import { runRows } from '../database/run';
import { checkedAnswerStatement, insertGuardedStatement, type WriteGuard } from './write-statements';
import { jsonOptions } from '../http/read-handlers';

/**
 * A plain create (engine/writes/plain-writes.ts) of a model whose definition has checks (no_overlap,
 * at_most...): the checks need their locks taken after the row is written and their verdicts read by a
 * later statement (whose snapshot sees every writer that held those locks before), so it cannot be one
 * statement; it is two in one transaction: the guarded INSERT (which also sets the change log's context)
 * with the checks' locks, then the verdicts with the representation.
 * Broken checks roll it back with their messages. It gives way, as the one-statement writes do, when the
 * custom field definitions changed (nothing written) or on a deadlock.
 */

/** Thrown inside the transaction to roll it back and let the transactional path write. */
class GivingWay extends Error {
  constructor(readonly earlier: PreparedEarlier | null) {
    super('the checked create gives way');
    this.name = 'GivingWay';
  }
}

export interface CheckedCreate {
  write: PreparedWrite;
  guard: WriteGuard;
  earlier: PreparedEarlier;
}

export async function createChecked(ctx: CallContext, model: ResolvedModel, p: CheckedCreate, checks: CompiledChecks): Promise<{ done: { id: number; body: string } } | { earlier: PreparedEarlier | null }> {
  const columns = p.write.columns;
  // The response that creates an object shows its secrets (a new token's key), whatever ALLOW_TOKEN_RETRIEVAL says.
  const json = await jsonOptions(ctx, { model, form: 'full' }, true);
  const insert = insertGuardedStatement({ model, names: Object.keys(columns).sort(), row: documentRow(model, columns), guard: p.guard, lockRows: checks.lockRows });
  try {
    return await ctx.knex.transaction(async (trx) => {
      const [row] = await runRows<{ current: boolean; defs: boolean; id: number | string | null }>(trx, insert);
      if (!row?.current) throw new StaleCredentials();
      if (!row.defs) {
        ctx.customFields?.forget(model);
        throw new GivingWay(null);
      }
      if (row.id === null) throw new GivingWay(null);
      const id = Number(row.id);
      const [answer] = await runRows<Record<string, unknown>>(trx, checkedAnswerStatement(ctx.registry, model, id, checks.columns, json));
      if (!answer || typeof answer.body !== 'string') throw new GivingWay(null);
      const errors = checkVerdicts(checks, answer);
      if (Object.keys(errors).length) throw new ValidationError(errors);
      return { done: { id, body: answer.body } };
    });
  } catch (e) {
    if (e instanceof GivingWay) return { earlier: e.earlier };
    const pg = asPgError(e);
    const errors = pg ? constraintErrors(ctx.registry, model, pg) ?? childConstraintErrors(model, pg) : null;
    if (errors) throw new ValidationError(errors);
    if (isRetryable(e)) return { earlier: p.earlier };
    throw e;
  }
}
