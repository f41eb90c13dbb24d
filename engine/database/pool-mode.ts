/**
 * How connections reach PostgreSQL (DATABASE_POOL_MODE):
 * - `session`: a direct connection or a session-mode pooler. One server session per pooled connection for
 *   its whole life, so start-up options (jit, search_path, statement_timeout) and named statements hold;
 * - `transaction`: a transaction-mode pooler (PgBouncer pool_mode = transaction). Consecutive transactions
 *   of one client connection may run on different server sessions, so nothing may outlive a transaction:
 *   statements are unnamed and nothing is sent as a start-up parameter.
 */
export type PoolMode = 'session' | 'transaction';

export const POOL_MODES: readonly PoolMode[] = ['session', 'transaction'];

export function parsePoolMode(raw: string | undefined): PoolMode {
  if (raw === undefined || raw === '') return 'session';
  const mode = raw.toLowerCase();
  if (mode === 'session' || mode === 'transaction') return mode;
  throw new Error(`DATABASE_POOL_MODE must be session or transaction, got "${raw}"`);
}
