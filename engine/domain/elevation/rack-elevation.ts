import { paginatedOf } from '../../openapi/paginated-schema';
import type { DetailAction } from '../../http/detail-actions';
import type { Registry, ResolvedField, ResolvedModel } from '../../definitions/registry-types';
import { actionScope, requireWithin } from '../../http/actions/action-support';
import { parseElevationParams } from './elevation-params';
import { methodNotAllowed, notFound } from '../../http/http-error';
import { and, column, ident, join, sql, type Sql } from '../../sql/fragment';
import { JsonCompiler } from '../../reads/object-json';
import { runRows } from '../../database/run';
import { pageLinks, pageOf } from '../../http/pagination';
import { sendJsonText } from '../../http/respond';

/**
 * NetBox's GET /api/dcim/racks/{id}/elevation/ (RackViewSet.elevation with Rack.get_rack_units), as JSON:
 * the rack's units from the top (its half units too: 42.5, 42, 41.5 ... 1 on a 42U rack; from the
 * starting unit upwards when units are numbered descending), each {id, name, face, device, occupied,
 * display}, paginated as lists are. A device fills the units from its position up through its height
 * when it faces the asked face or is full depth; one without a position or height shows nowhere. The
 * device is shown only to a caller who may view it; its units are occupied either way.
 *
 * What the rack and its occupants are is the definition's to say (options), never the model's name.
 */
interface Occupants {
  of: string;
  via: string;
  position: string;
  face: string;
  height: string;
  full_depth: string;
}
interface Options {
  units: string;
  start: string;
  descending: string;
  occupants: Occupants;
}

const STRING = { type: 'string' } as const;
const OPTIONS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['units', 'start', 'descending', 'occupants'],
  properties: {
    units: STRING,
    start: STRING,
    descending: STRING,
    occupants: {
      type: 'object',
      additionalProperties: false,
      required: ['of', 'via', 'position', 'face', 'height', 'full_depth'],
      properties: { of: STRING, via: STRING, position: STRING, face: STRING, height: STRING, full_depth: STRING },
    },
  },
};

/** A field reached from a model through foreign keys ("device_type.u_height"), and the joins that reach it. */
interface Reached {
  field: ResolvedField;
  alias: string;
  joins: Sql[];
}

function reach(model: ResolvedModel, path: string, from: string): Reached | null {
  let current = model;
  let alias = from;
  const joins: Sql[] = [];
  const parts = path.split('.');
  for (const [i, part] of parts.entries()) {
    const f = current.fields.get(part);
    if (!f) return null;
    if (i === parts.length - 1) return { field: f, alias, joins };
    if (f.kind !== 'fk') return null;
    // Named after the path, so two options through the same foreign key share one join.
    const next = `${alias}_${part}`;
    joins.push(sql`LEFT JOIN ${ident(f.target.table)} AS ${ident(next)} ON ${column(next, 'id')} = ${column(alias, f.column)}`);
    current = f.target;
    alias = next;
  }
  return null;
}

/** The joins of several reached fields, each once (fields through the same foreign key share it). */
function joinsOf(reached: Reached[]): Sql {
  const seen = new Set<string>();
  const out: Sql[] = [];
  for (const j of reached.flatMap((r) => r.joins)) {
    const key = j.texts.join('?');
    if (!seen.has(key)) out.push(j), seen.add(key);
  }
  return join(out, ' ');
}

function valueOf(r: Reached): Sql {
  return column(r.alias, r.field.column!);
}

const NUMBER_KINDS = ['integer', 'positive_integer', 'decimal'];

/** Every field the options name exists with a kind the elevation can use; else where and why not. */
function checkOptions(registry: Registry, model: ResolvedModel, o: Options): { pointer: string; message: string } | null {
  const want = (m: ResolvedModel, path: string, kinds: string[], pointer: string) => {
    const r = reach(m, path, 'x');
    return r?.field.column && kinds.includes(r.field.kind) ? null : { pointer, message: `"${path}" is not a ${kinds.join(' or ')} field of ${m.label}` };
  };
  const of = registry.models.get(o.occupants.of);
  if (!of) return { pointer: '/occupants/of', message: `unknown model "${o.occupants.of}"` };
  const via = of.fields.get(o.occupants.via);
  if (via?.kind !== 'fk' || via.target !== model) return { pointer: '/occupants/via', message: `"${o.occupants.via}" is not a foreign key of ${of.label} to ${model.label}` };
  return (
    want(model, o.units, ['integer', 'positive_integer'], '/units') ??
    want(model, o.start, ['integer', 'positive_integer'], '/start') ??
    want(model, o.descending, ['boolean'], '/descending') ??
    want(of, o.occupants.position, NUMBER_KINDS, '/occupants/position') ??
    want(of, o.occupants.face, ['choice'], '/occupants/face') ??
    want(of, o.occupants.height, NUMBER_KINDS, '/occupants/height') ??
    want(of, o.occupants.full_depth, ['boolean'], '/occupants/full_depth')
  );
}

function faceChoices(registry: Registry, o: Options): Array<{ value: string; label: string }> {
  const f = registry.models.get(o.occupants.of)!.fields.get(o.occupants.face)!;
  return (f.choices?.entries ?? []).map((e) => ({ value: String(e.value), label: e.label }));
}

export const rackElevationAction: DetailAction = {
  methods: ['GET'],
  options: OPTIONS_SCHEMA,
  check: (registry, model, options) => checkOptions(registry, model, options as unknown as Options),
  async handle(ctx, req, res, { model, id, options }) {
    if (req.method !== 'GET' && req.method !== 'HEAD') throw methodNotAllowed(req.method, ['GET', 'HEAD', 'OPTIONS']);
    const o = options as unknown as Options;
    const occupant = ctx.registry.models.get(o.occupants.of)!;
    const rackScope = await actionScope(ctx, model, 'view');
    const faces = faceChoices(ctx.registry, o);
    let params;
    try {
      params = parseElevationParams(ctx.query, faces.map((f) => f.value));
    } catch (e) {
      // As NetBox: an unknown or hidden rack is a 404 before its query is judged.
      await requireWithin(ctx, model, id, rackScope);
      throw e;
    }
    const deviceScope = await ctx.scope(occupant, 'view');
    const page = pageOf(ctx.config, ctx.query);

    const r = (path: string) => reach(model, path, 't')!;
    const [units, start, desc] = [r(o.units), r(o.start), r(o.descending)];
    const rack = sql`SELECT ${valueOf(units)}::int AS "n", ${valueOf(start)}::int AS "s", ${valueOf(desc)} AS "d"
      FROM ${ident(model.table)} AS "t" ${joinsOf([units, start, desc])} WHERE ${and([...rackScope, sql`"t"."id" = ${id}::bigint`])}`;

    // The units, counted in halves (h = 2U): from the top down, or from the starting unit up when descending.
    const unitRows = sql`SELECT "g"."i" AS "ord", CASE WHEN "r"."d" THEN 2 * "r"."s" + "g"."i" - 1 ELSE 2 * ("r"."n" + "r"."s" - 1) + 2 - "g"."i" END AS "h", "r"."d", "r"."s"
      FROM "rack" AS "r", generate_series(1, 2 * "r"."n") AS "g"("i")`;
    // Each unit as NetBox names it ("U42", "U42.5"), and its id as Python's str() gives it for `q`: "42.0", "42.5"
    // ("1" for the first unit of a descending rack, which starts from the integer starting unit).
    const named = sql`SELECT "u".*, concat('U', "u"."h" / 2, CASE WHEN "u"."h" % 2 = 1 THEN '.5' END) AS "name",
      CASE WHEN "u"."d" AND "u"."h" = 2 * "u"."s" THEN ("u"."s")::text ELSE concat("u"."h" / 2, CASE WHEN "u"."h" % 2 = 1 THEN '.5' ELSE '.0' END) END AS "id_text"
      FROM "units" AS "u"`;

    const position = reach(occupant, o.occupants.position, 't')!;
    const face = reach(occupant, o.occupants.face, 't')!;
    const height = reach(occupant, o.occupants.height, 't')!;
    const fullDepth = reach(occupant, o.occupants.full_depth, 't')!;
    const via = occupant.fields.get(o.occupants.via)!;
    const pos = valueOf(position);
    const hgt = valueOf(height);
    const visible = deviceScope.allowed ? and(deviceScope.conditions) : sql`FALSE`;
    const occupantRows = sql`SELECT "t"."id", (2 * ${pos})::int AS "lo", (2 * (${pos} + ${hgt}))::int AS "hi", (${visible}) AS "visible"
      FROM ${ident(occupant.table)} AS "t" ${joinsOf([position, face, height, fullDepth])}
      WHERE ${and([
        sql`${column('t', via.column!)} = ${id}::bigint`,
        sql`${pos} > 0`,
        sql`${hgt} > 0`,
        sql`(${valueOf(face)} = ${params.face} OR ${valueOf(fullDepth)})`,
        params.exclude === null ? sql`TRUE` : sql`"t"."id" <> ${params.exclude}::bigint`,
      ])}`;
    // Expanded, a device fills every half unit it spans; otherwise only its lowest unit.
    const fills = params.expandDevices ? sql`"n"."h" >= "o"."lo" AND "n"."h" < "o"."hi"` : sql`"n"."h" = "o"."lo"`;
    const matched = sql`SELECT "n".*, count(*) OVER () AS "total",
      (SELECT "o"."id" FROM "occupants" AS "o" WHERE ${fills} AND "o"."visible" ORDER BY "o"."id" DESC LIMIT 1) AS "device_id",
      EXISTS (SELECT 1 FROM "occupants" AS "o" WHERE ${fills}) AS "occupied"
      FROM "named" AS "n"
      WHERE ${params.q === null ? sql`TRUE` : sql`(strpos("n"."id_text", ${params.q}) > 0 OR strpos("n"."name", ${params.q}) > 0)`}`;
    const limit = page.limit === null ? sql`` : sql` LIMIT ${page.limit}`;
    const offset = page.offset ? sql` OFFSET ${page.offset}` : sql``;

    // Occupants in their brief form, which links to nothing: nothing here depends on what the caller may view beyond them.
    const json = new JsonCompiler(ctx.registry, { revealSecrets: false, revealShown: false, view: () => false });
    const label = JSON.stringify(Object.fromEntries(faces.map((f) => [f.value, f.label])));
    const unit = json.record([
      ['id', sql`("p"."h"::float8 / 2)`],
      ['name', sql`"p"."name"`],
      ['face', json.record([['value', sql`${params.face}::text`], ['label', sql`${label}::jsonb ->> ${params.face}::text`]])],
      ['device', json.nestedById(occupant, sql`"p"."device_id"`, 0)],
      ['occupied', sql`"p"."occupied"`],
      ['display', sql`"p"."name"`],
    ]);
    const statement = sql`WITH "rack" AS (${rack}), "units" AS (${unitRows}), "named" AS (${named}), "occupants" AS (${occupantRows}),
      "matched" AS (${matched}), "p" AS (SELECT * FROM "matched" ORDER BY "ord"${limit}${offset})
      SELECT EXISTS (SELECT 1 FROM "rack") AS "found", coalesce((SELECT max("total") FROM "matched"), 0)::int AS "count",
        coalesce((SELECT array_to_json(array_agg(${unit} ORDER BY "p"."ord")) FROM "p"), '[]'::json)::text AS "results"`.bindParams({ origin: ctx.origin });
    const [row] = await runRows<{ found: boolean; count: number; results: string }>(ctx.knex, statement);
    if (!row?.found) throw notFound();
    const links = pageLinks(`${ctx.origin}${req.originalUrl}`, page, row.count);
    sendJsonText(req, res, 200, `{"count":${row.count},"next":${JSON.stringify(links.next)},"previous":${JSON.stringify(links.previous)},"results":${row.results}}`);
  },
  doc(model, { operationId, options }) {
    const o = options as unknown as Options;
    const query = (name: string, schema: Record<string, unknown>, description: string) => ({ name, in: 'query', schema, description });
    return {
      pathItem: {
        get: {
          operationId,
          tags: [model.app],
          summary: 'Rack elevation: the rack\'s units, paginated',
          description: `Each unit of the ${model.verboseName} from the top (half units included), with the ${o.occupants.of} filling it on the face asked for (or full depth). Only JSON is rendered: render=svg is a 400.`,
          parameters: [
            { name: 'id', in: 'path', required: true, schema: { type: 'integer' } },
            query('face', { type: 'string', enum: ['front', 'rear'], default: 'front' }, 'The face shown.'),
            query('exclude', { type: 'integer' }, `A ${o.occupants.of} id to leave out.`),
            query('expand_devices', { type: 'boolean', default: true }, 'false: a device fills only its lowest unit.'),
            query('q', { type: 'string' }, 'Keeps the units whose id or name contains the text.'),
            query('render', { type: 'string', enum: ['json', 'svg'], default: 'json' }, 'Only json is served.'),
            query('unit_width', { type: 'integer' }, 'Checked, unused (sizes the SVG drawing).'),
            query('unit_height', { type: 'integer' }, 'Checked, unused (sizes the SVG drawing).'),
            query('legend_width', { type: 'integer' }, 'Checked, unused (sizes the SVG drawing).'),
            query('margin_width', { type: 'integer' }, 'Checked, unused (sizes the SVG drawing).'),
            query('include_images', { type: 'boolean', default: true }, 'Checked, unused (SVG drawing only).'),
            query('limit', { type: 'integer' }, 'Number of units to return per page.'),
            query('offset', { type: 'integer' }, 'The initial index from which to return the units.'),
          ],
          responses: {
            200: { description: 'A page of rack units.', content: { 'application/json': { schema: { $ref: '#/components/schemas/PaginatedRackUnitList' } } } },
            400: { description: 'A query parameter is not valid; the body names it.' },
            403: { $ref: '#/components/responses/Forbidden' },
            404: { $ref: '#/components/responses/NotFound' },
          },
        },
      },
      schemas: {
        RackUnit: {
          type: 'object',
          required: ['id', 'name', 'face', 'device', 'occupied', 'display'],
          properties: {
            id: { type: 'number' },
            name: { type: 'string' },
            face: { type: 'object', properties: { value: { type: 'string' }, label: { type: 'string' } } },
            device: { type: ['object', 'null'], properties: { id: { type: 'integer' }, url: { type: 'string' }, display: { type: 'string' }, name: { type: ['string', 'null'] } } },
            occupied: { type: 'boolean' },
            display: { type: 'string' },
          },
        },
        PaginatedRackUnitList: paginatedOf({ $ref: '#/components/schemas/RackUnit' }),
      },
    };
  },
};
