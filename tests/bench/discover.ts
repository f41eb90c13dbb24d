import { ApiClient, isObject } from './http-client';

/**
 * Which endpoints the server has, as `<app>/<path>` keys ("ipam/ip-addresses"), read from GET /api/ and each
 * application root: scenarios and seed steps whose types are missing are skipped, and light up as types land.
 */
export async function discoverEndpoints(api: ApiClient): Promise<Set<string>> {
  const root = await api.get('/api/');
  if (root.status !== 200 || !isObject(root.json)) throw new Error(`GET /api/ answered ${root.status}`);
  const found = new Set<string>();
  for (const [app, url] of Object.entries(root.json)) {
    if (typeof url !== 'string') continue;
    const res = await api.get(`/api/${app}/`);
    if (res.status !== 200 || !isObject(res.json)) continue;
    for (const path of Object.keys(res.json)) found.add(`${app}/${path}`);
  }
  return found;
}
