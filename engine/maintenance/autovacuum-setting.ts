import type { Db } from '../database/db';

/** Whether the server's autovacuum launcher runs (SHOW autovacuum). The embedded database never runs one, whatever it says. */
export async function autovacuumRuns(db: Db): Promise<boolean> {
  const rows = (await db.raw<{ setting: string }>(`SELECT "setting" FROM pg_settings WHERE "name" = 'autovacuum'`)).rows;
  return rows[0]?.setting === 'on';
}

/** The one line `serve` logs at start on a server with autovacuum off: the setting, and what Patchbay does instead. */
export function autovacuumOffWarning(maintenance: boolean, intervalMs: number): string {
  const instead = maintenance
    ? `Patchbay analyzes its tables after large writes and vacuums / analyzes those past autovacuum's thresholds every ${intervalMs / 1000} s instead (PATCHBAY_MAINTENANCE=off leaves it to you)`
    : 'and PATCHBAY_MAINTENANCE=off: nothing keeps table statistics current or reclaims dead rows; run VACUUM ANALYZE regularly';
  return `warning: autovacuum is off on this PostgreSQL server (SHOW autovacuum): ${instead}`;
}
