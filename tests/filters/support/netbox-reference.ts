/**
 * NetBox 3.7.8's filters per list endpoint, as its OpenAPI document lists them
 * (tests/reference/netbox-3.7-api.json: see its README): filter name ->
 * the lookups NetBox accepts, `exact` standing for the bare name. Read when the tests run.
 */
import { readNetboxReference } from '../../reference/netbox-reference-file';

export type FilterLookups = Record<string, string[]>;

interface Reference {
  endpoints: Record<string, { filters?: FilterLookups }>;
}

/** `<app>/<path>` -> NetBox's filters there. */
export function netboxFilters(): Map<string, FilterLookups> {
  const ref = readNetboxReference<Reference>();
  return new Map(Object.entries(ref.endpoints).map(([endpoint, e]) => [endpoint, e.filters ?? {}]));
}
