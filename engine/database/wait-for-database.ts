import type { Db } from './db';
import { unavailableReason } from './db-unavailable';
import { StartupError } from './startup-error';

/** host:port/database of a postgres:// URL, without the credentials, for messages. */
export function describeDatabaseUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname || 'localhost'}:${u.port || '5432'}${u.pathname}`;
  } catch {
    return 'the PostgreSQL server';
  }
}

export interface WaitOptions {
  /** Give up after this many milliseconds. */
  timeoutMs: number;
  /** For messages: which database. */
  where: string;
  log?: (line: string) => void;
}

/**
 * Waits until the database answers: at start the server may come up before PostgreSQL (or while it
 * restarts). One line per failed attempt, backing off from 0.5 s to 5 s; after timeoutMs, a StartupError.
 * An error that waiting cannot cure (a wrong password, a missing database) is a StartupError at once.
 */
export async function waitForDatabase(db: Db, opts: WaitOptions): Promise<void> {
  const log = opts.log ?? ((line: string) => console.error(line));
  const started = Date.now();
  let delay = 500;
  for (let attempt = 1; ; attempt++) {
    try {
      await db.raw('select 1');
      if (attempt > 1) log(`database ${opts.where} is answering`);
      return;
    } catch (e) {
      const reason = unavailableReason(e);
      // Waiting cannot cure a setting that does not fit the pooler.
      if (reason === null || (e as Error).name === 'PoolerMismatchError') throw new StartupError(`cannot use the database ${opts.where}: ${(e as Error).message}`);
      const waited = Date.now() - started;
      if (waited + delay > opts.timeoutMs) {
        throw new StartupError(`database ${opts.where} unreachable (${reason}); gave up after ${Math.round(waited / 100) / 10} s (PATCHBAY_DB_STARTUP_TIMEOUT)`);
      }
      log(`database ${opts.where} unreachable (${reason}); attempt ${attempt}, retrying in ${delay / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 5000);
    }
  }
}
