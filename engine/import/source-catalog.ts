import type { Registry, ResolvedModel } from '../definitions/registry-types';
import type { SourceApi } from './source-api';

/**
 * What the source serves, from its API root down: each application's endpoints. An endpoint Patchbay has
 * a type for is read; one it has none for (a plugin's, or a NetBox type Patchbay does not carry) is
 * counted and listed in the report, never dropped silently. Endpoints that are not object lists
 * (NetBox's scripts, reports, config, connected-device...) answer no count and are passed over.
 */

export interface Unsupported {
  endpoint: string;
  objects: number;
  reason: string;
}

export interface Catalog {
  served: Set<ResolvedModel>;
  unsupported: Unsupported[];
}

function asLinks(body: unknown): Record<string, string> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return {};
  return Object.fromEntries(Object.entries(body as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

export async function sourceCatalog(api: SourceApi, registry: Registry): Promise<Catalog> {
  const root = asLinks(await api.getJson('/api/'));
  if (!Object.keys(root).length) throw new Error(`${api.origin}/api/ lists no applications: is it a NetBox?`);
  const served = new Set<ResolvedModel>();
  const unsupported: Unsupported[] = [];
  const byPath = new Map([...registry.models.values()].map((m) => [`${m.app}/${m.path}`, m]));
  await Promise.all(
    Object.keys(root).map(async (app) => {
      const endpoints = asLinks(await api.getJson(`/api/${app}/`).catch(() => null));
      await Promise.all(
        Object.keys(endpoints).map(async (path) => {
          const model = byPath.get(`${app}/${path}`);
          if (model?.exposed) {
            served.add(model);
            return;
          }
          const probe = (await api.getJson(`/api/${app}/${path}/?limit=1`).catch(() => null)) as { count?: unknown } | null;
          const count = typeof probe?.count === 'number' ? probe.count : null;
          if (count) unsupported.push({ endpoint: `/api/${app}/${path}/`, objects: count, reason: `Patchbay has no type served at ${app}/${path}` });
        }),
      );
    }),
  );
  unsupported.sort((a, b) => a.endpoint.localeCompare(b.endpoint));
  return { served, unsupported };
}
