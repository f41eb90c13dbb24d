import type { ResolvedModel } from '../definitions/registry-types';
import type { CallContext } from '../http/api-context';
import { runRows } from '../database/run';
import { ident, sql } from '../sql/fragment';
import { beforeDelete } from '../writes/role-hooks';
import { pathsDeleting, retraceCablesLosingEnds } from '../domain/cables/cable-paths';
import { deleteObjects } from '../writes/delete-objects';
import { removeFiles, takeFilesLeft } from '../writes/stored-files';
import { asPgError } from '../database/db-errors';
import { markImporting } from './write-objects';

/**
 * `--sync`: objects the target has and the source no longer does are deleted, types in reverse write
 * order so dependents go first, each type in one transaction through the engine's delete (cascades, cable
 * paths retraced, files removed after commit). The target's own accounts — users and tokens only the
 * target has, such as the superuser made to run it — are kept: the source cannot speak for them.
 */

export interface Deletion {
  deleted: number;
  kept?: { ids: number[]; reason: string };
}

export async function deleteGone(ctx: CallContext, model: ResolvedModel, keep: ReadonlySet<number>): Promise<Deletion> {
  if (model.def.read_only) return { deleted: 0 };
  const role = model.def.role;
  if (role === 'user' || role === 'token') return { deleted: 0 };
  const rows = await runRows<{ id: string | number }>(ctx.knex, sql`SELECT "id" FROM ${ident(model.table)} ORDER BY "id"`);
  const gone = rows.map((r) => Number(r.id)).filter((id) => !keep.has(id));
  if (!gone.length) return { deleted: 0 };
  let files: string[] = [];
  try {
    const deleted = await ctx.knex.transaction(async (trx) => {
      await markImporting(trx);
      await beforeDelete(trx, ctx.registry, model, gone);
      const retrace = await pathsDeleting(trx, ctx.registry, model, gone);
      const done = await deleteObjects(trx, ctx.registry, model, gone);
      await retrace();
      await retraceCablesLosingEnds(trx, ctx.registry);
      files = takeFilesLeft(trx);
      return done;
    });
    await removeFiles(ctx.config.mediaRoot, files);
    return { deleted: deleted.length };
  } catch (e) {
    const pg = asPgError(e);
    if (!pg && !(e instanceof Error && e.name === 'GenericProtectedError')) throw e;
    return { deleted: 0, kept: { ids: gone, reason: `still referred to by objects only the target has: ${(e as Error).message}` } };
  }
}
