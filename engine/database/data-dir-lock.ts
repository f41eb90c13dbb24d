import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { StartupError } from './startup-error';

/** A held data-folder lock. The operating system drops it when the process ends, however it ends. */
export interface DataDirLock {
  release(): Promise<void>;
}

/** The folder a pid file named its owner in before this lock existed; a leftover is removed, never believed. */
const LEGACY_PID_FILE = 'patchbay.pid';

/**
 * The lock's address, from the folder's real path (two spellings of one folder are one lock). On Linux an
 * abstract-namespace socket: no file to leave behind, gone with the process. Elsewhere a socket file.
 */
function lockAddress(dir: string): string {
  const hash = crypto.createHash('sha256').update(fs.realpathSync(dir)).digest('hex').slice(0, 32);
  return process.platform === 'linux' ? `\0patchbay-data-${hash}` : path.join(os.tmpdir(), `patchbay-data-${hash}.sock`);
}

function listen(server: net.Server, address: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    // exclusive: even in a cluster worker, this process binds the socket itself.
    server.listen({ path: address, exclusive: true }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function askPid(address: string): Promise<number | 'refused' | null> {
  return new Promise((resolve) => {
    let text = '';
    const socket = net.connect({ path: address });
    socket.setTimeout(2000, () => socket.destroy());
    socket.on('data', (b: Buffer) => (text += b.toString()));
    socket.on('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED' ? 'refused' : null));
    socket.on('close', () => resolve(/^\d+$/.test(text) ? Number(text) : null));
  });
}

/**
 * Asks the holder for its pid (it answers every connection with it); null when nobody answers. A holder
 * that has bound the socket but not yet called listen() refuses connections for a moment: ask again.
 */
async function holderPid(address: string): Promise<number | null> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const answer = await askPid(address);
    if (answer !== 'refused') return answer;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return null;
}

/**
 * The embedded database is one process's: a second process on the same folder would see a stale copy
 * and lose its writes. Binding a unix socket is atomic (one of any number of racing processes wins) and
 * the kernel releases it when the process dies, so neither a race nor a stale pid can fool it.
 */
export async function lockDataDir(dir: string): Promise<DataDirLock> {
  const address = lockAddress(dir);
  const server = net.createServer((socket) => socket.end(String(process.pid)));
  for (let attempt = 0; ; attempt++) {
    try {
      await listen(server, address);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
      const pid = await holderPid(address);
      if (pid === null && !address.startsWith('\0') && attempt === 0) {
        // A socket file left by a process that died (only where there is no abstract namespace).
        fs.rmSync(address, { force: true });
        continue;
      }
      throw new StartupError(`the embedded database in ${dir} is in use by ${pid === null ? 'another process' : `process ${pid}`}; stop it first (or use DATABASE_URL for a shared server)`);
    }
  }
  server.unref();
  fs.rmSync(path.join(dir, LEGACY_PID_FILE), { force: true });
  return {
    release: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
