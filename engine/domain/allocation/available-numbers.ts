import type { DetailAction } from '../../http/detail-actions';
import type { ResolvedModel } from '../../definitions/registry-types';
import { column, ident, join, sql, type Sql } from '../../sql/fragment';
import {
  ALLOCATION_OPTIONS, allocationDoc, checkAllocation, columnOf, createdModel, gapsStatement, insufficient, readGaps, scopeColumns, scopeConditions, serveAllocation,
  type AllocationOptions,
} from './allocation';

/**
 * Free integers between two fields of the parent, both included: NetBox's available-vlans of a VLAN group
 * (min_vid to max_vid, VIDs of the group's VLANs used) and available-asns of an ASN range (start to end,
 * every ASN used, as ASNs are unique). A range of four billion numbers is a handful of gaps.
 */
interface Options extends AllocationOptions {
  min: string;
  max: string;
}

function statement(model: ResolvedModel, created: ResolvedModel, o: Options, id: number, limit: number): Sql {
  const parent = sql`SELECT ${join([sql`${column('t', columnOf(model, o.min))}::bigint AS "first"`, sql`${column('t', columnOf(model, o.max))}::bigint AS "last"`, ...scopeColumns(model, o)])} FROM ${ident(model.table)} AS "t" WHERE "t"."id" = ${id}::bigint`;
  const value = sql`${column('c', columnOf(created, o.value))}::bigint`;
  return gapsStatement(parent, [{ table: created.table, lo: value, hi: value, where: scopeConditions(model, created, o) }], [], 'bigint', limit);
}

async function take(db: Parameters<typeof readGaps>[0], model: ResolvedModel, created: ResolvedModel, o: Options, id: number, n: number): Promise<number[]> {
  const out: number[] = [];
  for (const g of await readGaps(db, statement(model, created, o, id, n))) {
    for (let v = Number(g.start); v <= Number(g.end) && out.length < n; v++) out.push(v);
    if (out.length >= n) break;
  }
  return out;
}

const INTEGER_KINDS = ['integer', 'positive_integer'] as const;

export const availableNumbersAction: DetailAction = {
  methods: ['GET', 'POST'],
  options: { type: 'object', additionalProperties: false, required: ['creates', 'value', 'min', 'max'], properties: { ...ALLOCATION_OPTIONS, min: { type: 'string' }, max: { type: 'string' } } },
  check(registry, model, options) {
    const o = options as unknown as Options;
    for (const k of ['min', 'max'] as const) {
      const kind = model.fields.get(o[k])?.kind;
      if (!kind || !(INTEGER_KINDS as readonly string[]).includes(kind)) return { pointer: `/${k}`, message: `"${o[k]}" is not an integer field of ${model.label}` };
    }
    return checkAllocation(registry, model, o, INTEGER_KINDS);
  },
  async handle(ctx, req, res, { model, id, options }) {
    const o = options as unknown as Options;
    const created = createdModel(ctx.registry, o);
    await serveAllocation(
      ctx, req, res, model, id, o,
      async (db, limit) => (await take(db, model, created, o, id, limit)).map((v) => ({ [o.value]: v })),
      async (trx, items) => {
        const free = await take(trx, model, created, o, id, items.length);
        if (free.length < items.length) throw insufficient();
        return items.map((item, i) => ({ ...item, [o.value]: free[i] }));
      },
    );
  },
  doc(model, { operationId, options }) {
    const o = options as unknown as Options;
    const created = model.modelByLabel(o.creates)!;
    const free = { type: 'object', properties: { [o.value]: { type: 'integer' }, ...Object.fromEntries((o.shows ?? []).map((s) => [s, { type: ['object', 'null'] }])) } };
    return allocationDoc(model, operationId, created, `${o.value} values`, free, { type: 'object', description: `Fields of the ${created.verboseName}; ${o.value} is allocated.` });
  },
};
