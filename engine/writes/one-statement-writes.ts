import type { ResolvedModel } from '../definitions/registry-types';
import { sql, type Sql } from '../sql/fragment';
import { changeContextSql } from './change-context';
import { changeContextOf, type CallContext } from '../http/api-context';
import { prepareWrite, type PreparedWrite, type WriteMode } from './prepare-write';
import type { PreparedEarlier } from './prepared-earlier';
import { ValidationError } from '../validation/field-errors';
import { definitionsText } from '../validation/custom-field-cache';
import { credentialsAreCurrent, StaleCredentials } from '../auth/credential-cache';
import { asPgError, constraintErrors, isRetryable } from '../database/db-errors';
import { childConstraintErrors } from './write-rows';
import { documentRow } from './write-row-sets';
import { runRows } from '../database/run';
import { insertOneStatement, updateOneStatement, type WriteGuard } from './write-statements';
import { hasChecks, modelWritesPlainly, preparesWithoutReads, writesOnlyRow } from './plain-writes';
import { jsonOptions } from '../http/read-handlers';
import { compileChecks, ruleSettings } from '../validation/definition-checks';
import { createChecked } from './checked-create';
import { notFound } from '../http/http-error';

/**
 * A single create or change that is plain (engine/writes/plain-writes.ts) is one statement, run without
 * BEGIN and COMMIT: validated first against the process's custom field definitions, then written and
 * answered by a data-modifying CTE that also checks the cached credentials and those definitions are
 * still current (FOR SHARE, as the transactional path reads them) and writes nothing when they are not.
 * Each function gives way when the write is not plain, or was written nothing because definitions
 * changed: the caller then writes the transactional way, which also tells every validation error. What
 * it prepared before giving way goes with it, so the transactional path does not prepare the body again.
 */

/** The one statement did not write: the transactional path writes, with the body as prepared here if it was. */
export interface GiveWay {
  earlier: PreparedEarlier | null;
}

/** Written, or given way. */
export type OneStatement<T> = { done: T } | GiveWay;

interface Answer {
  current: boolean;
  defs: boolean;
  id: number | string | null;
  body: string | null;
}

/** The body prepared and the guard its statement checks; or the way given, with the body if it was prepared. */
async function prepared(ctx: CallContext, model: ResolvedModel, body: unknown, mode: WriteMode, id?: number): Promise<{ write: PreparedWrite; guard: WriteGuard; earlier: PreparedEarlier } | GiveWay> {
  const none: GiveWay = { earlier: null };
  // A model that instantiates rows on create (a device's components) creates them after its own row, in the transaction.
  // A create of a model with checks is written by two statements in a transaction (engine/writes/checked-create.ts).
  if (!ctx.config.oneStatementWrites || !ctx.customFields || !modelWritesPlainly(model) || (mode !== 'create' && hasChecks(model)) || (mode === 'create' && model.def.instantiate?.length)) return none;
  const cached = await ctx.customFields.get(ctx.knex, ctx.registry, model);
  const defs = cached?.defs ?? [];
  if (!preparesWithoutReads(model, body, defs)) return none;
  const p = await prepareWrite(ctx.knex, ctx.registry, model, body, mode, { strictFields: ctx.config.rejectUnknownFields, id, customFields: defs, config: ctx.config });
  const earlier: PreparedEarlier = { prepared: p, definitions: cached?.text ?? null };
  if (!p.ok || !writesOnlyRow(model, p.write, mode === 'create')) return { earlier };
  const now = definitionsText(ctx.registry, model);
  // The change log's context is set by the guard the write reads first (its triggers fire after it).
  const guard: WriteGuard = { current: sql`${changeContextSql(changeContextOf(ctx))} AND ${credentialsAreCurrent(ctx.principal)}`, definitions: cached && now ? { now, seen: cached.text } : null };
  return { write: p.write, guard, earlier };
}

/**
 * Runs the statement; gives way on a deadlock (the transactional path retries, with the body as prepared)
 * or when a definition changed (the body was prepared against the old one: it is prepared again).
 */
async function run(ctx: CallContext, model: ResolvedModel, statement: Sql, earlier: PreparedEarlier): Promise<Answer | GiveWay> {
  let row: Answer | undefined;
  try {
    [row] = await runRows<Answer>(ctx.knex, statement);
  } catch (e) {
    const pg = asPgError(e);
    const errors = pg ? constraintErrors(ctx.registry, model, pg) ?? childConstraintErrors(model, pg) : null;
    if (errors) throw new ValidationError(errors);
    if (isRetryable(e)) return { earlier };
    throw e;
  }
  if (!row?.current) throw new StaleCredentials();
  if (!row.defs) {
    ctx.customFields?.forget(model);
    return { earlier: null };
  }
  return row;
}

export async function createInOneStatement(ctx: CallContext, model: ResolvedModel, body: unknown): Promise<OneStatement<{ id: number; body: string }>> {
  const p = await prepared(ctx, model, body, 'create');
  if (!('write' in p)) return p;
  const checks = compileChecks(model, ruleSettings(ctx.config));
  if (checks) {
    const out = await createChecked(ctx, model, p, checks);
    return 'done' in out ? out : { earlier: out.earlier };
  }
  const columns = p.write.columns;
  // The response that creates an object shows its secrets (a new token's key), whatever ALLOW_TOKEN_RETRIEVAL says.
  const statement = insertOneStatement(ctx.registry, { model, names: Object.keys(columns).sort(), row: documentRow(model, columns), json: await jsonOptions(ctx, { model, form: 'full' }, true), guard: p.guard });
  const row = await run(ctx, model, statement, p.earlier);
  if ('earlier' in row) return row;
  // Current credentials and definitions always insert; should nothing be answered, the transaction decides afresh.
  if (row.id === null || row.body === null) return { earlier: null };
  return { done: { id: Number(row.id), body: row.body } };
}

/** `view`: the conditions of the objects the caller may see (a change of any other is a 404). */
export async function updateInOneStatement(ctx: CallContext, model: ResolvedModel, id: number, body: unknown, mode: WriteMode, view: readonly Sql[]): Promise<OneStatement<string>> {
  const p = await prepared(ctx, model, body, mode, id);
  if (!('write' in p)) return p;
  const { columns, mergeColumns } = p.write;
  const statement = updateOneStatement(ctx.registry, {
    model, id, names: Object.keys(columns).sort(), row: documentRow(model, columns), mergeColumns: new Set(mergeColumns), conditions: view, json: await jsonOptions(ctx, { model, form: 'full' }), guard: p.guard,
  });
  const row = await run(ctx, model, statement, p.earlier);
  if ('earlier' in row) return row;
  if (row.body === null) throw notFound();
  return { done: row.body };
}
