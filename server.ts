import { loadConfig } from './engine/config';
import { createApp } from './engine/app';
import { loadRegistry, openMigrated, packageVersion } from './engine/boot';
import { systemClock } from './engine/auth/clock';

/** Builds the app from the registry and listens. */
export async function serve(): Promise<void> {
  const config = loadConfig();
  const registry = loadRegistry(config.schemaDir);
  const { db, applied } = await openMigrated(config);
  if (applied.length) console.log(`applied migrations: ${applied.join(', ')}`);
  const app = createApp({ registry, knex: db.knex, config, version: packageVersion(), embedded: db.embedded, clock: systemClock });
  const server = app.listen(config.port, config.host, () => {
    const where = db.embedded ? `embedded PostgreSQL in ${config.dataDir}` : 'PostgreSQL';
    console.log(`Patchbay ${packageVersion()} serving http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${config.port}/api/ on ${where}`);
  });
  const stop = () => {
    server.close();
    db.close().finally(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
