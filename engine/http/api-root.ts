import type { Registry } from '../definitions/registry-types';

/** The API root: each application of schema/applications.json with the URL of its root. */
export function apiRoot(registry: Registry, origin: string): Record<string, string> {
  return Object.fromEntries(registry.applications.map((app) => [app.name, `${origin}/api/${app.name}/`]));
}

/** What an application's root lists: its object types and its listed views, by path. */
export function appEndpoints(registry: Registry, app: string): string[] {
  const application = registry.applications.find((a) => a.name === app);
  if (!application) return [];
  const models = [...registry.byPath.values()].filter((m) => m.app === app).map((m) => m.path);
  const views = [...application.views].filter(([, v]) => v.listed).map(([segment]) => segment);
  return [...models, ...views].sort((a, b) => a.localeCompare(b));
}

export function appRoot(registry: Registry, origin: string, app: string): Record<string, string> | null {
  if (!registry.applications.some((a) => a.name === app)) return null;
  return Object.fromEntries(appEndpoints(registry, app).map((p) => [p, `${origin}/api/${app}/${p}/`]));
}

/**
 * /api/status/ as NetBox has it, with the NetBox API version spoken (clients pick their dialect from it),
 * Patchbay's own, and whether the database answers.
 */
export function status(version: string, embedded: boolean, databaseReachable: boolean): Record<string, unknown> {
  return {
    'netbox-version': NETBOX_API_VERSION,
    'patchbay-version': version,
    'node-version': process.version,
    'database': embedded ? 'embedded PostgreSQL (PGlite)' : 'PostgreSQL',
    'database-status': databaseReachable ? 'ok' : 'unreachable',
    'installed-apps': {},
    'plugins': {},
    'rq-workers-running': 0,
  };
}

/** The NetBox release whose REST dialect Patchbay speaks. */
export const NETBOX_API_VERSION = '3.7.8';
export const API_VERSION_HEADER = '3.7';
