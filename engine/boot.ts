import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config';
import { packageRoot } from './package-root';
import type { Registry } from './definitions/registry-types';
import { loadDefinitions } from './definitions/load-definitions';
import { loadApplications } from './definitions/load-applications';
import { checkDetailActions } from './http/detail-actions';
import { checkPathNodes } from './definitions/path-nodes';
import { checkAppViews } from './http/app-views';
import { APPLICATIONS_FILE } from './definitions/load-applications';
import { resolveRegistry } from './definitions/resolve-registry';
import { connectDatabase, type Database, type DatabaseLimits } from './database/connect';
import { describeDatabaseUrl, waitForDatabase } from './database/wait-for-database';
import { migrate } from './migrations/migrator';
import { keepJitOffForDatabase, warnOfSessionDefaults } from './database/transaction-mode-settings';
import { filterTable } from './filters/filter-table';
import { checkDefinitionChecks, compileChecks } from './validation/definition-checks';
import { clearedWithout, fillRoute } from './writes/filled-from';
import { choicePartRoute } from './writes/filled-from-choice';
import { sumRoute } from './writes/summed-children';
import { checkDeclaredFilter } from './filters/domain-filters';
import { checkTargetFilters } from './filters/check-target-filters';
import { FaultCollector } from './definitions/fault-collector';

/**
 * The definitions, resolved; every declared filter, check and detail action is compiled or checked here.
 * Every fault of every file is found before anything is thrown: a DefinitionErrors naming them all
 * (file:pointer: reason, one a line) stops startup, makemigrations, generate and check.
 */
export function loadRegistry(schemaDir: string): Registry {
  const faults = new FaultCollector();
  const applications = faults.attempt(path.join(schemaDir, APPLICATIONS_FILE), '', () => loadApplications(schemaDir)) ?? null;
  const registry = resolveRegistry(loadDefinitions(schemaDir, faults), applications, faults);
  for (const model of registry.models.values()) {
    for (const [name, spec] of Object.entries(model.def.filters ?? {})) {
      if (!faults.has(model.file, `/filters/${name}`)) faults.attempt(model.file, `/filters/${name}`, () => checkDeclaredFilter(model, name, spec));
    }
    checkDefinitionChecks(model, faults);
    for (const field of model.fieldList) {
      if ((field.def.type === 'fk' || field.def.type === 'choice') && field.def.filled_from) faults.attempt(model.file, `/fields/${field.name}/filled_from`, () => fillRoute(model, field));
      if ((field.def.type === 'fk' || field.def.type === 'choice') && field.def.cleared_without) faults.attempt(model.file, `/fields/${field.name}/cleared_without`, () => clearedWithout(model, field));
      if (field.def.filled_from_choice) faults.attempt(model.file, `/fields/${field.name}/filled_from_choice`, () => choicePartRoute(model, field));
      if (field.def.sum_of) faults.attempt(model.file, `/fields/${field.name}/sum_of`, () => sumRoute(registry, model, field));
    }
  }
  checkTargetFilters(registry, faults);
  checkDetailActions(registry, faults);
  // The path_node words resolve (fields they name exist with the right kinds).
  checkPathNodes(registry, faults);
  checkAppViews(registry, applications?.file ?? APPLICATIONS_FILE, faults);
  faults.throwIfAny();
  // Built once every part is known to build: the filter tables and check statements requests use.
  for (const model of registry.models.values()) {
    faults.attempt(model.file, '/filters', () => filterTable(model));
    faults.attempt(model.file, '/checks', () => compileChecks(model));
  }
  faults.throwIfAny();
  return registry;
}

export function packageVersion(): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

/**
 * What the database is opened for: serving requests, under every limit of the configuration, or a
 * command (migrate, createsuperuser...), under the connection limits only, since a migration may run long.
 */
export type DatabaseUse = 'serve' | 'command';

function limitsFor(config: Config, use: DatabaseUse): DatabaseLimits {
  return {
    statementTimeoutMs: use === 'serve' ? config.dbStatementTimeoutMs : 0,
    queryTimeoutMs: use === 'serve' ? config.dbQueryTimeoutMs : 0,
    connectTimeoutMs: config.dbConnectTimeoutMs,
    acquireTimeoutMs: config.dbAcquireTimeoutMs,
  };
}

/**
 * The database the configuration names: the embedded one in the data folder, or a PostgreSQL server,
 * waited for (PATCHBAY_DB_STARTUP_TIMEOUT) when it does not answer yet.
 */
export async function openDatabase(config: Config, use: DatabaseUse = 'command'): Promise<Database> {
  if (!config.databaseUrl) return connectDatabase({ dataDir: config.dataDir });
  const db = await connectDatabase({ url: config.databaseUrl, poolMax: config.dbPoolSize, poolMode: config.dbPoolMode, limits: limitsFor(config, use) });
  try {
    await waitForDatabase(db.knex, { timeoutMs: config.dbStartupTimeoutMs, where: describeDatabaseUrl(config.databaseUrl) });
    if (use === 'serve') await warnOfSessionDefaults(db.knex, config.dbPoolMode, config.dbStatementTimeoutMs);
  } catch (e) {
    await db.close();
    throw e;
  }
  return db;
}

/** Opens the database and brings it up to date with the committed migrations (always without query limits). */
export async function openMigrated(config: Config, use: DatabaseUse = 'command'): Promise<{ db: Database; applied: string[] }> {
  if (use === 'serve' && config.databaseUrl) {
    const forMigrations = await openDatabase(config, 'command');
    let applied: string[];
    try {
      applied = await migrate(forMigrations.knex, config.migrationsDir);
      await keepJitOffForDatabase(forMigrations.knex, config.dbPoolMode);
    } finally {
      await forMigrations.close();
    }
    return { db: await openDatabase(config, 'serve'), applied };
  }
  const db = await openDatabase(config, use);
  const applied = await migrate(db.knex, config.migrationsDir);
  if (config.databaseUrl) await keepJitOffForDatabase(db.knex, config.dbPoolMode);
  return { db, applied };
}
