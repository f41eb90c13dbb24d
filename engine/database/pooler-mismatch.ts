import { markUnavailable } from './db-unavailable';

/**
 * The one line an operator needs when session-mode settings meet a transaction-mode pooler: PgBouncer
 * refuses the start-up parameters (jit, search_path, statement_timeout), or, where it was told to ignore
 * them, a named statement prepared on one server connection is missing on the next.
 */
export const POOLER_MISMATCH = 'the database is reached through a transaction-mode pooler (PgBouncer): set DATABASE_POOL_MODE=transaction';

/** SQLSTATEs of a named statement that is not on the server connection it was expected on, or is there twice. */
const PREPARED_CODES = new Set(['26000', '42P05']);

/** Whether a driver error is a session-mode client talking to a transaction-mode pooler. */
export function isPoolerMismatch(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { code?: unknown; message?: unknown };
  const message = typeof e.message === 'string' ? e.message : '';
  if (/unsupported startup parameter/i.test(message)) return true;
  return typeof e.code === 'string' && PREPARED_CODES.has(e.code) && /prepared statement "pb_/.test(message);
}

/**
 * The error told instead: a StartupError-like line at start (waitForDatabase reports it at once), and a
 * 503 per request rather than a 500 loop, its log line naming the setting.
 */
export function poolerMismatchError(cause: unknown): Error {
  const err = Object.assign(new Error(`${POOLER_MISMATCH} (${(cause as Error).message})`), { name: 'PoolerMismatchError', cause });
  return markUnavailable(err, POOLER_MISMATCH);
}
