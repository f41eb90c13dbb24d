import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config';
import { packageRoot } from './package-root';
import type { Registry } from './definitions/registry-types';
import { loadDefinitions } from './definitions/load-definitions';
import { resolveRegistry } from './definitions/resolve-registry';
import { connectDatabase, type Database } from './storage/connect';
import { migrate } from './storage/migrator';
import { filterTable } from './filters/filter-table';
import { compileChecks } from './validation/definition-checks';

/** The definitions, resolved; every declared filter and check is compiled here so a bad path stops startup. */
export function loadRegistry(schemaDir: string): Registry {
  const registry = resolveRegistry(loadDefinitions(schemaDir));
  for (const model of registry.models.values()) {
    filterTable(model);
    compileChecks(model);
  }
  return registry;
}

export function packageVersion(): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

/** The database the configuration names: a PostgreSQL server, or the embedded one in the data folder. */
export function openDatabase(config: Config): Promise<Database> {
  return connectDatabase(config.databaseUrl ? { url: config.databaseUrl } : { dataDir: config.dataDir });
}

/** Opens the database and brings it up to date with the committed migrations. */
export async function openMigrated(config: Config): Promise<{ db: Database; applied: string[] }> {
  const db = await openDatabase(config);
  const applied = await migrate(db.knex, config.migrationsDir);
  return { db, applied };
}
