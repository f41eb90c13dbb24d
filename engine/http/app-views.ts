import type { Request, Response } from 'express';
import type { Application, Registry } from '../definitions/registry-types';
import type { AppViewName } from '../definitions/named-functions';
import type { JsonSchema } from '../validation/request-schema';
import type { CallContext } from './api-context';
import { methodNotAllowed, notAuthenticated, notFound, permissionDenied } from './http-error';
import { sendJson } from './respond';
import { ownPreferences, ownRecord } from './own-records';
import type { FaultCollector } from '../definitions/fault-collector';
import { connectedDevice } from '../domain/cables/connected-device';

/**
 * An endpoint of an application that is not an object type (/api/<app>/<segment>/...), named in
 * schema/applications.json: NetBox's installed-plugins, connected-device, content-types, users/config...
 * `rest` holds the path segments after the view's own (a content type's id).
 */
export interface AppView {
  /** What is wrong with the options applications.json gives it (a model they name is missing...), or null. */
  check?(registry: Registry, options: Record<string, unknown>): string | null;
  handle(ctx: CallContext, req: Request, res: Response, where: { app: Application; segment: string; rest: string[]; options: Record<string, unknown> }): Promise<void>;
  /** Its OpenAPI path items, by path, and the component schemas they refer to. */
  doc(app: Application, segment: string, options: Record<string, unknown>): { paths: Record<string, Record<string, unknown>>; schemas: Record<string, JsonSchema> };
}

/**
 * NetBox's plugin list, for administrators. Patchbay has no plugins (its extensions are schema files),
 * so the list is empty; clients that enumerate plugins (pynetbox's `nb.plugins.installed_plugins()`) get
 * the answer they expect.
 */
const installedPlugins: AppView = {
  async handle(ctx, req, res, { rest }) {
    if (rest.length) throw notFound();
    if (req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'OPTIONS') throw methodNotAllowed(req.method, ['GET', 'HEAD', 'OPTIONS']);
    if (!ctx.principal) throw notAuthenticated();
    // NetBox asks for an administrator (IsAdminUser); Patchbay's administrators are its superusers.
    if (!ctx.principal.isSuperuser) throw permissionDenied();
    sendJson(req, res, 200, []);
  },
  doc(app, segment) {
    return {
      paths: {
        [`/api/${app.name}/${segment}/`]: {
          get: {
            operationId: `${app.name}_${segment.replace(/-/g, '_')}_list`,
            tags: [app.name],
            summary: 'Installed plugins',
            description: 'The plugins installed, for superusers. Patchbay has no plugins (object types are added as schema files): always an empty list.',
            responses: {
              200: { description: 'The installed plugins (none).', content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/InstalledPlugin' } } } } },
              403: { $ref: '#/components/responses/Forbidden' },
            },
          },
        },
      },
      schemas: {
        InstalledPlugin: {
          type: 'object',
          properties: {
            name: { type: 'string' },
            package: { type: 'string' },
            author: { type: 'string' },
            author_email: { type: 'string' },
            description: { type: 'string' },
            version: { type: 'string' },
          },
        },
      },
    };
  },
};

const VIEWS: Record<AppViewName, AppView> = { installed_plugins: installedPlugins, own_record: ownRecord, own_preferences: ownPreferences, connected_device: connectedDevice };

export function appView(name: string): AppView | undefined {
  return Object.hasOwn(VIEWS, name) ? VIEWS[name as AppViewName] : undefined;
}

/** Every view applications.json names accepts its options; else startup stops at the view. */
export function checkAppViews(registry: Registry, file: string, faults: FaultCollector): void {
  for (const app of registry.applications) {
    for (const [segment, use] of app.views) {
      const at = `/applications/${app.name}/views/${segment}`;
      const problem = faults.attempt(file, at, () => appView(use.view)?.check?.(registry, use.options));
      if (problem) faults.add(file, `${at}/options`, problem);
    }
  }
}
