import type { ResolvedModel } from '../definitions/registry-types';
import { prepareWrite, type Prepared, type PreparedWrite, type StoredUpload, type WriteMode } from './prepare-write';
import { noteFilesLeft, removeFiles, takeFilesLeft } from './stored-files';
import { insertRowSet, updateRowSet } from './write-row-sets';
import { modelWritesPlainly, writesRowAndLinks } from './plain-writes';
import { createInOneStatement, updateInOneStatement } from './one-statement-writes';
import { stillPrepared, type PreparedEarlier } from './prepared-earlier';
import { ValidationError, type FieldErrors } from '../validation/field-errors';
import { insertRow, setLinks, setLinksOfMany, updateRow, setChildren, childConstraintErrors } from './write-rows';
import { deleteObjects, GenericProtectedError, protectingObjects } from './delete-objects';
import { refusedDelete } from '../http/refused-delete';
import { asPgError, constraintErrors, FK_VIOLATION, isRetryable, RESTRICT_VIOLATION } from '../database/db-errors';
import { objectUrl, writtenObjects } from '../reads/written-objects';
import { credentialsAreCurrent, StaleCredentials } from '../auth/credential-cache';
import { jsonOptions } from '../http/read-handlers';
import type { JsonOptions } from '../reads/object-json';
import { checkTreeParent } from './tree-parent';
import type { CallContext } from '../http/api-context';
import { HttpError, notFound, permissionDenied } from '../http/http-error';
import { and, ident, sql, type Sql } from '../sql/fragment';
import { runRows } from '../database/run';
import { parsePk } from '../validation/resolve-related';
import { runFieldValidators } from '../validation/named-validators';
import { runChecks, runChecksOnMany, ruleSettings, type RuleSettings } from '../validation/definition-checks';
import { instantiate } from '../domain/components/instantiate';
import { afterWrite, beforeDelete } from './role-hooks';
import { setChangeContext } from './change-context';
import { changeContextOf } from '../http/api-context';
import { pathsDeleting, retraceCablesLosingEnds } from '../domain/cables/cable-paths';
import type { DbTransaction } from '../database/db';
import { hashPasswordsAhead, NO_HASHES, type PasswordHashes } from './passwords-ahead';

type Trx = DbTransaction;

/**
 * Whether the request already runs in a transaction (one with an Idempotency-Key, engine/idempotency): its
 * writes take the transactional path, since a one-statement write gives way on a deadlock by retrying
 * afresh, which a transaction the deadlock has aborted could not do.
 */
function inRequestTransaction(ctx: CallContext): boolean {
  return (ctx.knex as Partial<DbTransaction>).isTransaction === true;
}

/** Writes one prepared object; a constraint the database refuses becomes that element's field errors. */
export async function writeOne(ctx: CallContext, trx: Trx, model: ResolvedModel, write: PreparedWrite, id: number | undefined, many: boolean): Promise<number | FieldErrors> {
  // In a bulk request a failed element is undone to its savepoint so the others can still be checked
  // and every error reported; a single write just fails, and its transaction with it.
  const savepoint = async (sql: string) => {
    if (many) await trx.raw(sql);
  };
  const { columns, links, children, mergeColumns } = write;
  if (id !== undefined && model.tree && 'parent_id' in columns) {
    const problem = await checkTreeParent(trx, model, id, columns.parent_id as number | null);
    if (problem) return { parent: [problem] };
  }
  try {
    await savepoint('SAVEPOINT patchbay_write');
    let target = id;
    if (target === undefined) target = await insertRow(trx, model, columns);
    else if (Object.keys(columns).length || links.size || children.size) await updateRow(trx, model, target, columns, mergeColumns);
    for (const [table, ids] of links) await setLinks(trx, table, target, ids);
    for (const [field, refs] of children) await setChildren(trx, field, target, refs);
    const invalid = await runFieldValidators(trx, ctx.registry, model, target, columns);
    for (const [field, messages] of Object.entries(await runChecks(trx, model, target, ruleSettings(ctx.config)))) (invalid[field] ??= []).push(...messages);
    if (Object.keys(invalid).length) {
      await savepoint('ROLLBACK TO SAVEPOINT patchbay_write');
      return invalid;
    }
    await savepoint('RELEASE SAVEPOINT patchbay_write');
    return target;
  } catch (e) {
    const pg = asPgError(e);
    const errors = pg ? constraintErrors(ctx.registry, model, pg) ?? childConstraintErrors(model, pg) : null;
    if (!errors) throw e;
    await savepoint('ROLLBACK TO SAVEPOINT patchbay_write');
    return errors;
  }
}

/**
 * A set-based write the database refused (a uniqueness or reference constraint, on some row of many):
 * the transaction is run again writing one element at a time, so each element's errors can be told.
 */
export class RowSetRefused extends Error {
  constructor() {
    super('a set-based write was refused; writing one element at a time');
    this.name = 'RowSetRefused';
  }
}

/** Whether prepared elements can be written set-based: one statement per group of elements setting the same columns, two per join table. */
export function fitsSetWrite(model: ResolvedModel, writes: readonly PreparedWrite[], creating: boolean): boolean {
  return modelWritesPlainly(model) && writes.every((w) => writesRowAndLinks(model, w, creating));
}

/** Elements grouped by the columns they set, each group in request order. */
function byColumnSet<T extends { write: PreparedWrite }>(items: readonly T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = JSON.stringify([Object.keys(item.write.columns).sort(), [...item.write.mergeColumns].sort()]);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

/**
 * Writes every element with one statement per column set, then judges the definition's checks on all
 * of them in one statement. A refusal by the database aborts the transaction (RowSetRefused).
 */
export async function writeSet(trx: Trx, model: ResolvedModel, writes: readonly PreparedWrite[], ids: ReadonlyArray<number | undefined>, settings: RuleSettings): Promise<number[]> {
  const out: number[] = new Array<number>(writes.length);
  const items = writes.map((write, i) => ({ write, i, id: ids[i] }));
  try {
    for (const group of byColumnSet(items).values()) {
      const names = Object.keys(group[0]!.write.columns).sort();
      const creating = group[0]!.id === undefined;
      if (creating) {
        const created = await insertRowSet(trx, model, names, group.map((g) => g.write.columns));
        group.forEach((g, k) => (out[g.i] = created[k]!));
      } else {
        await updateRowSet(trx, model, names, group.map((g) => ({ id: g.id!, columns: g.write.columns })), new Set(group[0]!.write.mergeColumns));
        for (const g of group) out[g.i] = g.id!;
        // As one object's write: a change of links alone still changes the object (last_updated, its change).
        const linksOnly = names.length ? [] : group.filter((g) => g.write.links.size).map((g) => g.id!);
        if (linksOnly.length) await runRows(trx, sql`UPDATE ${ident(model.table)} SET ${model.lastUpdated ? sql`"last_updated" = now()` : sql`"id" = "id"`} WHERE "id" = ANY(${linksOnly}::bigint[])`);
      }
    }
    const links = new Map<string, Array<{ source: number; targets: number[] }>>();
    for (const item of items) {
      for (const [table, targets] of item.write.links) {
        if (!links.has(table)) links.set(table, []);
        links.get(table)!.push({ source: out[item.i]!, targets });
      }
    }
    for (const [table, set] of links) await setLinksOfMany(trx, table, set, ids[0] !== undefined);
  } catch (e) {
    // Integrity (23) and data (22) errors belong to some element; written one at a time, each is told.
    const code = asPgError(e)?.code ?? '';
    if (code.startsWith('23') || code.startsWith('22')) throw new RowSetRefused();
    throw e;
  }
  const broken = await runChecksOnMany(trx, model, out, settings);
  if (broken.size) throw new ValidationError(out.map((id) => broken.get(id) ?? {}));
  return out;
}

const ATTEMPTS = 3;

/**
 * Runs a write in one transaction: any element's errors abort all of it, aligned with the request's elements.
 * Writes lock rows in different orders (a delete top down, a change its own row and then the rows its
 * checks read), so two of them can deadlock; PostgreSQL then aborts one, which is run again from the start.
 */
async function inTransaction<T>(ctx: CallContext, work: (trx: Trx, careful: boolean) => Promise<T>): Promise<T> {
  let careful = false;
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.knex.transaction(async (trx) => {
        await setChangeContext(trx, changeContextOf(ctx));
        return work(trx, careful);
      });
    } catch (e) {
      if (e instanceof RowSetRefused && !careful) {
        careful = true;
        attempt--;
        continue;
      }
      if (attempt >= ATTEMPTS || !isRetryable(e)) throw e;
    }
  }
}

function isErrors(v: number | FieldErrors): v is FieldErrors {
  return typeof v !== 'number';
}

/** What a write may touch: the objects the caller may see (null: none), and those the action may affect. */
export interface WriteScopes {
  view: Sql[] | null;
  act: Sql[];
}

/**
 * Ids among the given that exist and match every condition, locked in id order in the same statement.
 * A plain read would let another transaction move an object out of the caller's scope between this
 * check and the write (which would then change an object the caller may no longer touch); with the
 * lock, a pending change is waited for and the conditions are judged on the row it leaves (PostgreSQL
 * re-checks a locked row that changed), and no change can start before this write commits.
 *
 * FOR NO KEY UPDATE is the lock an UPDATE takes anyway: it excludes other changes of the row but not
 * the FOR KEY SHARE that rows referring to it take (a child whose parent is being edited). A delete
 * strengthens it to FOR UPDATE itself (delete-objects).
 */
async function matching(trx: Trx, model: ResolvedModel, ids: number[], conditions: Sql[] | null, current: Sql = sql`TRUE`): Promise<Set<number>> {
  if (conditions === null) return new Set();
  const where = and([sql`"t"."id" = ANY(${ids})`, ...conditions]);
  const rows = await runRows<{ id: number; current: boolean }>(trx, sql`SELECT "t"."id", ${current} AS "current" FROM ${ident(model.table)} AS "t" WHERE ${where} ORDER BY "t"."id" FOR NO KEY UPDATE OF "t"`);
  if (rows.some((r) => !r.current)) throw new StaleCredentials();
  return new Set(rows.map((r) => r.id));
}

/** Refuses (403, and the transaction rolls back) when any of the objects lies outside the permitted ones. */
async function requireWithin(trx: Trx, model: ResolvedModel, ids: number[], conditions: Sql[]): Promise<void> {
  if (!conditions.length) return;
  const inside = await matching(trx, model, ids, conditions);
  if (ids.some((id) => !inside.has(id))) throw permissionDenied();
}

/**
 * Objects a change or delete names: each must exist and be visible to the caller (else it is not
 * found: a 404 for one, an aligned 400 for a bulk request) and lie within the action's constraints (else
 * 403). The statement that locks them also checks the caller's cached credentials are still current (a
 * delete reads nothing back: this is its check).
 */
async function requireTargets(ctx: CallContext, trx: Trx, model: ResolvedModel, ids: number[], scopes: WriteScopes, single: boolean): Promise<void> {
  const visible = await matching(trx, model, ids, scopes.view, credentialsAreCurrent(ctx.principal));
  if (ids.some((id) => !visible.has(id))) {
    if (single) throw notFound();
    throw new ValidationError(ids.map((id): FieldErrors => (visible.has(id) ? {} : { id: [`Object with id ${id} does not exist.`] })));
  }
  await requireWithin(trx, model, ids, scopes.act);
}

/**
 * Objects of an owned model are created for the caller unless they say otherwise (a token for oneself);
 * so is the creator field of a model that names one (a journal entry's created_by).
 */
function withOwner(ctx: CallContext, model: ResolvedModel, item: unknown): unknown {
  const name = model.ownerField?.name ?? model.def.creator_field;
  if (!name || !ctx.principal || item === null || typeof item !== 'object' || Array.isArray(item) || name in item) return item;
  return { ...(item as Record<string, unknown>), [name]: ctx.principal.userId };
}

/**
 * The answer to a write, read as its transaction's last statement; credentials found out of date there
 * abort the write (it rolls back, and the request is run again with fresh ones: engine/app.ts). `json` is
 * made before the transaction begins (it may load the caller's permissions, on another connection).
 */
async function answer(ctx: CallContext, trx: Trx, model: ResolvedModel, ids: number[], single: boolean, json: JsonOptions): Promise<string> {
  const written = await writtenObjects(trx, ctx.registry, json, model, ids, single, credentialsAreCurrent(ctx.principal));
  if (!written.current) throw new StaleCredentials();
  return written.body;
}

/**
 * POST one object (201 + Location) or an array of objects (201, answered in request order); each must fall
 * within the add constraints. `files`: images uploaded with a single object, already stored (the caller
 * removes them if this throws).
 */
export async function createObjects(ctx: CallContext, model: ResolvedModel, body: unknown, addScope: Sql[], files?: ReadonlyMap<string, StoredUpload>): Promise<{ body: string; location?: string }> {
  const many = Array.isArray(body);
  const items = many ? (body as unknown[]) : [body];
  if (many && !items.length) throw new HttpError(400, { non_field_errors: ['Expected a list of items but got an empty list.'] });
  checkBulkSize(ctx, items.length);
  let earlier: PreparedEarlier | null = null;
  if (!many && !addScope.length && !files?.size && !inRequestTransaction(ctx)) {
    const one = await createInOneStatement(ctx, model, withOwner(ctx, model, body));
    if ('done' in one) {
      ctx.maintenance?.noteWritten(model.table, 'insert', 1);
      return { body: one.done.body, location: objectUrl(ctx.origin, model, one.done.id) };
    }
    earlier = one.earlier;
  }
  // The response that creates an object shows its secrets (a new token's key), whatever ALLOW_TOKEN_RETRIEVAL says.
  const json = await jsonOptions(ctx, { model, form: 'full' }, true);
  const passwordHashes = earlier ? NO_HASHES : await hashPasswordsAhead(model, items);
  const created = await inTransaction(ctx, async (trx, careful) => {
    const results = await writeAll(ctx, trx, model, items.map((item) => ({ item: withOwner(ctx, model, item), mode: 'create' as const, earlier, passwordHashes })), many, careful, files);
    await requireWithin(trx, model, results, addScope);
    // Rows the new objects bring with them (a device's components from its type's templates), in this transaction.
    await instantiate(trx, ctx.registry, model, results);
    await afterWrite(trx, ctx.registry, model, results);
    const text = await answer(ctx, trx, model, results, !many, json);
    if (many) return { body: text };
    return { body: text, location: objectUrl(ctx.origin, model, results[0]!) };
  });
  ctx.maintenance?.noteWritten(model.table, 'insert', items.length);
  return created;
}

/**
 * Creates objects whose bodies are made inside the write's own transaction (allocation: take a lock, read
 * what is free, fill the values in), then written, checked and answered as any create. `make` runs again
 * if the transaction is retried. `many`: answered as a list, else as the one object.
 */
export async function createObjectsWith(ctx: CallContext, model: ResolvedModel, many: boolean, count: number, addScope: Sql[], make: (trx: Trx) => Promise<unknown[]>): Promise<string> {
  checkBulkSize(ctx, count);
  const json = await jsonOptions(ctx, { model, form: 'full' }, true);
  const text = await inTransaction(ctx, async (trx, careful) => {
    const items = await make(trx);
    const results = await writeAll(ctx, trx, model, items.map((item) => ({ item: withOwner(ctx, model, item), mode: 'create' as const })), many, careful);
    await requireWithin(trx, model, results, addScope);
    await afterWrite(trx, ctx.registry, model, results);
    return answer(ctx, trx, model, results, !many, json);
  });
  ctx.maintenance?.noteWritten(model.table, 'insert', count);
  return text;
}

/** A bulk request names at most PATCHBAY_BULK_MAX_OBJECTS objects: one request cannot hold a transaction open indefinitely. */
function checkBulkSize(ctx: CallContext, n: number): void {
  const max = ctx.config.bulkMaxObjects;
  if (max && n > max) throw new HttpError(400, { non_field_errors: [`A bulk request may name at most ${max} objects; this one names ${n}.`] });
}

/** Elements written between two turns of the event loop, so that a large bulk request does not hold up every other. */
const YIELD_EVERY = 200;

/**
 * Writes every element, collecting errors; all-or-none. Every element is validated first (as NetBox's
 * serializers validate a whole list before saving); a bulk request whose elements are all valid and
 * plain is then written set-based, unless `careful` (an earlier attempt's set was refused).
 */
async function writeAll(ctx: CallContext, trx: Trx, model: ResolvedModel, work: Array<{ item: unknown; mode: WriteMode; id?: number; earlier?: PreparedEarlier | null; passwordHashes?: PasswordHashes }>, many: boolean, careful = false, files?: ReadonlyMap<string, StoredUpload>): Promise<number[]> {
  const prepared: Prepared[] = [];
  for (const [i, w] of work.entries()) {
    if (i && i % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
    // An element the one-statement path prepared already is not prepared again (unless definitions changed since).
    const kept = w.earlier ? await stillPrepared(trx, ctx.registry, model, w.earlier) : null;
    prepared.push(kept ?? (await prepareWrite(trx, ctx.registry, model, w.item, w.mode, { strictFields: ctx.config.rejectUnknownFields, id: w.id, files, config: ctx.config, passwordHashes: w.passwordHashes })));
  }
  const writes = prepared.flatMap((p) => (p.ok ? [p.write] : []));
  if (many && !careful && writes.length === work.length && writes.length > 1 && fitsSetWrite(model, writes, work[0]!.id === undefined)) {
    return writeSet(trx, model, writes, work.map((w) => w.id), ruleSettings(ctx.config));
  }
  const ids: number[] = [];
  const errors: FieldErrors[] = [];
  let failed = false;
  for (const [i, w] of work.entries()) {
    if (i && i % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
    const p = prepared[i]!;
    const r = p.ok ? await writeOne(ctx, trx, model, p.write, w.id, many) : p.errors;
    if (isErrors(r)) {
      failed = true;
      errors.push(r);
    } else {
      ids.push(r);
      errors.push({});
    }
  }
  if (failed) throw new ValidationError(many ? errors : errors[0]!);
  return ids;
}

/**
 * PUT or PATCH on a detail endpoint: the object must be within the change constraints before and after.
 * `files`: images uploaded with the change, already stored (the caller removes them if this throws); the
 * files they replace are removed once the change has committed.
 */
export async function updateObject(ctx: CallContext, model: ResolvedModel, id: number, body: unknown, mode: WriteMode, scopes: WriteScopes, files?: ReadonlyMap<string, StoredUpload>): Promise<string> {
  let earlier: PreparedEarlier | null = null;
  if (!scopes.act.length && scopes.view !== null && !files?.size && !inRequestTransaction(ctx)) {
    const one = await updateInOneStatement(ctx, model, id, body, mode, scopes.view);
    if ('done' in one) {
      ctx.maintenance?.noteWritten(model.table, 'update', 1);
      return one.done;
    }
    earlier = one.earlier;
  }
  let replaced: string[] = [];
  const json = await jsonOptions(ctx, { model, form: 'full' });
  const passwordHashes = earlier ? NO_HASHES : await hashPasswordsAhead(model, [body]);
  const text = await inTransaction(ctx, async (trx) => {
    await requireTargets(ctx, trx, model, [id], scopes, true);
    if (files?.size) await noteFilesLeft(trx, model, [id]);
    await writeAll(ctx, trx, model, [{ item: body, mode, id, earlier, passwordHashes }], false, false, files);
    await requireWithin(trx, model, [id], scopes.act);
    await afterWrite(trx, ctx.registry, model, [id]);
    const out = await answer(ctx, trx, model, [id], true, json);
    replaced = takeFilesLeft(trx);
    return out;
  });
  ctx.maintenance?.noteWritten(model.table, 'update', 1);
  await removeFiles(ctx.config.mediaRoot, replaced);
  return text;
}

function bulkIds(body: unknown): { ids: number[]; items: Array<Record<string, unknown>> } {
  if (!Array.isArray(body)) throw new HttpError(400, { non_field_errors: ['Expected a list of items.'] });
  // An empty list changes nothing and is not an error (pynetbox sends one for an empty RecordSet).
  const errors: FieldErrors[] = [];
  const ids: number[] = [];
  let failed = false;
  for (const item of body) {
    const e: FieldErrors = {};
    if (item === null || typeof item !== 'object' || Array.isArray(item)) e.non_field_errors = ['Invalid data. Expected a dictionary.'];
    else {
      const pk = parsePk((item as Record<string, unknown>).id);
      if (pk === null) e.id = ['This field is required and must be an existing object id.'];
      else if (ids.includes(pk)) e.id = ['Duplicate id in request.'];
      else ids.push(pk);
    }
    if (Object.keys(e).length) failed = true;
    errors.push(e);
  }
  if (failed) throw new ValidationError(errors);
  return { ids, items: body as Array<Record<string, unknown>> };
}

/** PUT or PATCH on a list endpoint: an array of {id, ...changes}; all-or-none. */
export async function bulkUpdate(ctx: CallContext, model: ResolvedModel, body: unknown, mode: WriteMode, scopes: WriteScopes): Promise<string> {
  if (Array.isArray(body)) checkBulkSize(ctx, body.length);
  const { ids, items } = bulkIds(body);
  if (!ids.length) return '[]';
  const json = await jsonOptions(ctx, { model, form: 'full' });
  const passwordHashes = await hashPasswordsAhead(model, items);
  const text = await inTransaction(ctx, async (trx, careful) => {
    await requireTargets(ctx, trx, model, ids, scopes, false);
    const work = items.map((item, i) => {
      const rest: Record<string, unknown> = { ...item };
      delete rest.id;
      return { item: rest, mode, id: ids[i]!, passwordHashes };
    });
    await writeAll(ctx, trx, model, work, true, careful);
    await requireWithin(trx, model, ids, scopes.act);
    await afterWrite(trx, ctx.registry, model, ids);
    return answer(ctx, trx, model, ids, false, json);
  });
  ctx.maintenance?.noteWritten(model.table, 'update', ids.length);
  return text;
}

/** DELETE of objects (one, or a list of {id}); 409 naming the dependents when a protecting relation blocks it. */
export async function deleteByIds(ctx: CallContext, model: ResolvedModel, ids: number[], single: boolean, scopes: WriteScopes): Promise<void> {
  if (!ids.length) return;
  // The files the deleted rows (and those deleted with them) named: removed once the delete has committed.
  let files: string[] = [];
  try {
    await inTransaction(ctx, async (trx) => {
      await requireTargets(ctx, trx, model, ids, scopes, single);
      await beforeDelete(trx, ctx.registry, model, ids);
      const retracePaths = await pathsDeleting(trx, ctx.registry, model, ids);
      const deleted = await deleteObjects(trx, ctx.registry, model, ids);
      await retracePaths();
      await retraceCablesLosingEnds(trx, ctx.registry);
      if (single && !deleted.length) throw notFound();
      if (!single && deleted.length < ids.length) {
        // All-or-none: an id that names nothing aborts the whole bulk delete, as it does a bulk update.
        const gone = new Set(deleted);
        throw new ValidationError(ids.map((id): FieldErrors => (gone.has(id) ? {} : { id: [`Object with id ${id} does not exist.`] })));
      }
      files = takeFilesLeft(trx);
    });
  } catch (e) {
    if (e instanceof GenericProtectedError) throw await refusedDelete(ctx, ctx.knex, e.ids.map((id) => ({ model: e.model, id })));
    const pg = asPgError(e);
    if (pg && (pg.code === RESTRICT_VIOLATION || pg.code === FK_VIOLATION)) {
      const found = await protectingObjects(ctx.knex, model, ids);
      if (!found.length) throw new HttpError(409, { detail: 'Unable to delete object: dependent objects exist.' });
      throw await refusedDelete(ctx, ctx.knex, found.map((f) => ({ model: f.model, id: f.row.id })));
    }
    throw e;
  }
  ctx.maintenance?.noteWritten(model.table, 'delete', ids.length);
  await removeFiles(ctx.config.mediaRoot, files);
}

export function bulkDeleteIds(ctx: CallContext, body: unknown): number[] {
  if (Array.isArray(body)) checkBulkSize(ctx, body.length);
  return bulkIds(body).ids;
}
