import type { Db } from './db';
import type { PoolMode } from './pool-mode';

type Log = (line: string) => void;

/**
 * In transaction mode nothing reaches the server as a start-up option, so what session mode sets per
 * connection must be the database's own setting. jit = off is the one that matters for speed: a read is one
 * statement whose correlated sub-selects make the planner's estimates large, and JIT compiling it costs
 * seconds for milliseconds of work. `migrate` sets it on the current database, when the role may (owner
 * or superuser); new server sessions take it, including the pooler's next ones.
 */
export async function keepJitOffForDatabase(db: Db, mode: PoolMode, log: Log = (l) => console.warn(l)): Promise<void> {
  if (mode !== 'transaction') return;
  try {
    // Only when this session does not have it already: ALTER DATABASE locks the database's catalogue row.
    await db.raw(`DO $$ BEGIN IF current_setting('jit') <> 'off' THEN EXECUTE format('ALTER DATABASE %I SET jit = off', current_database()); END IF; END $$`);
  } catch (e) {
    log(`warning: DATABASE_POOL_MODE=transaction and this role may not ALTER DATABASE (${(e as Error).message}); run ALTER DATABASE <name> SET jit = off as its owner`);
  }
}

/**
 * One look at start, in transaction mode, at the settings session mode would have sent at start-up: a line
 * for each that is not what the configuration asks (nothing refuses to start over it).
 */
export async function warnOfSessionDefaults(db: Db, mode: PoolMode, statementTimeoutMs: number, log: Log = (l) => console.warn(l)): Promise<void> {
  if (mode !== 'transaction') return;
  const { rows } = await db.raw<{ jit: string; timeout: string }>(`SELECT current_setting('jit') AS "jit", (EXTRACT(EPOCH FROM current_setting('statement_timeout')::interval) * 1000)::bigint::text AS "timeout"`);
  const row = rows[0];
  if (!row) return;
  if (row.jit === 'on') {
    log('warning: jit is on for this database and DATABASE_POOL_MODE=transaction cannot turn it off per connection: large reads may JIT-compile; run `patchbay migrate` as the database owner or ALTER DATABASE <name> SET jit = off');
  }
  if (statementTimeoutMs > 0 && Number(row.timeout) === 0) {
    log(`warning: PATCHBAY_DB_STATEMENT_TIMEOUT (${statementTimeoutMs / 1000} s) cannot be sent through a transaction-mode pooler and the server has none: ALTER ROLE <role> SET statement_timeout = '${statementTimeoutMs / 1000}s'; until then the client-side PATCHBAY_DB_QUERY_TIMEOUT cancels`);
  }
}
