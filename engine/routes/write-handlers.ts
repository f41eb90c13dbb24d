import type { Knex } from 'knex';
import type { ResolvedModel } from '../definitions/registry-types';
import { prepareWrite, type WriteMode } from '../validation/prepare-write';
import { ValidationError, type FieldErrors } from '../validation/field-errors';
import { insertRow, setLinks, updateRow, existingIds } from '../storage/write-rows';
import { deleteObjects, protectedMessage, protectingObjects } from '../storage/delete-objects';
import { asPgError, constraintErrors, FK_VIOLATION, RESTRICT_VIOLATION } from '../storage/db-errors';
import { readByIds } from '../query/read-objects';
import { checkTreeParent } from '../storage/tree-parent';
import type { CallContext } from './api-context';
import { HttpError, notFound } from './http-error';
import { parsePk } from '../validation/resolve-related';

type Trx = Knex.Transaction;

/** Writes one prepared object; a constraint the database refuses becomes that element's field errors. */
async function writeOne(ctx: CallContext, trx: Trx, model: ResolvedModel, body: unknown, mode: WriteMode, id?: number): Promise<number | FieldErrors> {
  const prepared = await prepareWrite(trx, ctx.registry, model, body, mode);
  if (!prepared.ok) return prepared.errors;
  const { columns, links } = prepared.write;
  if (id !== undefined && model.tree && 'parent_id' in columns) {
    const problem = await checkTreeParent(trx, model, id, columns.parent_id as number | null);
    if (problem) return { parent: [problem] };
  }
  try {
    await trx.raw('SAVEPOINT patchbay_write');
    let target = id;
    if (target === undefined) target = await insertRow(trx, model, columns);
    else if (Object.keys(columns).length || links.size) await updateRow(trx, model, target, columns);
    for (const [table, ids] of links) await setLinks(trx, table, target, ids);
    await trx.raw('RELEASE SAVEPOINT patchbay_write');
    return target;
  } catch (e) {
    const pg = asPgError(e);
    const errors = pg ? constraintErrors(ctx.registry, model, pg) : null;
    if (!errors) throw e;
    await trx.raw('ROLLBACK TO SAVEPOINT patchbay_write');
    return errors;
  }
}

/** Runs a write in one transaction: any element's errors abort all of it, aligned with the request's elements. */
async function inTransaction<T>(ctx: CallContext, work: (trx: Trx) => Promise<T>): Promise<T> {
  return ctx.knex.transaction(work);
}

function isErrors(v: number | FieldErrors): v is FieldErrors {
  return typeof v !== 'number';
}

/** POST one object (201 + Location) or an array of objects (201, answered in request order). */
export async function createObjects(ctx: CallContext, model: ResolvedModel, body: unknown): Promise<{ body: unknown; location?: string }> {
  const many = Array.isArray(body);
  const items = many ? (body as unknown[]) : [body];
  if (many && !items.length) throw new HttpError(400, { non_field_errors: ['Expected a list of items but got an empty list.'] });
  return inTransaction(ctx, async (trx) => {
    const results = await writeAll(ctx, trx, model, items.map((item) => ({ item, mode: 'create' as const })), many);
    const reps = await readByIds(trx, ctx.registry, ctx.serializer, model, results);
    if (many) return { body: reps };
    return { body: reps[0], location: ctx.serializer.url(model, results[0]!) };
  });
}

/** Writes every element, collecting errors; all-or-none. */
async function writeAll(ctx: CallContext, trx: Trx, model: ResolvedModel, work: Array<{ item: unknown; mode: WriteMode; id?: number }>, many: boolean): Promise<number[]> {
  const ids: number[] = [];
  const errors: FieldErrors[] = [];
  let failed = false;
  for (const w of work) {
    const r = await writeOne(ctx, trx, model, w.item, w.mode, w.id);
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

async function lockExisting(trx: Trx, model: ResolvedModel, ids: number[]): Promise<Set<number>> {
  const found = await existingIds(trx, model, ids);
  return found;
}

/** PUT or PATCH on a detail endpoint. */
export async function updateObject(ctx: CallContext, model: ResolvedModel, id: number, body: unknown, mode: WriteMode): Promise<unknown> {
  return inTransaction(ctx, async (trx) => {
    const found = await lockExisting(trx, model, [id]);
    if (!found.has(id)) throw notFound();
    await writeAll(ctx, trx, model, [{ item: body, mode, id }], false);
    const [rep] = await readByIds(trx, ctx.registry, ctx.serializer, model, [id]);
    return rep;
  });
}

function bulkIds(body: unknown, requireOnlyId: boolean): { ids: number[]; items: Array<Record<string, unknown>> } {
  if (!Array.isArray(body)) throw new HttpError(400, { non_field_errors: ['Expected a list of items.'] });
  if (!body.length) throw new HttpError(400, { non_field_errors: ['Expected a list of items but got an empty list.'] });
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
      if (requireOnlyId) void 0;
    }
    if (Object.keys(e).length) failed = true;
    errors.push(e);
  }
  if (failed) throw new ValidationError(errors);
  return { ids, items: body as Array<Record<string, unknown>> };
}

/** PUT or PATCH on a list endpoint: an array of {id, ...changes}; all-or-none. */
export async function bulkUpdate(ctx: CallContext, model: ResolvedModel, body: unknown, mode: WriteMode): Promise<unknown> {
  const { ids, items } = bulkIds(body, false);
  return inTransaction(ctx, async (trx) => {
    const found = await lockExisting(trx, model, ids);
    const missing = ids.map((id): FieldErrors => (found.has(id) ? {} : { id: [`Object with id ${id} does not exist.`] }));
    if (missing.some((e) => Object.keys(e).length)) throw new ValidationError(missing);
    const work = items.map((item, i) => {
      const rest: Record<string, unknown> = { ...item };
      delete rest.id;
      return { item: rest, mode, id: ids[i]! };
    });
    await writeAll(ctx, trx, model, work, true);
    return readByIds(trx, ctx.registry, ctx.serializer, model, ids);
  });
}

/** DELETE of objects (one, or a list of {id}); 409 naming the dependents when a protecting relation blocks it. */
export async function deleteByIds(ctx: CallContext, model: ResolvedModel, ids: number[], single: boolean): Promise<void> {
  try {
    await inTransaction(ctx, async (trx) => {
      const deleted = await deleteObjects(trx, ctx.registry, model, ids);
      if (single && !deleted.length) throw notFound();
      if (!single && deleted.length < ids.length) {
        // All-or-none: an id that names nothing aborts the whole bulk delete, as it does a bulk update.
        const gone = new Set(deleted);
        throw new ValidationError(ids.map((id): FieldErrors => (gone.has(id) ? {} : { id: [`Object with id ${id} does not exist.`] })));
      }
    });
  } catch (e) {
    const pg = asPgError(e);
    if (pg && (pg.code === RESTRICT_VIOLATION || pg.code === FK_VIOLATION)) {
      const found = await protectingObjects(ctx.knex, model, ids);
      throw new HttpError(409, { detail: found.length ? protectedMessage(found) : 'Unable to delete object: dependent objects exist.' });
    }
    throw e;
  }
}

export function bulkDeleteIds(body: unknown): number[] {
  return bulkIds(body, true).ids;
}
