import type { ResolvedField, ResolvedModel } from '../definitions/registry-types';
import type { Filter } from '../definitions/generated/model-definition';
import type { Condition } from '../query/conditions';
import { quoteIdent } from '../storage/identifiers';
import type { FilterDef } from './filter-table';
import { parseAll, type ValueKind } from './filter-values';
import { fkFilters, resolveTargets } from './relation-filters';
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

/** One step of a path: a foreign key, or a generic relation narrowed to one type (assigned_object[dcim.interface]). */
interface Hop {
  field: ResolvedField;
  target: ResolvedModel;
  /** Set for a generic hop: the type label its type column must hold. */
  typeLabel?: string;
}

/** The id column a hop reads on its own table, and the extra condition a generic hop needs there. */
function hopColumn(hop: Hop, table: string): { col: string; guard: string } {
  if (!hop.typeLabel) return { col: `${table}.${quoteIdent(hop.field.column!)}`, guard: '' };
  // Labels come from the definitions (checked against the registry), never from a request.
  return { col: `${table}.${quoteIdent(hop.field.idColumn!)}`, guard: `${table}.${quoteIdent(hop.field.typeColumn!)} = '${hop.typeLabel}' AND ` };
}

/**
 * Follows a dotted path of foreign keys (site.region), or of generic relations narrowed to a type
 * (assigned_object[dcim.interface].device), from the list's table; returns the final field and the SQL
 * that reaches it (nested subqueries for each hop).
 */
function pathTo(model: ResolvedModel, path: string): { field: ResolvedField; last: Hop | null; wrap: (inner: (col: string) => string) => string; value: () => string } | null {
  let current = model;
  const hops: Hop[] = [];
  let field: ResolvedField | undefined;
  let lastHop: Hop | null = null;
  // Dots inside a [type] belong to the type label, not to the path.
  for (const part of path.match(/[^.[\]]+(?:\[[^\]]*\])?/g) ?? []) {
    const m = /^([a-z_][a-z0-9_]*)(?:\[([a-z0-9_]+\.[a-z0-9_]+)\])?$/.exec(part);
    if (!m || field) {
      if (field?.kind === 'fk' && field.target) {
        hops.push({ field, target: field.target });
        current = field.target;
      } else if (field && lastHop) {
        hops.push(lastHop);
        current = lastHop.target;
      } else if (field) return null;
      if (!m) return null;
    }
    field = current.fields.get(m[1]!);
    if (!field) return null;
    lastHop = null;
    if (m[2]) {
      const target = field.kind === 'generic_fk' ? [...(field.genericTargets === 'any' ? [] : field.genericTargets ?? [])].find((t) => t.label === m[2]) : undefined;
      if (!target) return null;
      lastHop = { field, target, typeLabel: target.label };
    }
  }
  if (!field) return null;
  const via = hops;
  const last = field;
  return {
    field: last,
    last: lastHop,
    wrap: (inner) => {
      // Innermost: the last field's column on the model that holds it, then outwards hop by hop.
      let alias = via.length ? `p${via.length}` : 't';
      let expr = inner(`"${alias}".${quoteIdent(lastHop ? lastHop.field.idColumn! : (last.column ?? 'id'))}`);
      if (lastHop) expr = `${hopColumn(lastHop, `"${alias}"`).guard}(${expr})`;
      for (let i = via.length - 1; i >= 0; i--) {
        const hop = via[i]!;
        const outer = i === 0 ? '"t"' : `"p${i}"`;
        const { col, guard } = hopColumn(hop, outer);
        expr = `${guard}${col} IN (SELECT "${alias}"."id" FROM ${quoteIdent(hop.target.table)} AS "${alias}" WHERE ${expr})`;
        alias = `p${i}`;
      }
      return expr;
    },
    value: () => {
      // The last column read along the path as nested scalar subqueries: NULL when a hop on the way is
      // unset, as through Django's LEFT JOINs.
      const lastCol = lastHop ? lastHop.field.idColumn! : (last.column ?? 'id');
      let expr = via.length ? hopColumn(via[0]!, '"t"').col : `"t".${quoteIdent(lastCol)}`;
      if (via[0]?.typeLabel) expr = `(CASE WHEN ${hopColumn(via[0], '"t"').guard}TRUE THEN ${expr} END)`;
      via.forEach((hop, i) => {
        const nextHop = via[i + 1];
        const next = nextHop ? hopColumn(nextHop, `"v${i}"`) : { col: `"v${i}".${quoteIdent(lastCol)}`, guard: lastHop ? hopColumn(lastHop, `"v${i}"`).guard : '' };
        expr = `(SELECT ${next.guard ? `CASE WHEN ${next.guard}TRUE THEN ${next.col} END` : next.col} FROM ${quoteIdent(hop.target.table)} AS "v${i}" WHERE "v${i}"."id" = ${expr})`;
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
  if (spec.lookup === 'is_set') {
    // true: the relation (or value) is set; false: it is not.
    const cols = route.field.kind === 'generic_fk' ? [route.field.typeColumn!] : route.field.column ? [route.field.column] : [];
    if (!cols.length) throw new Error(`${model.label}: filter ${name} needs a stored field at ${path}`);
    return [{
      name,
      lookups: ['exact'],
      field: route.field,
      kind: 'boolean',
      async compile(_lookup, values, param, ctx) {
        const flags = parseAll('boolean', values, param, ctx);
        if (!flags) return null;
        return { sql: route.wrap((c) => `${flags[0] ? '' : 'NOT '}(${c.replace(/"[^"]+"$/, quoteIdent(cols[0]!))} IS NOT NULL)`), bindings: [] };
      },
    }];
  }
  if (route.last && spec.lookup === 'fk_id') {
    // The generic relation itself, narrowed to one type: its id column against the given ids.
    return [{
      name,
      lookups: ['exact', 'n'],
      field: route.field,
      kind: 'integer',
      async compile(lookup, values, param, ctx) {
        // Ids must exist (else a 400, as for any relation filter); 'null' means "no object of this type".
        const r = await resolveTargets(route.last!.target, 'id', values, param, ctx);
        if (!r) return null;
        const parts: Condition[] = [];
        if (r.ids.length) parts.push({ sql: route.wrap((col) => `${col} = ANY(?)`), bindings: [r.ids] });
        if (r.wantsNull) parts.push({ sql: `NOT COALESCE((${route.wrap((col) => `${col} IS NOT NULL`)}), FALSE)`, bindings: [] });
        const c = parts.length ? anyOf(parts) : { sql: 'FALSE', bindings: [] };
        // __n keeps every row not matched, unassigned ones included (NetBox's exclude()).
        return lookup === 'n' ? { sql: `NOT COALESCE((${c.sql}), FALSE)`, bindings: c.bindings } : c;
      },
    }];
  }
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
