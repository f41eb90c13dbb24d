import type { ResolvedModel } from '../definitions/registry-types';
import type { CallContext } from '../http/api-context';
import type { DbTransaction } from '../database/db';
import { prepareWrite, type LockedRows, type PreparedWrite, type StoredUpload } from '../writes/prepare-write';
import { fitsSetWrite, RowSetRefused, writeOne, writeSet } from '../writes/write-handlers';
import { afterWrite } from '../writes/role-hooks';
import { ruleSettings } from '../validation/definition-checks';
import { ValidationError, type FieldErrors } from '../validation/field-errors';
import { asPgError } from '../database/db-errors';
import { runRows } from '../database/run';
import { ident, join, sql } from '../sql/fragment';
import type { PasswordHashes } from '../writes/passwords-ahead';

/**
 * Writes one chunk of a type's imported objects in one transaction, marked as an import (no change log
 * rows, no events: engine/migrations/change-log-triggers.ts). Each object goes through the write path's
 * own validation (prepareWrite, the definition's checks, the database's constraints) under its source id;
 * valid ones are written set-based, and when the set is refused each is written alone so the ones at
 * fault are told apart and the others still land. What the write path sets itself (created,
 * last_updated, read-only columns such as a user's superuser flag) is then put back to the source's values.
 */

export interface ImportItem {
  id: number;
  /** Whether the object exists in the target already. */
  exists: boolean;
  /** create: a new object under its source id; patch: an existing one, every field the source shows written (a password it cannot show kept). */
  mode: 'create' | 'put' | 'patch';
  body: Record<string, unknown>;
  files?: ReadonlyMap<string, StoredUpload>;
  /** Columns restored after the write (by column name), or null to leave them (a second pass follows). */
  restore: Record<string, unknown> | null;
}

export interface Refusal {
  id: number;
  reason: string;
}

export interface ChunkOutcome {
  written: number[];
  refused: Refusal[];
}

/** Marks the transaction as an import: its writes are neither logged nor evented. */
export async function markImporting(trx: DbTransaction): Promise<void> {
  await runRows(trx, sql`SELECT set_config('patchbay.importing', 'on', true) IS NOT NULL AS "set"`);
}

export function reasonOf(errors: FieldErrors): string {
  return Object.entries(errors)
    .map(([field, messages]) => `${field}: ${(Array.isArray(messages) ? messages : [messages]).map((m) => (typeof m === 'string' ? m : JSON.stringify(m))).join(' ')}`)
    .join('; ');
}

/** Puts back the columns the write path set itself, from the source's values; rows grouped by the columns they carry. */
export async function restoreColumns(trx: DbTransaction, model: ResolvedModel, rows: ReadonlyArray<{ id: number; columns: Record<string, unknown> }>): Promise<void> {
  const groups = new Map<string, Array<Record<string, unknown>>>();
  for (const r of rows) {
    const names = Object.keys(r.columns).sort();
    if (!names.length) continue;
    const key = names.join(',');
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key)!.push({ id: r.id, ...r.columns });
  }
  for (const [key, values] of groups) {
    const sets = key.split(',').map((c) => sql`${ident(c)} = "v".${ident(c)}`);
    await runRows(trx, sql`UPDATE ${ident(model.table)} AS "t" SET ${join(sets)}
      FROM json_populate_recordset(NULL::${ident(model.table)}, ${JSON.stringify(values)}::json) AS "v" WHERE "t"."id" = "v"."id"`);
  }
}

function isDataError(e: unknown): boolean {
  const code = asPgError(e)?.code ?? '';
  return e instanceof RowSetRefused || e instanceof ValidationError || code.startsWith('23') || code.startsWith('22');
}

/**
 * The rows a chunk's bodies name without a foreign key (generic relations, many-to-many links, tags),
 * found and locked FOR KEY SHARE with one statement per type, as the write path would one object at a
 * time: what it then need not look up again.
 */
async function lockReferences(trx: DbTransaction, model: ResolvedModel, items: readonly ImportItem[]): Promise<LockedRows> {
  const wanted = new Map<ResolvedModel, Set<number>>();
  const want = (target: ResolvedModel | undefined, id: unknown) => {
    if (!target || typeof id !== 'number' || !Number.isSafeInteger(id)) return;
    if (!wanted.has(target)) wanted.set(target, new Set());
    wanted.get(target)!.add(id);
  };
  for (const { body } of items) {
    for (const f of model.fieldList) {
      if (f.kind === 'generic_fk') {
        const label = body[f.typeColumn];
        const target = typeof label === 'string' ? model.modelByLabel(label) : undefined;
        if (target && f.genericTargets.includes(target)) want(target, body[f.idColumn]);
      } else if ((f.kind === 'm2m' && !f.def.by_key) || f.kind === 'tags') {
        const ids = body[f.name];
        if (Array.isArray(ids)) for (const id of ids) want(f.target, id);
      }
    }
  }
  const locked = new Map<ResolvedModel, ReadonlySet<number>>();
  for (const [target, ids] of [...wanted].sort((a, b) => a[0].label.localeCompare(b[0].label))) {
    const rows = await runRows<{ id: string | number }>(trx, sql`SELECT "id" FROM ${ident(target.table)} WHERE "id" = ANY(${[...ids]}::bigint[]) ORDER BY "id" FOR KEY SHARE`);
    locked.set(target, new Set(rows.map((r) => Number(r.id))));
  }
  return locked;
}

export async function writeChunk(ctx: CallContext, model: ResolvedModel, items: readonly ImportItem[], passwordHashes: PasswordHashes): Promise<ChunkOutcome> {
  return ctx.knex.transaction(async (trx) => {
    await markImporting(trx);
    const refused: Refusal[] = [];
    const ready: Array<{ item: ImportItem; write: PreparedWrite }> = [];
    const locked = await lockReferences(trx, model, items);
    for (const item of items) {
      const p = await prepareWrite(trx, ctx.registry, model, item.body, item.mode, {
        id: item.mode === 'create' ? undefined : item.id,
        files: item.files,
        config: ctx.config,
        passwordHashes,
        locked,
      });
      if (!p.ok) refused.push({ id: item.id, reason: reasonOf(p.errors) });
      else {
        if (!item.exists) p.write.columns.id = item.id;
        ready.push({ item, write: p.write });
      }
    }
    const written = await writeReady(ctx, trx, model, ready, refused);
    await afterWrite(trx, ctx.registry, model, written);
    const ok = new Set(written);
    await restoreColumns(trx, model, ready.filter((r) => ok.has(r.item.id) && r.item.restore).map((r) => ({ id: r.item.id, columns: r.item.restore! })));
    return { written, refused };
  });
}

async function writeReady(ctx: CallContext, trx: DbTransaction, model: ResolvedModel, ready: ReadonlyArray<{ item: ImportItem; write: PreparedWrite }>, refused: Refusal[]): Promise<number[]> {
  const creates = ready.filter((r) => !r.item.exists);
  const updates = ready.filter((r) => r.item.exists);
  const settings = ruleSettings(ctx.config);
  const setBased = (group: typeof ready, creating: boolean) => group.length > 0 && fitsSetWrite(model, group.map((r) => r.write), creating);
  if ((setBased(creates, true) || !creates.length) && (setBased(updates, false) || !updates.length)) {
    await trx.raw('SAVEPOINT patchbay_import');
    try {
      const out: number[] = [];
      if (creates.length) await writeSet(trx, model, creates.map((r) => r.write), creates.map(() => undefined), settings);
      out.push(...creates.map((r) => r.item.id));
      if (updates.length) out.push(...(await writeSet(trx, model, updates.map((r) => r.write), updates.map((r) => r.item.id), settings)));
      await trx.raw('RELEASE SAVEPOINT patchbay_import');
      return out;
    } catch (e) {
      if (!isDataError(e)) throw e;
      await trx.raw('ROLLBACK TO SAVEPOINT patchbay_import');
    }
  }
  // One at a time, each in a savepoint of its own (writeOne's bulk mode): the refused are told apart.
  const out: number[] = [];
  for (const r of ready) {
    const result = await writeOne(ctx, trx, model, r.write, r.item.exists ? r.item.id : undefined, true);
    if (typeof result === 'number') out.push(r.item.exists ? r.item.id : result);
    else refused.push({ id: r.item.id, reason: reasonOf(result) });
  }
  return out;
}
