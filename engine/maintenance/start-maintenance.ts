import type { Config } from '../config';
import type { Db } from '../database/db';
import { readAutovacuumRule } from './autovacuum-rule';
import { autovacuumOffWarning, autovacuumRuns } from './autovacuum-setting';
import { Maintainer } from './maintainer';

export interface MaintenanceStart {
  /** The primary's handle, never a routed one. */
  db: Db;
  embedded: boolean;
  config: Config;
  log: (line: string) => void;
}

/**
 * Table maintenance for a serving process (docs/maintenance.md): on the embedded database and on a server
 * with autovacuum off, Patchbay stands in for autovacuum; with autovacuum on, it only analyzes after large
 * writes. Null with PATCHBAY_MAINTENANCE=off.
 */
export async function startMaintenance(s: MaintenanceStart): Promise<Maintainer | null> {
  if (!s.config.maintenance) return null;
  const autovacuum = s.embedded ? false : await autovacuumRuns(s.db);
  const maintainer = new Maintainer({ db: s.db, rule: await readAutovacuumRule(s.db), vacuums: !autovacuum, embedded: s.embedded, intervalMs: s.config.maintenanceIntervalMs, log: s.log });
  maintainer.start();
  return maintainer;
}

/** The start-up warning when the server runs no autovacuum, else null: `serve` prints it once it listens. */
export async function autovacuumOffWarningFor(db: Db, config: Config): Promise<string | null> {
  return (await autovacuumRuns(db)) ? null : autovacuumOffWarning(config.maintenance, config.maintenanceIntervalMs);
}
