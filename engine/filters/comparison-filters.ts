import type { ResolvedField, ResolvedModel } from '../definitions/registry-types';
import type { Filter } from '../definitions/generated/model-definition';
import { and, column, ident, join, keyword, or, sql, type Sql } from '../sql/fragment';
import type { FilterDef } from './filter-table';
import { parseAll, type ValueKind } from './filter-values';
import { resolveTargets } from './relation-filters';
import type { FilterPath } from './filter-paths';

/** The value kinds `between` compares, by field kind, and how a column is read for the comparison. */
const BETWEEN_KINDS: Record<string, { value: ValueKind; cast: string }> = {
  inet: { value: 'inet', cast: 'inet' },
  integer: { value: 'integer', cast: 'bigint' },
  positive_integer: { value: 'integer', cast: 'bigint' },
  date: { value: 'date', cast: 'date' },
  datetime: { value: 'datetime', cast: 'timestamptz' },
};

/** An address compared by itself, without its mask (10.0.0.1/24 is 10.0.0.1): a range's bounds carry masks. */
const compared = (kind: string, expr: Sql, cast: string): Sql => (kind === 'inet' ? sql`host(${expr})::inet` : sql`${expr}::${keyword(cast)}`);

/**
 * `between`: the value lies between two fields of the row, bounds included (NetBox's IPRange contains:
 * start_address <= address <= end_address). Repeated values: any of them.
 */
export function betweenFilter(model: ResolvedModel, name: string, lower: FilterPath, upper: FilterPath): FilterDef {
  const lo = lower.field;
  const hi = upper.field;
  if (lower.hops.length || upper.hops.length) throw new Error(`${model.label}: filter ${name}: between compares two fields of the row itself`);
  const how = BETWEEN_KINDS[lo.kind];
  if (!how || !lo.column || !hi.column) throw new Error(`${model.label}: filter ${name}: between needs two stored fields of one ordered kind (${Object.keys(BETWEEN_KINDS).join(', ')})`);
  if (hi.kind !== lo.kind) throw new Error(`${model.label}: filter ${name}: ${lo.name} and ${hi.name} are of different kinds`);
  const [loCol, hiCol] = [column('t', lo.column), column('t', hi.column)];
  return {
    name,
    lookups: ['exact'],
    field: lo,
    kind: how.value,
    async compile(_lookup, values, param, ctx) {
      const vs = parseAll(how.value, values, param, ctx);
      if (!vs) return null;
      return or(vs.map((v) => {
        const value = compared(lo.kind, sql`${String(v)}`, how.cast);
        return and([sql`${compared(lo.kind, loCol, how.cast)} <= ${value}`, sql`${value} <= ${compared(lo.kind, hiCol, how.cast)}`]);
      }));
    },
  };
}

/**
 * `net_within_object`: the value names objects of another model by id (an unknown id is a 400); the row
 * matches when an address or network along the path lies in the network of one of them (`<<=`, so a
 * sibling address of the same subnet does), the `same` fields equal, null matching null (NetBox's FHRP
 * groups' related_ip: the groups whose addresses share the named address's subnet and VRF).
 */
export function netWithinObjectFilter(model: ResolvedModel, name: string, spec: Filter, route: FilterPath): FilterDef {
  const f = route.field;
  const of = spec.of ? model.modelByLabel(spec.of) : undefined;
  if (!of) throw new Error(`${model.label}: filter ${name}: net_within_object needs "of": the model whose objects the value names`);
  const theirs = of.fields.get(f.name);
  const isNet = (x: ResolvedField | undefined) => !!x && (x.kind === 'inet' || x.kind === 'cidr') && !!x.column;
  if (!isNet(f) || !isNet(theirs)) throw new Error(`${model.label}: filter ${name}: ${f.name} must be an address or network field of both ${f.model.label} and ${of.label}`);
  const same = (spec.same ?? []).map((n) => {
    const [mine, other] = [f.model.fields.get(n), of.fields.get(n)];
    if (!mine?.column || !other?.column) throw new Error(`${model.label}: filter ${name}: same: ${n} is not a stored field of both ${f.model.label} and ${of.label}`);
    return [mine.column, other.column] as const;
  });
  return {
    name,
    lookups: ['exact'],
    field: f,
    kind: 'relation',
    async compile(_lookup, values, param, ctx) {
      const r = resolveTargets(of, 'id', values, param, ctx);
      if (!r) return null;
      const ids = r.ids ?? [];
      if (!ids.length) return sql`FALSE`;
      return route.wrap((a) => route.guarded(a, f.column!, (c) => {
        const agree = same.map(([mine, other]) => sql` AND ${column(a, mine)} IS NOT DISTINCT FROM ${column('o', other)}`);
        return sql`EXISTS (SELECT 1 FROM ${ident(of.table)} AS "o" WHERE "o"."id" = ANY(${ids}) AND ${c} <<= ${column('o', theirs!.column!)}${join(agree, '')})`;
      }));
    },
  };
}
