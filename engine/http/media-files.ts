import type { Request, Response } from 'express';
import type { ResolvedField, ResolvedModel } from '../definitions/registry-types';
import type { CallContext } from './api-context';
import { methodNotAllowed, notAuthenticated, notFound } from './http-error';
import { and, column, ident, sql } from '../sql/fragment';
import { runRows } from '../database/run';
import { fileFields, filePath } from '../writes/stored-files';
import { mimeOfExtension } from '../validation/image-header';

/** The image fields whose files a name under the media folder could be: those whose upload_to folder holds it. */
function candidates(ctx: CallContext, relative: string): Array<{ model: ResolvedModel; field: ResolvedField }> {
  const out: Array<{ model: ResolvedModel; field: ResolvedField }> = [];
  for (const model of ctx.registry.models.values()) {
    if (!model.exposed) continue;
    for (const field of fileFields(model)) {
      const folder = `${field.def.upload_to!}/`;
      if (relative.startsWith(folder) && !relative.slice(folder.length).includes('/')) out.push({ model, field });
    }
  }
  return out;
}

/** Whether the caller may see an object whose field names this file (so that the file may be served to them). */
async function mayView(ctx: CallContext, relative: string): Promise<boolean> {
  for (const { model, field } of candidates(ctx, relative)) {
    const scope = await ctx.scope(model, 'view');
    if (!scope.allowed) continue;
    const rows = await runRows(ctx.knex, sql`SELECT 1 FROM ${ident(model.table)} AS "t" WHERE ${and([sql`${column('t', field.column!)} = ${relative}`, ...scope.conditions])} LIMIT 1`);
    if (rows.length) return true;
  }
  return false;
}

/**
 * GET /media/<name>: a stored file (NetBox's MEDIA_URL), served only while a row names it (never a file
 * whose write did not commit, nor one whose row is gone), and only to a caller who may view that row:
 * NetBox serves every media file to anyone who may use it at all; object permissions are kept here.
 */
export async function serveMedia(ctx: CallContext, req: Request, res: Response, relative: string): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') throw methodNotAllowed(req.method, ['GET', 'HEAD']);
  const full = filePath(ctx.config.mediaRoot, relative);
  const mime = mimeOfExtension(relative);
  if (!full || !mime || !(await mayView(ctx, relative))) {
    if (!ctx.principal && ctx.config.loginRequired) throw notAuthenticated();
    throw notFound();
  }
  await new Promise<void>((resolve, reject) => {
    res.sendFile(relative, {
      root: ctx.config.mediaRoot,
      dotfiles: 'deny',
      etag: false,
      headers: { 'Content-Type': mime, 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'private, no-cache' },
    }, (err?: Error & { code?: string; status?: number }) => {
      if (!err) return resolve();
      // A row naming a file that is not there: nothing to serve (and worth a line in the log).
      if (err.code === 'ENOENT' || err.status === 404) {
        console.error(`media file ${full} is named by a row but missing`);
        return reject(notFound());
      }
      reject(err);
    });
  });
}
