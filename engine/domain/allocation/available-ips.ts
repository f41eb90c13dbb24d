import type { DetailAction } from '../../http/detail-actions';
import type { ResolvedModel } from '../../definitions/registry-types';
import { and, column, ident, join, sql, type Sql } from '../../sql/fragment';
import { BLOCK_SIZE, occupancyOf } from './occupancy';
import { addressesIn, formatAddr } from './address-math';
import { hostOf } from './free-space';
import {
  ALLOCATION_OPTIONS, allocationDoc, checkAllocation, columnOf, createdModel, gapsStatement, insufficient, readGaps, scopeColumns, scopeConditions, serveAllocation,
  type AllocationOptions, type UsedSpans,
} from './allocation';

/**
 * NetBox's available-ips of a prefix or an IP range, for any model whose definition says where its span
 * is: a `network` (a cidr field: every address of it) or a `start` and `end` (inet fields). Addresses used
 * are those of the created type's `value` field in the same scope, and the spans of `exclude` rows (IP
 * ranges marked utilized). With a `network`, IPv4 keeps its network and broadcast addresses (below /31)
 * and IPv6 its subnet-router anycast address (below /127) out of reach unless the `pool` field is true,
 * as NetBox's Prefix.get_available_ips. Each address is given with the parent's mask length.
 */
interface Options extends AllocationOptions {
  network?: string;
  start?: string;
  end?: string;
  pool?: string;
  exclude?: Array<{ of: string; start: string; end: string; where?: Record<string, string | number | boolean>; same?: Record<string, string> }>;
}

function parentRow(model: ResolvedModel, o: Options, id: number): Sql {
  const cols: Sql[] = [];
  if (o.network) {
    const n = column('t', columnOf(model, o.network));
    cols.push(sql`${hostOf(sql`network(${n})`)} AS "first"`, sql`${hostOf(sql`broadcast(${n})`)} AS "last"`, sql`masklen(${n}) AS "mask"`);
  } else {
    const s = column('t', columnOf(model, o.start!));
    cols.push(sql`${hostOf(s)} AS "first"`, sql`${hostOf(column('t', columnOf(model, o.end!)))} AS "last"`, sql`masklen(${s}) AS "mask"`);
  }
  cols.push(o.pool ? sql`${column('t', columnOf(model, o.pool))} AS "pool"` : sql`FALSE AS "pool"`);
  cols.push(...scopeColumns(model, o));
  for (const [i, x] of (o.exclude ?? []).entries()) for (const [, mine] of Object.entries(x.same ?? {})) cols.push(sql`${column('t', columnOf(model, mine))} AS ${ident(`x${i}_${mine}`)}`);
  return sql`SELECT ${join(cols)} FROM ${ident(model.table)} AS "t" WHERE "t"."id" = ${id}::bigint`;
}

/**
 * The addresses in use, as spans. Where the created type keeps the occupancy of its address field within
 * exactly the allocation's scope, a full block is one span read from the summary and only the addresses of
 * blocks that are not full are read (through the host-order index); otherwise every address in the span.
 * A full block counted in one scope is full in any union of scopes too (a global container's), so the
 * summary serves the unscoped case as well.
 */
function addressSpans(model: ResolvedModel, created: ResolvedModel, o: Options): UsedSpans[] {
  const value = column('c', columnOf(created, o.value));
  const host = hostOf(value);
  const occupancy = occupancyOf(created, created.fields.get(o.value)!);
  const within = new Set(occupancy?.within.map((f) => f.name));
  if (!occupancy || within.size !== (o.scope ?? []).length || !(o.scope ?? []).every((s) => within.has(s))) {
    return [{ table: created.table, lo: host, hi: host, where: [sql`${value} && inet_merge("p"."first", "p"."last")`, ...scopeConditions(model, created, o)] }];
  }
  const last = sql`"c"."block" + ${BLOCK_SIZE - 1}`;
  const inSpan = [sql`"c"."block" <= "p"."last"`, sql`${last} >= "p"."first"`, ...scopeConditions(model, created, o)];
  const address = hostOf(column('a', columnOf(created, o.value)));
  return [
    { table: occupancy.table, lo: column('c', 'block'), hi: last, where: [sql`"c"."hosts" >= ${BLOCK_SIZE}`, ...inSpan] },
    {
      table: occupancy.table,
      lo: column('u', 'h'),
      hi: column('u', 'h'),
      from: sql`${ident(occupancy.table)} AS "c" CROSS JOIN LATERAL (SELECT ${address} AS "h" FROM ${ident(created.table)} AS "a"
        WHERE ${address} BETWEEN greatest("c"."block", "p"."first") AND least(${last}, "p"."last") AND ${and(scopeConditions(model, created, o, 'a'))}) AS "u"`,
      where: [sql`"c"."hosts" < ${BLOCK_SIZE}`, ...inSpan],
    },
  ];
}

function statement(model: ResolvedModel, created: ResolvedModel, o: Options, id: number, limit: number): Sql {
  const used = addressSpans(model, created, o);
  for (const [i, x] of (o.exclude ?? []).entries()) {
    const other = model.modelByLabel(x.of)!;
    const where: Sql[] = Object.entries(x.where ?? {}).map(([f, v]) => sql`${column('c', columnOf(other, f))}::text = ${String(v)}::text`);
    for (const [theirs, mine] of Object.entries(x.same ?? {})) where.push(sql`${column('c', columnOf(other, theirs))} IS NOT DISTINCT FROM ${column('p', `x${i}_${mine}`)}`);
    used.push({ table: other.table, lo: hostOf(column('c', columnOf(other, x.start))), hi: hostOf(column('c', columnOf(other, x.end))), where });
  }
  const ends: Sql[] = o.network
    ? [
        sql`CASE WHEN NOT "p"."pool" AND ((family("p"."first") = 4 AND "p"."mask" < 31) OR (family("p"."first") = 6 AND "p"."mask" < 127)) THEN "p"."first" END`,
        sql`CASE WHEN NOT "p"."pool" AND family("p"."first") = 4 AND "p"."mask" < 31 THEN "p"."last" END`,
      ]
    : [];
  return gapsStatement(parentRow(model, o, id), used, ends, 'inet', limit, true);
}

export const availableIpsAction: DetailAction = {
  methods: ['GET', 'POST'],
  options: {
    type: 'object',
    additionalProperties: false,
    required: ['creates', 'value'],
    properties: {
      ...ALLOCATION_OPTIONS,
      network: { type: 'string' },
      start: { type: 'string' },
      end: { type: 'string' },
      pool: { type: 'string' },
      exclude: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['of', 'start', 'end'],
          properties: { of: { type: 'string' }, start: { type: 'string' }, end: { type: 'string' }, where: { type: 'object' }, same: { type: 'object', additionalProperties: { type: 'string' } } },
        },
      },
    },
    oneOf: [{ required: ['network'] }, { required: ['start', 'end'] }],
  },
  check(registry, model, options) {
    const o = options as unknown as Options;
    const problem = checkAllocation(registry, model, o, ['inet']);
    if (problem) return problem;
    const kindOf = (name: string | undefined) => (name ? model.fields.get(name)?.kind : undefined);
    if (o.network && kindOf(o.network) !== 'cidr') return { pointer: '/network', message: `"${o.network}" is not a cidr field of ${model.label}` };
    if (!o.network && (kindOf(o.start) !== 'inet' || kindOf(o.end) !== 'inet')) return { pointer: '/start', message: `start and end must be inet fields of ${model.label}` };
    if (o.pool && kindOf(o.pool) !== 'boolean') return { pointer: '/pool', message: `"${o.pool}" is not a boolean field of ${model.label}` };
    for (const [i, x] of (o.exclude ?? []).entries()) {
      const other = registry.models.get(x.of);
      if (!other) return { pointer: `/exclude/${i}/of`, message: `unknown model "${x.of}"` };
      for (const f of [x.start, x.end, ...Object.keys(x.where ?? {}), ...Object.keys(x.same ?? {})]) if (!other.fields.get(f)?.column) return { pointer: `/exclude/${i}`, message: `"${f}" is not a stored field of ${other.label}` };
      for (const f of Object.values(x.same ?? {})) if (!model.fields.get(f)?.column) return { pointer: `/exclude/${i}/same`, message: `"${f}" is not a stored field of ${model.label}` };
    }
    return null;
  },
  async handle(ctx, req, res, { model, id, options }) {
    const o = options as unknown as Options;
    const created = createdModel(ctx.registry, o);
    // The first n free addresses, each with the parent's mask length (as NetBox gives them).
    const take = async (db: Parameters<typeof readGaps>[0], n: number) => {
      const gaps = await readGaps(db, statement(model, created, o, id, n));
      const out: Array<{ family: number; address: string }> = [];
      for (const a of addressesIn(gaps)) {
        if (out.length >= n) break;
        out.push({ family: a.family, address: `${formatAddr(a)}/${gaps[0]!.mask}` });
      }
      return out;
    };
    await serveAllocation(
      ctx, req, res, model, id, o,
      async (db, limit) => (await take(db, limit)).map((a) => ({ family: a.family, [o.value]: a.address })),
      async (trx, items) => {
        const free = await take(trx, items.length);
        if (free.length < items.length) throw insufficient();
        return items.map((item, i) => ({ ...item, [o.value]: free[i]!.address }));
      },
    );
  },
  doc(model, { operationId, options }) {
    const o = options as unknown as Options;
    const created = model.modelByLabel(o.creates)!;
    const free = { type: 'object', properties: { family: { type: 'integer' }, [o.value]: { type: 'string' }, ...Object.fromEntries((o.shows ?? []).map((s) => [s, { type: ['object', 'null'] }])) } };
    return allocationDoc(model, operationId, created, 'IP addresses', free, { type: 'object', description: `Fields of the ${created.verboseName}; ${o.value} is allocated.` });
  },
};
