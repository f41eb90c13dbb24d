import type { Config } from '../config';
import { loadRegistry } from '../boot';
import { snapshotFromRegistry } from '../migrations/snapshot-from-registry';
import { diffSnapshots } from '../migrations/diff-snapshots';
import { describeChange } from '../migrations/render-sql';
import { makeMigrationName, migrationFileText, readStoredSnapshot, writeMigration } from '../migrations/migration-files';

/** Compares schema/ with the snapshot of the last migration; writes the next migration, or with --check names what is missing. */
export function makeMigrations(config: Config, check: boolean): number {
  const registry = loadRegistry(config.schemaDir);
  const next = snapshotFromRegistry(registry);
  const prev = readStoredSnapshot(config.migrationsDir);
  const changes = diffSnapshots(prev, next);
  if (!changes.length) {
    console.log('No changes detected');
    return 0;
  }
  if (check) {
    console.error(`schema/ and migrations/ disagree: a migration is missing for ${changes.length} change(s):`);
    for (const c of changes) console.error(`  - ${describeChange(c)}`);
    console.error('run: npm run makemigrations');
    return 1;
  }
  const file = writeMigration(config.migrationsDir, makeMigrationName(changes, Object.keys(prev.tables).length === 0), migrationFileText(changes), next);
  console.log(`wrote ${file}`);
  for (const c of changes) console.log(`  - ${describeChange(c)}`);
  return 0;
}
