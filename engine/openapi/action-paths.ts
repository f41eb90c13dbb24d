import type { Registry } from '../definitions/registry-types';
import type { JsonSchema } from '../validation/request-schema';
import { detailAction } from '../http/detail-actions';
import { appView } from '../http/app-views';
import { modelPaths, operationPrefix } from './component-names';

type Paths = Record<string, Record<string, unknown>>;

/** The endpoints under detail paths that definitions declare ("detail_actions"), as each action documents itself. */
export function detailActionPaths(registry: Registry): { paths: Paths; schemas: Record<string, JsonSchema> } {
  const paths: Paths = {};
  const schemas: Record<string, JsonSchema> = {};
  for (const model of registry.byPath.values()) {
    for (const [segment, use] of model.detailActions) {
      const action = detailAction(use.action);
      if (!action) continue;
      const operationId = `${operationPrefix(model)}_${segment.replace(/[^A-Za-z0-9_]/g, '_')}`;
      const doc = action.doc(model, { ...use, segment, operationId });
      Object.assign(schemas, doc.schemas);
      paths[`${modelPaths(model).detail}${segment}/`] = doc.pathItem;
    }
  }
  return { paths, schemas };
}

/** The applications' views (schema/applications.json), as each view documents itself. */
export function appViewPaths(registry: Registry): { paths: Paths; schemas: Record<string, JsonSchema> } {
  const paths: Paths = {};
  const schemas: Record<string, JsonSchema> = {};
  for (const app of registry.applications) {
    for (const [segment, v] of app.views) {
      const view = appView(v.view);
      if (!view) continue;
      const doc = view.doc(app, segment, v.options);
      Object.assign(paths, doc.paths);
      Object.assign(schemas, doc.schemas);
    }
  }
  return { paths, schemas };
}
