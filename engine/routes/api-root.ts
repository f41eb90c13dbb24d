import type { Registry } from '../definitions/registry-types';

/** The applications NetBox's API root lists, whether or not they hold object types yet. */
export const APPLICATIONS = ['circuits', 'dcim', 'extras', 'ipam', 'plugins', 'tenancy', 'users', 'virtualization'] as const;

export function apiRoot(origin: string): Record<string, string> {
  return Object.fromEntries(APPLICATIONS.map((app) => [app, `${origin}/api/${app}/`]));
}

export function appRoot(registry: Registry, origin: string, app: string): Record<string, string> | null {
  const models = [...registry.models.values()].filter((m) => m.app === app && m.exposed).sort((a, b) => a.path.localeCompare(b.path));
  if (!models.length && !(APPLICATIONS as readonly string[]).includes(app)) return null;
  return Object.fromEntries(models.map((m) => [m.path, `${origin}/api/${app}/${m.path}/`]));
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
