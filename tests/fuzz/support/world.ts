import type { Registry, ResolvedField, ResolvedModel } from '../../../engine/definitions/registry-types';
import { filterTable } from '../../../engine/filters/filter-table';
import { genericKeys, listUrl } from '../../support/valid-objects';
import type { Fixtures } from './fixtures';
import type { Vocabulary } from './hostile-values';

/**
 * Everything a case is drawn from, derived from the registry: the endpoints (every served type's list,
 * detail and list actions), each type's fields with their kinds, its filters with their lookups; and
 * the fixtures made for the run.
 */

export interface FilterSurface {
  name: string;
  /** Parameter names: `name` for exact, `name__<lookup>` for the others. */
  params: string[];
  kind: string;
  choices: string[];
}

export interface Endpoint {
  model: ResolvedModel;
  list: string;
  /** Fields a body may carry (the writable ones, write aliases included by name). */
  writable: ResolvedField[];
  /** Every field (read-only ones too: writing them must be refused or ignored, never a 500). */
  fields: ResolvedField[];
  filters: FilterSurface[];
  /** list_actions: extra path segments under the list. */
  actions: string[];
  /** detail_actions: extra path segments under each object (available-ips, trace...). */
  detailActions: string[];
  /** Names a body may use for the type's generic relations (type and id keys). */
  genericPairs: Array<{ field: ResolvedField; typeKey: string; idKey: string }>;
  writeAliases: string[];
}

export interface World {
  registry: Registry;
  endpoints: Endpoint[];
  fixtures: Fixtures;
  vocab: Vocabulary;
  /** Applications (first path segment under /api/) the registry serves. */
  apps: string[];
  /** The applications' views (schema/applications.json), as paths: /api/<app>/<segment>/. */
  views: string[];
}

function filterSurfaces(model: ResolvedModel): FilterSurface[] {
  return [...filterTable(model).values()].map((def) => ({
    name: def.name,
    params: def.lookups.map((l) => (l === 'exact' ? def.name : `${def.name}__${l}`)),
    kind: def.kind,
    choices: def.field?.choices?.entries.map((e) => String(e.value)) ?? [],
  }));
}

export function buildWorld(registry: Registry, fixtures: Fixtures): World {
  const served = [...registry.models.values()].filter((m) => m.exposed !== false);
  const endpoints = served.map((model): Endpoint => ({
    model,
    list: listUrl(model),
    writable: model.fieldList.filter((f) => !f.readOnly),
    fields: model.fieldList,
    filters: filterSurfaces(model),
    actions: Object.keys(model.def.list_actions ?? {}),
    detailActions: [...model.detailActions.keys()],
    genericPairs: model.fieldList.filter((f) => f.kind === 'generic_fk').map((field) => ({ field, ...genericKeys(field) })),
    writeAliases: [...model.writeAliases.keys()],
  }));
  const vocab: Vocabulary = {
    idsOf: (label) => fixtures.objects.get(label) ?? [],
    typeLabels: [...registry.models.keys()].sort(),
    customFields: fixtures.customFields,
  };
  const apps = registry.applications.map((a) => a.name);
  const views = registry.applications.flatMap((a) => [...a.views.keys()].map((segment) => `/api/${a.name}/${segment}/`));
  return { registry, endpoints, fixtures, vocab, apps, views };
}
