import type { DetailAction } from '../../http/detail-actions';
import type { ResolvedModel } from '../../definitions/registry-types';
import { column, ident, join, sql, type Sql } from '../../sql/fragment';
import { HttpError } from '../../http/http-error';
import { hostOf } from './free-space';
import { cidrsOf, formatCidr, parseAddr, takePrefix, type Cidr } from './address-math';
import {
  ALLOCATION_OPTIONS, allocationDoc, checkAllocation, columnOf, createdModel, gapsStatement, insufficient, readGaps, scopeColumns, scopeConditions, serveAllocation,
  type AllocationOptions,
} from './allocation';

/**
 * NetBox's available-prefixes: the parent's `network` less the networks of the created type inside it (in
 * the same scope), as the largest aligned free networks in order (netaddr's iter_cidrs). POST takes a
 * `prefix_length` per object and gives each the first free network at least that large, cut to that length
 * (get_next_available_prefix); the rest of the request's fields pass through.
 */
interface Options extends AllocationOptions {
  network: string;
}

function statement(model: ResolvedModel, created: ResolvedModel, o: Options, id: number): Sql {
  const n = column('t', columnOf(model, o.network));
  const parent = sql`SELECT ${join([sql`${hostOf(sql`network(${n})`)} AS "first"`, sql`${hostOf(sql`broadcast(${n})`)} AS "last"`, sql`${n} AS "net"`, ...scopeColumns(model, o)])} FROM ${ident(model.table)} AS "t" WHERE "t"."id" = ${id}::bigint`;
  const value = column('c', columnOf(created, o.value));
  return gapsStatement(parent, [{ table: created.table, lo: hostOf(sql`network(${value})`), hi: hostOf(sql`broadcast(${value})`), where: [sql`${value} << "p"."net"`, ...scopeConditions(model, created, o)] }], [], 'inet', null);
}

async function freeNetworks(db: Parameters<typeof readGaps>[0], model: ResolvedModel, created: ResolvedModel, o: Options, id: number): Promise<Cidr[]> {
  const gaps = await readGaps(db, statement(model, created, o, id));
  return gaps.flatMap((g) => {
    const a = parseAddr(g.start);
    return cidrsOf(a.family, a.value, parseAddr(g.end).value);
  });
}

/** Each object's prefix_length, as NetBox's PrefixLengthSerializer checks it; errors aligned with the request. */
function lengths(items: Array<Record<string, unknown>>, family: 4 | 6, many: boolean): number[] {
  const errors = items.map((item): Record<string, string[]> => {
    const v = item.prefix_length;
    if (v === undefined || v === null) return { prefix_length: ['this field can not be missing'] };
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) return { prefix_length: ['this field must be int type'] };
    if (v > (family === 4 ? 32 : 128)) return { prefix_length: [`Invalid prefix length (${v}) for IPv${family}`] };
    return {};
  });
  if (errors.some((e) => Object.keys(e).length)) throw new HttpError(400, many ? errors : errors[0]);
  return items.map((i) => i.prefix_length as number);
}

export const availablePrefixesAction: DetailAction = {
  methods: ['GET', 'POST'],
  options: { type: 'object', additionalProperties: false, required: ['creates', 'value', 'network'], properties: { ...ALLOCATION_OPTIONS, network: { type: 'string' } } },
  check(registry, model, options) {
    const o = options as unknown as Options;
    if (model.fields.get(o.network)?.kind !== 'cidr') return { pointer: '/network', message: `"${o.network}" is not a cidr field of ${model.label}` };
    return checkAllocation(registry, model, o, ['cidr']);
  },
  async handle(ctx, req, res, { model, id, options }) {
    const o = options as unknown as Options;
    const created = createdModel(ctx.registry, o);
    await serveAllocation(
      ctx, req, res, model, id, o,
      // NetBox lists every free network, whatever the limit.
      async (db) => (await freeNetworks(db, model, created, o, id)).map((c) => ({ family: c.family, [o.value]: formatCidr(c) })),
      async (trx, items, many) => {
        const free = await freeNetworks(trx, model, created, o, id);
        const family = free[0]?.family ?? 4;
        const wanted = lengths(items, family, many);
        return items.map((item, i) => {
          const taken = takePrefix(free, wanted[i]!);
          if (!taken) throw insufficient();
          const { prefix_length: _dropped, ...rest } = item;
          return { ...rest, [o.value]: formatCidr(taken) };
        });
      },
    );
  },
  doc(model, { operationId, options }) {
    const o = options as unknown as Options;
    const created = model.modelByLabel(o.creates)!;
    const free = { type: 'object', properties: { family: { type: 'integer' }, [o.value]: { type: 'string' }, ...Object.fromEntries((o.shows ?? []).map((s) => [s, { type: ['object', 'null'] }])) } };
    return allocationDoc(model, operationId, created, 'networks', free, { type: 'object', required: ['prefix_length'], properties: { prefix_length: { type: 'integer', minimum: 0, maximum: 128 } }, description: `prefix_length, and any fields of the ${created.verboseName}.` });
  },
};
