import type { AppView } from '../../http/app-views';
import type { Registry, ResolvedModel } from '../../definitions/registry-types';
import type { CallContext } from '../../http/api-context';
import { actionScope, objectJson } from '../../http/actions/action-support';
import { HttpError, methodNotAllowed, notFound } from '../../http/http-error';
import { and, column, ident, sql, type Sql } from '../../sql/fragment';
import { runRows } from '../../database/run';
import { sendJson } from '../../http/respond';

/**
 * NetBox's /api/dcim/connected-device/?peer_device=<name>&peer_interface=<name> (ConnectedDeviceViewSet,
 * used by LLDP tooling): the device at the far end of the named interface's cable path, in full, when that
 * end is an interface; else 404. Reads the interface's stored connected endpoints, never cables.
 * Options: `interface` (the model), `parent` (its foreign key to the device model), `name` (the name
 * field of both), `endpoints` (the interface's connected_endpoints field).
 */
interface Options {
  interface: string;
  parent: string;
  name: string;
  endpoints: string;
}

function resolve(registry: Registry, options: Record<string, unknown>): { iface: ResolvedModel; device: ResolvedModel; o: Options } | string {
  const o = options as Partial<Options>;
  const iface = registry.models.get(String(o.interface ?? ''));
  if (!iface) return `options.interface: "${String(o.interface ?? '')}" is not a model`;
  const parent = iface.fields.get(String(o.parent ?? ''));
  if (parent?.kind !== 'fk') return `options.parent: "${String(o.parent ?? '')}" is not a foreign key of ${iface.label}`;
  const device = parent.target;
  for (const m of [iface, device]) if (!m.fields.get(String(o.name ?? ''))?.column) return `options.name: "${String(o.name ?? '')}" is not a stored field of ${m.label}`;
  if (iface.fields.get(String(o.endpoints ?? ''))?.kind !== 'link_peers') return `options.endpoints: "${String(o.endpoints ?? '')}" is not a link_peers field of ${iface.label}`;
  return { iface, device, o: o as Options };
}

async function firstId(ctx: CallContext, model: ResolvedModel, where: Sql[]): Promise<number> {
  const [row] = await runRows<{ id: number | string }>(ctx.knex, sql`SELECT "t"."id" FROM ${ident(model.table)} AS "t" WHERE ${and(where)} ORDER BY "t"."id" LIMIT 1`);
  if (!row) throw notFound();
  return Number(row.id);
}

export const connectedDevice: AppView = {
  check(registry, options) {
    const r = resolve(registry, options);
    return typeof r === 'string' ? r : null;
  },
  async handle(ctx, req, res, { rest, options }) {
    if (rest.length) throw notFound();
    if (req.method !== 'GET' && req.method !== 'HEAD') throw methodNotAllowed(req.method, ['GET', 'HEAD', 'OPTIONS']);
    const r = resolve(ctx.registry, options);
    if (typeof r === 'string') throw new Error(r);
    const { iface, device, o } = r;
    const peerDevice = ctx.query.get('peer_device');
    const peerInterface = ctx.query.get('peer_interface');
    if (!peerDevice || !peerInterface) throw new HttpError(400, { detail: 'Request must include "peer_device" and "peer_interface" filters.' });
    const deviceScope = await actionScope(ctx, device, 'view');
    const ifaceScope = await actionScope(ctx, iface, 'view');
    const nameCol = (m: ResolvedModel) => column('t', m.fields.get(o.name)!.column!);
    const devId = await firstId(ctx, device, [...deviceScope, sql`${nameCol(device)} = ${peerDevice}::text`]);
    const parentCol = iface.fields.get(o.parent)!.column!;
    const ifId = await firstId(ctx, iface, [...ifaceScope, sql`${column('t', parentCol)} = ${devId}::bigint`, sql`${nameCol(iface)} = ${peerInterface}::text`]);
    const peer = await objectJson(ctx, iface, ifId, ifaceScope, 'full');
    const endpoints = peer[o.endpoints] as Array<Record<string, unknown>> | null;
    if (!endpoints?.length || peer[`${o.endpoints}_type`] !== iface.label) throw notFound();
    const far = endpoints[0]![o.parent] as { id?: number } | null;
    if (!far?.id) throw notFound();
    sendJson(req, res, 200, await objectJson(ctx, device, far.id, deviceScope, 'full'));
  },
  doc(app, segment) {
    return {
      paths: {
        [`/api/${app.name}/${segment}/`]: {
          get: {
            operationId: `${app.name}_${segment.replace(/-/g, '_')}_list`,
            tags: [app.name],
            summary: 'The device connected to an interface',
            description: 'The device at the far end of the cable path of the interface named peer_interface on the device named peer_device, when that end is an interface.',
            parameters: [
              { name: 'peer_device', in: 'query', required: true, schema: { type: 'string' }, description: 'The name of the peer device' },
              { name: 'peer_interface', in: 'query', required: true, schema: { type: 'string' }, description: 'The name of the peer interface' },
            ],
            responses: {
              200: { description: 'The connected device.', content: { 'application/json': { schema: { type: 'object', description: 'The device, in full.' } } } },
              400: { $ref: '#/components/responses/BadRequest' },
              403: { $ref: '#/components/responses/Forbidden' },
              404: { $ref: '#/components/responses/NotFound' },
            },
          },
        },
      },
      schemas: {},
    };
  },
};
