/**
 * NetBox 3.7.8's filters per list endpoint, as its OpenAPI document lists them
 * (/work/shared/reference/netbox-3.7-api.json, beside the repository: see its README): filter name ->
 * the lookups NetBox accepts, `exact` standing for the bare name. Read when the tests run.
 */
import fs from 'node:fs';
import path from 'node:path';

export type FilterLookups = Record<string, string[]>;

interface Reference {
  endpoints: Record<string, { filters?: FilterLookups }>;
}

const LOCATIONS = [path.resolve(__dirname, '..', '..', '..', '..', 'shared', 'reference', 'netbox-3.7-api.json'), '/work/shared/reference/netbox-3.7-api.json'];

/** `<app>/<path>` -> NetBox's filters there. */
export function netboxFilters(): Map<string, FilterLookups> {
  const file = LOCATIONS.find((f) => fs.existsSync(f));
  if (!file) throw new Error(`NetBox's reference is in none of ${LOCATIONS.join(', ')}`);
  const ref = JSON.parse(fs.readFileSync(file, 'utf8')) as Reference;
  return new Map(Object.entries(ref.endpoints).map(([endpoint, e]) => [endpoint, e.filters ?? {}]));
}
