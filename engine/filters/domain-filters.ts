import type { ResolvedField, ResolvedModel } from '../definitions/registry-types';
import type { Filter } from '../definitions/generated/model-definition';
import type { Condition } from '../query/conditions';
import { quoteIdent } from '../storage/identifiers';
import type { FilterDef } from './filter-table';
import { parseAll, type ValueKind } from './filter-values';
import { fkFilters } from './relation-filters';
import { fieldFilters } from './filter-table';

/**
 * Named lookups a definition's "filters" may use. Each is one SQL shape over the field's column,
 * written so PostgreSQL can use the column's gist (inet_ops) index for containment.
 */
const NET_LOOKUPS: Record<string, { value: ValueKind; sql: (col: string) => string; arity: number }> = {
  net_contained: { value: 'cidr', sql: (c) => `${c} << ?::cidr`, arity: 1 },
  net_contained_or_equal: { value: 'cidr', sql: (c) => `${c} <<= ?::cidr`, arity: 1 },
  net_contains_or_equals: { value: 'inet', sql: (c) => `${c} >>= ?::inet`, arity: 1 },
  // An address whose host lies in the network, whatever its own mask (NetBox's parent filter).
  net_host_contained: { value: 'cidr', sql: (c) => `(${c} && ?::cidr AND host(${c})::inet <<= ?::cidr)`, arity: 2 },
};

function anyOf(parts: Condition[]): Condition {
  return { sql: parts.map((p) => `(${p.sql})`).join(' OR '), bindings: parts.flatMap((p) => p.bindings) };
}

/**
 * Follows a dotted path of foreign keys (site.region) from the list's table; returns the final
 * relation and the SQL expression of the id column it compares (nested subqueries for each hop).
 */
function pathTo(model: ResolvedModel, path: string): { field: ResolvedField; wrap: (inner: (col: string) => string) => string; value: () => string } | null {
  const parts = path.split('.');
  let current = model;
  const hops: ResolvedField[] = [];
  for (const p of parts) {
    const f = current.fields.get(p);
    if (!f) return null;
    hops.push(f);
    if (f.kind === 'fk' && f.target) current = f.target;
  }
  const last = hops[hops.length - 1]!;
  const via = hops.slice(0, -1);
  if (via.some((h) => h.kind !== 'fk')) return null;
  return {
    field: last,
    wrap: (inner) => {
      // Innermost: the last relation's column on the model that holds it, then outwards hop by hop.
      let alias = via.length ? `p${via.length}` : 't';
      let expr = inner(`"${alias}".${quoteIdent(last.column ?? 'id')}`);
      for (let i = via.length - 1; i >= 0; i--) {
        const hop = via[i]!;
        const outer = i === 0 ? '"t"' : `"p${i}"`;
        expr = `${outer}.${quoteIdent(hop.column!)} IN (SELECT "${alias}"."id" FROM ${quoteIdent(hop.target!.table)} AS "${alias}" WHERE ${expr})`;
        alias = `p${i}`;
      }
      return expr;
    },
    value: () => {
      // The last column read along the path as nested scalar subqueries: NULL when a hop on the way is
      // unset, as through Django's LEFT JOINs.
      let expr = via.length ? `"t".${quoteIdent(via[0]!.column!)}` : `"t".${quoteIdent(last.column ?? 'id')}`;
      via.forEach((hop, i) => {
        const next = i + 1 < via.length ? via[i + 1]!.column! : (last.column ?? 'id');
        expr = `(SELECT "v${i}".${quoteIdent(next)} FROM ${quoteIdent(hop.target!.table)} AS "v${i}" WHERE "v${i}"."id" = ${expr})`;
      });
      return expr;
    },
  };
}

/**
 * A filter compiled against '__COL__' placed at the end of a path. A plain match follows the path with
 * semi-joins (indexed); a lookup that can match an unset value (null, __n, __nic, empty) reads the value
 * through the path instead, so a row whose path is broken earlier counts as unset, as in NetBox
 * (region_id__n=1 keeps prefixes without a site; tenant_group_id=null matches prefixes without a tenant).
 */
function throughPath(route: NonNullable<ReturnType<typeof pathTo>>, lookup: string, values: string[], inner: Condition): Condition {
  const plain = ['exact', 'ic', 'isw', 'iew', 'ie', 'lt', 'lte', 'gt', 'gte'].includes(lookup) && !values.includes('null');
  const sql = plain ? route.wrap((col) => inner.sql.split('__COL__').join(col)) : inner.sql.split('__COL__').join(route.value());
  return { sql, bindings: inner.bindings };
}

function declared(model: ResolvedModel, name: string, spec: Filter): FilterDef[] {
  const path = spec.field ?? name;
  const route = pathTo(model, path);
  if (!route) throw new Error(`${model.label}: filter ${name} names an unknown field path ${path}`);
  if (spec.lookup === 'fk_id' || spec.lookup === 'fk_key') {
    if (route.field.kind !== 'fk') throw new Error(`${model.label}: filter ${name} needs a foreign key at ${path}`);
    // Reuse the relation filter, compiled against the innermost column, then wrapped in the path's subqueries.
    const [byId, byKey] = fkFilters(route.field.model, route.field, '__COL__', name);
    const chosen = spec.lookup === 'fk_id' ? byId! : byKey;
    if (!chosen) throw new Error(`${model.label}: filter ${name} needs ${route.field.target!.label} to have a natural key`);
    return [{
      ...chosen,
      name,
      async compile(lookup, values, param, ctx) {
        const inner = await chosen.compile(lookup, values, param, ctx);
        return inner && throughPath(route, lookup, values, inner);
      },
    }];
  }
  const col = route.field.column;
  if (!col) throw new Error(`${model.label}: filter ${name} needs a stored field at ${path}`);
  if (spec.lookup === 'field') {
    // The field's own filter, with every lookup its kind has, reached through the path.
    const own = fieldFilters(route.field.model, route.field, '__COL__').find((d) => d.name === route.field.name);
    if (!own) throw new Error(`${model.label}: filter ${name}: ${path} cannot be filtered`);
    return [{
      ...own,
      name,
      async compile(lookup, values, param, ctx) {
        const inner = await own.compile(lookup, values, param, ctx);
        return inner && throughPath(route, lookup, values, inner);
      },
    }];
  }
  if (spec.lookup === 'net_mask_length') {
    const lookups = ['exact', ...(spec.lookups ?? [])];
    return [{
      name,
      lookups,
      field: route.field,
      kind: 'integer',
      async compile(lookup, values, param, ctx) {
        const ns = parseAll('integer', values, param, ctx);
        if (!ns) return null;
        const op = { exact: '=', gte: '>=', lte: '<=', gt: '>', lt: '<', n: '<>' }[lookup] ?? '=';
        const parts = ns.map((n) => ({ sql: route.wrap((c) => `masklen(${c}) ${op} ?`), bindings: [n] }));
        return lookup === 'n' ? { sql: parts.map((p) => p.sql).join(' AND '), bindings: parts.flatMap((p) => p.bindings) } : anyOf(parts);
      },
    }];
  }
  const net = NET_LOOKUPS[spec.lookup];
  if (!net) throw new Error(`${model.label}: filter ${name} uses unknown lookup ${spec.lookup}`);
  return [{
    name,
    lookups: ['exact'],
    field: route.field,
    kind: net.value,
    async compile(lookup, values, param, ctx) {
      const vs = parseAll(net.value, values, param, ctx);
      if (!vs) return null;
      return anyOf(vs.map((v) => ({ sql: route.wrap((c) => net.sql(c)), bindings: Array(net.arity).fill(v) })));
    },
  }];
}

const cache = new WeakMap<ResolvedModel, FilterDef[]>();

/** The filters a model's definition declares by name ("filters": {...}). */
export function domainFilters(model: ResolvedModel): FilterDef[] {
  let defs = cache.get(model);
  if (!defs) {
    defs = Object.entries(model.def.filters ?? {}).flatMap(([name, spec]) => declared(model, name, spec));
    cache.set(model, defs);
  }
  return defs;
}
