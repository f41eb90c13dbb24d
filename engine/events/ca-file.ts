import fs from 'node:fs/promises';
import { constants } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config';

/**
 * A webhook's ca_file_path names a file the server reads: only a regular file inside the directory an
 * administrator set aside (PATCHBAY_WEBHOOK_CA_DIR; unset: no webhook may name one), of at most
 * PATCHBAY_WEBHOOK_CA_MAX_SIZE bytes. Checked when the webhook is written and again, on the file
 * itself, when it is read for a delivery (the file may have changed since).
 *
 * Every refusal of a path but "no directory is set" is the same sentence, so a caller learns nothing
 * about files outside the directory (whether they exist, what they are); a path outside it is refused
 * before the file system is asked anything.
 */

type CaSettings = Pick<Config, 'webhookCaDir' | 'webhookCaMaxSize'>;

const NO_DIRECTORY = 'This server takes no CA files: its administrator has not set PATCHBAY_WEBHOOK_CA_DIR.';

function refusal(settings: CaSettings): string {
  return `Must name a regular file of at most ${settings.webhookCaMaxSize} bytes in the server's CA directory.`;
}

function inside(dir: string, file: string): boolean {
  const rel = path.relative(dir, file);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

/** The file's real path when it lies (symbolic links resolved) inside the CA directory, else null. */
async function locate(value: string, dir: string): Promise<string | null> {
  if (value.includes('\0')) return null;
  const named = path.resolve(dir, value);
  // Outside the directory as written: refused without touching the file system.
  if (!inside(path.resolve(dir), named)) return null;
  try {
    const [realDir, real] = await Promise.all([fs.realpath(dir), fs.realpath(named)]);
    return inside(realDir, real) ? real : null;
  } catch {
    return null;
  }
}

/** Why a written ca_file_path cannot be stored, or null. */
export async function caFileProblem(value: string, config: CaSettings | undefined): Promise<string | null> {
  if (!config?.webhookCaDir) return NO_DIRECTORY;
  const real = await locate(value, config.webhookCaDir);
  if (!real) return refusal(config);
  try {
    const st = await fs.stat(real);
    return st.isFile() && st.size <= config.webhookCaMaxSize ? null : refusal(config);
  } catch {
    return refusal(config);
  }
}

/**
 * The CA file's contents for a delivery, or why it cannot be used. Opened without following a final
 * symbolic link and without blocking (a FIFO or device put there since does not hang the read), checked
 * to be a regular file on the open descriptor, and read to at most the size cap.
 */
export async function readCaFile(value: string, config: CaSettings): Promise<{ ok: true; ca: Buffer } | { ok: false; error: string }> {
  const bad = { ok: false as const, error: `ca_file_path: ${config.webhookCaDir ? refusal(config) : NO_DIRECTORY}` };
  if (!config.webhookCaDir) return bad;
  const real = await locate(value, config.webhookCaDir);
  if (!real) return bad;
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const st = await handle.stat();
    if (!st.isFile() || st.size > config.webhookCaMaxSize) return bad;
    // One byte more than the file had: a file that grew since the stat fills it, and is refused rather than cut.
    const buf = Buffer.alloc(st.size + 1);
    let size = 0;
    while (size < buf.length) {
      const { bytesRead } = await handle.read(buf, size, buf.length - size, size);
      if (!bytesRead) break;
      size += bytesRead;
    }
    return size === buf.length ? bad : { ok: true, ca: buf.subarray(0, size) };
  } catch {
    return bad;
  } finally {
    await handle?.close();
  }
}
