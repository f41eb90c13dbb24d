import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import supertest from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { createApp } from '../../engine/app';
import { loadConfig, type Config } from '../../engine/config';
import type { TestApp } from './test-app';

/**
 * The same database, registry and clock as a test app, under other settings (TRUSTED_PROXIES,
 * MAINTENANCE_MODE, EXEMPT_VIEW_PERMISSIONS...): a second app costs no new database.
 */
export function configWith(t: TestApp, env: Record<string, string>): Config {
  return loadConfig({ ...process.env, PATCHBAY_SCHEMA_DIR: t.config.schemaDir, PATCHBAY_MIGRATIONS_DIR: t.config.migrationsDir, PATCHBAY_MEDIA_ROOT: t.config.mediaRoot, ...env });
}

/** A supertest agent for the test app's database under other settings. */
export function apiWith(t: TestApp, env: Record<string, string>): TestAgent {
  const config = configWith(t, env);
  return supertest(t.serve(createApp({ registry: t.registry, knex: t.knex, config, version: 'test', embedded: t.db.embedded, clock: t.clock })));
}

/** A supertest agent that keeps cookies between requests, like a browser (optionally under other settings). */
export function agentWith(t: TestApp, env: Record<string, string> = {}): TestAgent {
  const config = Object.keys(env).length ? configWith(t, env) : t.config;
  return supertest.agent(t.serve(createApp({ registry: t.registry, knex: t.knex, config, version: 'test', embedded: t.db.embedded, clock: t.clock })));
}

/** The test app on a real port (for a browser): its base URL and a way to stop it. */
export async function listen(t: TestApp, env: Record<string, string> = {}): Promise<{ base: string; server: Server; close(): Promise<void> }> {
  const config = Object.keys(env).length ? configWith(t, env) : t.config;
  const app = createApp({ registry: t.registry, knex: t.knex, config, version: 'test', embedded: t.db.embedded, clock: t.clock });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}
