import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { ResolvedField, ResolvedModel } from '../definitions/registry-types';
import { ident, join, sql } from '../sql/fragment';
import { runRows } from '../database/run';
import type { Db } from '../database/db';

/**
 * Files that live beside the rows naming them (image attachments' images), under the media folder.
 *
 * A row must never name a file that is not there. So a file is written (under a name no other file has)
 * before the transaction that stores its name, and removed again if that transaction does not commit;
 * a file a row stops naming (the row deleted, or given another file) is removed only once the
 * transaction that did so has committed. A crash between the two steps can leave a file no row names:
 * such a file is never served (the media route serves only files rows name) and may be removed.
 */


/** A model's fields that hold stored files. */
export function fileFields(model: ResolvedModel): ResolvedField[] {
  return model.fieldList.filter((f) => f.kind === 'image');
}

const MAX_NAME_TRIES = 20;

/** A file name's safe form: letters, digits, '.', '-' and '_' only, never starting with a dot. */
function safeBase(name: string): string {
  const base = name.normalize('NFKD').replace(/\p{M}+/gu, '').replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '').replace(/_+/g, '_');
  return base || 'file';
}

/**
 * Writes `bytes` under `folder` as `<base>.<extension>` (with a random suffix when that name is taken),
 * creating the file exclusively so that two writers never share one, and flushes it to disk. The name,
 * relative to the media folder, fits in `maxLength` characters.
 */
export async function storeFile(mediaRoot: string, folder: string, base: string, extension: string, bytes: Buffer, maxLength: number): Promise<string> {
  await fs.mkdir(path.join(mediaRoot, folder), { recursive: true });
  const room = maxLength - folder.length - 1 - extension.length - 1 - 8;
  if (room < 1) throw new Error(`${folder}: no room for a file name in ${maxLength} characters`);
  const stem = safeBase(base).slice(0, room);
  for (let attempt = 0; attempt < MAX_NAME_TRIES; attempt++) {
    // Django's way: the name as given, else with seven random characters after an underscore.
    const suffix = attempt === 0 ? '' : `_${crypto.randomBytes(6).toString('base64url').slice(0, 7).replace(/[-_]/g, 'x')}`;
    const relative = `${folder}/${stem}${suffix}.${extension}`;
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(path.join(mediaRoot, relative), 'wx', 0o644);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw e;
    }
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } catch (e) {
      await handle.close();
      await removeFiles(mediaRoot, [relative]);
      throw e;
    }
    await handle.close();
    return relative;
  }
  throw new Error(`${folder}: no free file name for ${stem}.${extension}`);
}

/** The absolute path of a stored file, or null when the name would leave the media folder. */
export function filePath(mediaRoot: string, relative: string): string | null {
  if (!/^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/.test(relative) || relative.split('/').includes('..')) return null;
  return path.join(mediaRoot, relative);
}

/** Removes stored files; one already gone is not an error, and a failure is logged, not thrown (the rows are what count). */
export async function removeFiles(mediaRoot: string, relatives: Iterable<string>): Promise<void> {
  for (const relative of relatives) {
    const full = filePath(mediaRoot, relative);
    if (!full) continue;
    try {
      await fs.unlink(full);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') console.error(`could not remove ${full}: ${(e as Error).message}`);
    }
  }
}

/** Per transaction: the files its rows stop naming, to remove once it has committed. */
const leftBehind = new WeakMap<object, Set<string>>();

/** Records that rows of `model` with these ids stop naming their files (they are deleted, or get new ones) in this transaction. */
export async function noteFilesLeft(db: Db, model: ResolvedModel, ids: readonly number[]): Promise<void> {
  const fields = fileFields(model);
  if (!fields.length || !ids.length) return;
  const rows = await runRows<Record<string, string | null>>(db, sql`SELECT ${join(fields.map((f) => ident(f.column!)))} FROM ${ident(model.table)} WHERE "id" = ANY(${[...ids]}::bigint[])`);
  let set = leftBehind.get(db);
  if (!set) leftBehind.set(db, (set = new Set()));
  for (const row of rows) for (const f of fields) if (row[f.column!]) set.add(row[f.column!]!);
}

/** The files a transaction left behind (see noteFilesLeft), forgotten as they are handed over. */
export function takeFilesLeft(db: Db): string[] {
  const set = leftBehind.get(db);
  leftBehind.delete(db);
  return set ? [...set] : [];
}
