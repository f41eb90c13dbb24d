import type { ColumnField, ResolvedModel } from '../definitions/registry-types';
import type { Filter } from '../definitions/generated/model-definition';
import { and, column, ident, or, sql, type Sql } from '../sql/fragment';
import type { FilterDef } from './filter-table';
import { parseAll, type ValueKind } from './filter-values';
import { fkFilters, genericFilters, m2mFilters, naturalKey, refersTo, resolveTargets } from './relation-filters';
import { columnFilter, fieldFilters, timestampFilter } from './filter-table';
import { ORDERED_LOOKUPS } from './scalar-lookups';
import { netCountSql } from '../reads/net-count';
import { resolvePath, type FilterPath } from './filter-paths';
import { availableOnFilter } from './available-on';
import { taggedTypeFilter } from './tagged-type-filter';
import { CONTENT_TYPE_ID_LOOKUPS, contentTypeIdFilter } from './content-type-filter';
import { betweenFilter, netWithinObjectFilter } from './comparison-filters';

/**
 * Named lookups a definition's "filters" may use. Each is one SQL shape over the field's column,
 * written so PostgreSQL can use the column's gist (inet_ops) index for containment.
 */
const NET_LOOKUPS: Record<string, { value: ValueKind; sql: (col: Sql, v: string) => Sql }> = {
  net_contained: { value: 'cidr', sql: (c, v) => sql`${c} << ${v}::cidr` },
  net_contained_or_equal: { value: 'cidr', sql: (c, v) => sql`${c} <<= ${v}::cidr` },
  net_contains_or_equals: { value: 'inet', sql: (c, v) => sql`${c} >>= ${v}::inet` },
  // An address whose host lies in the network, whatever its own mask (NetBox's parent filter).
  net_host_contained: { value: 'cidr', sql: (c, v) => sql`(${c} && ${v}::cidr AND host(${c})::inet <<= ${v}::cidr)` },
};

/** Negated lookups and the positive ones they negate: over a path with several values, "none matches". */
const POSITIVE_OF: Record<string, string> = { n: 'exact', nic: 'ic', nisw: 'isw', niew: 'iew', nie: 'ie' };

/** A field's filter, made for a column expression: the path decides which expression that is. */
type FilterAt = (col: Sql) => FilterDef;

/**
 * A field's filter placed at the end of a path. A plain match follows the path with semi-joins
 * (indexed): the filter is compiled against the holder's column. A lookup that can match an unset value
 * (null, __n, __nic, empty) is compiled against the value read through the path instead, so a row whose
 * path is broken earlier counts as unset, as in NetBox (region_id__n=1 keeps prefixes without a site;
 * tenant_group_id=null matches prefixes without a tenant). Over a path with several values per row, a
 * negated lookup means "none of them matches".
 */
function throughPath(make: FilterAt, route: FilterPath, columnName: string): FilterDef {
  const atHolder = make(column(route.holder, columnName));
  const lookups = route.multiValued ? atHolder.lookups.filter((l) => l !== 'empty' && (!POSITIVE_OF[l] || atHolder.lookups.includes(POSITIVE_OF[l]!))) : atHolder.lookups;
  const onHolder = (inner: Sql) => route.wrap((alias) => {
    if (alias !== route.holder) throw new Error(`path holder is ${alias}, not ${route.holder}`);
    return route.guarded(alias, columnName, () => inner);
  });
  return {
    ...atHolder,
    lookups,
    async compile(lookup, values, param, ctx) {
      if (route.multiValued) {
        const positive = POSITIVE_OF[lookup];
        const inner = await atHolder.compile(positive ?? lookup, values, param, ctx);
        if (!inner) return null;
        return positive ? sql`NOT COALESCE((${onHolder(inner)}), FALSE)` : onHolder(inner);
      }
      const plain = ['exact', 'ic', 'isw', 'iew', 'ie', 'lt', 'lte', 'gt', 'gte'].includes(lookup) && !values.includes('null');
      if (plain) {
        const inner = await atHolder.compile(lookup, values, param, ctx);
        return inner && onHolder(inner);
      }
      return make(route.value(columnName)).compile(lookup, values, param, ctx);
    },
  };
}

/** A condition on the holder alias -> a boolean filter "some holder along the path satisfies it" (false: none does). */
function flagFilter(name: string, route: FilterPath, cond: (alias: string) => Sql): FilterDef {
  return {
    name,
    lookups: ['exact'],
    field: route.field,
    kind: 'boolean',
    async compile(_lookup, values, param, ctx) {
      const flags = parseAll('boolean', values, param, ctx);
      if (!flags) return null;
      const c = sql`COALESCE((${route.wrap(cond)}), FALSE)`;
      return flags[0] ? c : sql`NOT ${c}`;
    },
  };
}

/** "Set" for the final field of a path: a relation that points somewhere, a flag that is on, a value that is not null. */
function isSet(model: ResolvedModel, name: string, route: FilterPath): FilterDef {
  const f = route.field;
  const narrowed = route.narrowed;
  if (narrowed) return flagFilter(name, route, (a) => route.guarded(a, narrowed.field.idColumn, (c) => sql`${c} IS NOT NULL`));
  if (f.kind === 'generic_fk') return flagFilter(name, route, (a) => sql`${column(a, f.typeColumn)} IS NOT NULL`);
  if (f.kind === 'reverse_generic' && f.reverse) {
    // Some row of the other model points at the holder through its generic relation (an interface's cable).
    const r = f.reverse;
    return flagFilter(name, route, (a) =>
      sql`EXISTS (SELECT 1 FROM ${ident(r.model.table)} AS "r" WHERE ${column('r', r.via.typeColumn)} = ${f.model.label}::text AND ${column('r', r.via.idColumn)} = ${column(a, 'id')})`);
  }
  const stored = f.column;
  if (!stored) throw new Error(`${model.label}: filter ${name} needs a stored field, a relation or a reverse generic relation at ${f.name}`);
  if (f.kind === 'boolean') return flagFilter(name, route, (a) => sql`${column(a, stored)} IS TRUE`);
  // An image field without a file holds null or '' (NetBox stores ''): neither is set.
  if (f.kind === 'image') return flagFilter(name, route, (a) => sql`coalesce(${column(a, stored)}, '') <> ''`);
  // A JSON field may hold the JSON value null (written as null, or never written): as unset as SQL NULL.
  if (f.kind === 'json') return flagFilter(name, route, (a) => sql`(${column(a, stored)} IS NOT NULL AND jsonb_typeof(${column(a, stored)}) <> 'null')`);
  return flagFilter(name, route, (a) => sql`${column(a, stored)} IS NOT NULL`);
}

/** The filter one path declares. */
function onePath(model: ResolvedModel, name: string, spec: Filter, path: string): FilterDef {
  let route: FilterPath;
  try {
    route = resolvePath(model, path);
  } catch (e) {
    throw new Error(`${model.label}: filter ${name}: ${(e as Error).message}`);
  }
  const f = route.field;
  if (route.reverseEnd && spec.lookup !== 'is_set') throw new Error(`${model.label}: filter ${name}: ${path} ends on a reverse relation, which only is_set (some row points here) can test`);
  if (f.def.secret && spec.lookup !== 'field') throw new Error(`${model.label}: filter ${name}: ${path} is secret: only its own exact-match filter may reach it`);
  // Its filter matches by the caller's action on the list's own rows: a path to another model's would not know which.
  if (f.def.shown_with) throw new Error(`${model.label}: filter ${name}: ${path} is shown only with ${f.def.shown_with}: only its own filter may reach it`);
  /** The filter `pick` makes for a column, named after the declaration; refused at startup when there is none. */
  const named = (pick: (col: Sql) => FilterDef | undefined, why: string): FilterAt => {
    if (!pick(column('t', 'id'))) throw new Error(`${model.label}: filter ${name}: ${why}`);
    return (col) => ({ ...pick(col)!, name });
  };
  switch (spec.lookup) {
    case 'is_set':
      return isSet(model, name, route);
    case 'fk_id':
    case 'fk_key': {
      const byId = spec.lookup === 'fk_id';
      if (route.narrowed) {
        if (!byId) throw new Error(`${model.label}: filter ${name}: a generic relation is matched by id (fk_id)`);
        return narrowedById(name, route);
      }
      const which = byId ? 0 : 1;
      if (route.linkedBack && f.kind === 'm2m') {
        // The linking objects reached back through the many-to-many field: matched by their own id or natural key.
        const holder = f.model;
        const key = naturalKey(holder);
        if (!byId && !key) throw new Error(`${model.label}: filter ${name}: ${holder.label} has no natural key`);
        return linkedObjectsFilter(name, route, holder, byId ? 'id' : key!);
      }
      if (f.kind === 'fk') {
        return throughPath(named((col) => fkFilters(f.model, f, col, name)[which], `${f.target.label} has no natural key`), route, f.column);
      }
      if (f.kind === 'm2m') {
        // The link table is keyed by the holder's id.
        return throughPath(named((col) => m2mFilters(f, col, name)[which], `${f.target.label} has no natural key`), route, 'id');
      }
      throw new Error(`${model.label}: filter ${name}: ${path} is not a foreign key or many-to-many field`);
    }
    case 'generic_type':
    case 'generic_id': {
      if (f.kind !== 'generic_fk' || route.narrowed) throw new Error(`${model.label}: filter ${name}: ${path} is not a generic relation`);
      // The path gives the column: the type's for the type filter, the id's for the id filter.
      return spec.lookup === 'generic_type'
        ? throughPath(named((col) => genericFilters(f, { type: col, id: col })[0], 'no type filter'), route, f.typeColumn)
        // Through a path, the id is matched as a relation is (exact, n), as NetBox's termination_a_id.
        : throughPath(named((col) => ({ ...genericFilters(f, { type: col, id: col })[1]!, lookups: ['exact', 'n'] }), 'no id filter'), route, f.idColumn);
    }
    case 'content_type_id': {
      // A type label list or value (names_type), or a generic relation's type: the content types it names, by id.
      const col = f.kind === 'generic_fk' && !route.narrowed ? f.typeColumn : f.namesType ? f.column : null;
      if (!col) throw new Error(`${model.label}: filter ${name}: ${path} is neither a generic relation nor a field naming types`);
      const extra = spec.lookups ?? [];
      if (extra.some((l) => !(CONTENT_TYPE_ID_LOOKUPS as readonly string[]).includes(l))) throw new Error(`${model.label}: filter ${name}: content_type_id takes ${CONTENT_TYPE_ID_LOOKUPS.join(', ')} besides exact and n`);
      return throughPath(named((c) => contentTypeIdFilter(name, c, f, extra, spec.empty_matches_all === true), 'no content type filter'), route, col);
    }
    case 'field': {
      if (f.kind === 'net_count' && !route.hops.length) {
        // Counted when read, not stored (NetBox stores _children, _depth): the same count, made in the filter's SQL.
        return { ...columnFilter(name, netCountSql(f, 't', 'nc'), 'integer', ORDERED_LOOKUPS, 'bigint'), field: f };
      }
      if (!f.column) throw new Error(`${model.label}: filter ${name} needs a stored field at ${path}`);
      const made = throughPath(named((col) => fieldFilters(f.model, f, col).find((d) => d.name === f.name), `${path} cannot be filtered`), route, f.column);
      if (!spec.lookups) return made;
      // Only exact and the lookups listed (NetBox's created_by_request is exact only, not every text lookup).
      const missing = spec.lookups.find((l) => !made.lookups.includes(l));
      if (missing) throw new Error(`${model.label}: filter ${name}: ${path} has no lookup ${missing} (it has ${made.lookups.join(', ')})`);
      return { ...made, lookups: ['exact', ...spec.lookups] };
    }
    case 'at_least':
    case 'at_most': {
      // NetBox's time_after / time_before: one bound of an ordered field under a name of its own.
      if (!f.column) throw new Error(`${model.label}: filter ${name} needs a stored field at ${path}`);
      const bound = spec.lookup === 'at_least' ? 'gte' : 'lte';
      return throughPath(named((col) => {
        const own = fieldFilters(f.model, f, col).find((d) => d.name === f.name);
        if (!own || !own.lookups.includes(bound)) return undefined;
        return { ...own, lookups: ['exact'], compile: (_lookup, values, param, ctx) => own.compile(bound, values, param, ctx) };
      }, `${path} is not an ordered field (${bound})`), route, f.column);
    }
    case 'between': {
      if (!spec.upper) throw new Error(`${model.label}: filter ${name}: between needs "upper": the path of the upper bound`);
      let upper: FilterPath;
      try {
        upper = resolvePath(model, spec.upper);
      } catch (e) {
        throw new Error(`${model.label}: filter ${name}: ${(e as Error).message}`);
      }
      return betweenFilter(model, name, route, upper);
    }
    case 'net_within_object':
      return netWithinObjectFilter(model, name, spec, route);
    case 'holds': {
      // NetBox's can_view: whether a list of text (or choice values) holds one element.
      const element = spec.element;
      if (element === undefined) throw new Error(`${model.label}: filter ${name}: holds needs "element"`);
      if (!f.column || !f.array || !(f.kind === 'choice' || f.kind === 'string')) throw new Error(`${model.label}: filter ${name}: holds needs a list of text or choices at ${path}`);
      if (f.kind === 'choice' && !f.choices.labels.has(element)) throw new Error(`${model.label}: filter ${name}: "${element}" is not a choice of ${path}`);
      const col = f.column;
      return flagFilter(name, route, (a) => route.guarded(a, col, (c) => sql`${element}::text = ANY(${c})`));
    }
    case 'choice_group':
      return choiceGroupFilter(model, name, spec, route, path);
    case 'json_text': {
      // NetBox's choice on choice sets: some string inside the JSON value (a pair's value or label) is one of the values.
      if (f.kind !== 'json' || !f.column) throw new Error(`${model.label}: filter ${name}: json_text needs a json field at ${path}`);
      const col = f.column;
      return {
        name,
        lookups: ['exact'],
        field: f,
        kind: 'string',
        async compile(_lookup, values, param, ctx) {
          const texts = parseAll('text', values, param, ctx);
          if (!texts) return null;
          return route.wrap((a) => route.guarded(a, col, (c) => sql`EXISTS (SELECT 1 FROM jsonb_path_query(${c}, 'strict $.**') AS "e"("v") WHERE jsonb_typeof("e"."v") = 'string' AND ("e"."v" #>> '{}') = ANY(${texts}::text[]))`));
        },
      };
    }
    case 'usable_by_caller':
      return usableByCallerFilter(model, name, spec, route, path);
    case 'net_mask_length': {
      if (!f.column) throw new Error(`${model.label}: filter ${name} needs a stored field at ${path}`);
      const col = f.column;
      return {
        name,
        lookups: ['exact', ...(spec.lookups ?? [])],
        field: f,
        kind: 'integer',
        async compile(lookup, values, param, ctx) {
          const ns = parseAll('integer', values, param, ctx);
          if (!ns) return null;
          const op = { exact: sql`=`, gte: sql`>=`, lte: sql`<=`, gt: sql`>`, lt: sql`<`, n: sql`<>` }[lookup] ?? sql`=`;
          const parts = ns.map((n) => route.wrap((a) => route.guarded(a, col, (c) => sql`masklen(${c}) ${op} ${n as number}::bigint`)));
          return lookup === 'n' ? and(parts) : or(parts);
        },
      };
    }
    default: {
      const net = NET_LOOKUPS[spec.lookup];
      if (!net) throw new Error(`${model.label}: filter ${name} uses unknown lookup ${spec.lookup}`);
      if (!f.column) throw new Error(`${model.label}: filter ${name} needs a stored field at ${path}`);
      const col = f.column;
      return {
        name,
        lookups: ['exact'],
        field: f,
        kind: net.value,
        async compile(_lookup, values, param, ctx) {
          const vs = parseAll(net.value, values, param, ctx);
          if (!vs) return null;
          return or(vs.map((v) => route.wrap((a) => route.guarded(a, col, (c) => net.sql(c, String(v))))));
        },
      };
    }
  }
}

/**
 * NetBox's saved filters' usable: true for the rows the caller may use (enabled, and shared or their
 * own), false for the others. Anonymous callers own nothing. The caller comes from the filter context.
 */
function usableByCallerFilter(model: ResolvedModel, name: string, spec: Filter, route: FilterPath, path: string): FilterDef {
  const f = route.field;
  const fail = (why: string) => new Error(`${model.label}: filter ${name}: ${why}`);
  if (f.kind !== 'fk' || route.hops.length || f.target.def.role !== 'user') throw fail(`usable_by_caller needs a foreign key of the model to the user role at ${path}`);
  const flag = (which: 'shared' | 'enabled') => {
    const field = spec[which] === undefined ? undefined : model.fields.get(spec[which]);
    if (spec[which] !== undefined && (field?.kind !== 'boolean' || !field.column)) throw fail(`"${which}" must name a boolean field of the model`);
    return field?.column;
  };
  const shared = flag('shared');
  const enabled = flag('enabled');
  const owner = f.column;
  return {
    name,
    lookups: ['exact'],
    field: f,
    kind: 'boolean',
    async compile(_lookup, values, param, ctx) {
      const flags = parseAll('boolean', values, param, ctx);
      if (!flags) return null;
      const own = ctx.userId === null ? sql`FALSE` : sql`COALESCE(${column('t', owner)} = ${ctx.userId}::bigint, FALSE)`;
      const reach = shared ? sql`(${column('t', shared)} IS TRUE OR ${own})` : own;
      const usable = enabled ? sql`(${column('t', enabled)} IS TRUE AND ${reach})` : reach;
      return flags[0] ? usable : sql`NOT ${usable}`;
    },
  };
}

/**
 * A choice field's value by the group it belongs to (NetBox's interface kind: physical, virtual,
 * wireless): `groups` names the values of each group, `rest` the group of every other value. A name that
 * is no group is a 400, as an unknown choice; a row without a value is in no group.
 */
function choiceGroupFilter(model: ResolvedModel, name: string, spec: Filter, route: FilterPath, path: string): FilterDef {
  const f = route.field;
  const fail = (why: string) => new Error(`${model.label}: filter ${name}: ${why}`);
  if (f.kind !== 'choice' || f.array || !f.column || f.choices.numeric) throw fail(`choice_group needs a single choice field of text values at ${path}`);
  const groups = spec.groups ?? {};
  if (!Object.keys(groups).length) throw fail('choice_group needs "groups"');
  if (spec.rest !== undefined && spec.rest in groups) throw fail(`"${spec.rest}" is both a group and the rest`);
  // A query value is read in lower case, so a group name in upper case could never be asked for.
  const upper = [...Object.keys(groups), spec.rest ?? ''].find((g) => g !== g.toLowerCase());
  if (upper !== undefined) throw fail(`group names are lower case ("${upper}")`);
  const grouped = Object.values(groups).flat();
  const stray = grouped.find((v) => !f.choices.labels.has(v));
  if (stray !== undefined) throw fail(`"${stray}" is not a choice of ${path}`);
  const col = f.column;
  return {
    name,
    lookups: ['exact'],
    field: f,
    kind: 'choice',
    async compile(_lookup, values, param, ctx) {
      const parts: Sql[] = [];
      for (const raw of values) {
        // As NetBox reads a kind: trimmed, in any case.
        const v = raw.trim().toLowerCase();
        const members = Object.prototype.hasOwnProperty.call(groups, v) ? groups[v]! : undefined;
        if (!members && v !== spec.rest) {
          ctx.errors.add(param, `Select a valid choice. ${raw} is not one of the available choices.`);
          return null;
        }
        parts.push(route.wrap((a) => route.guarded(a, col, (c) => (members ? sql`${c} = ANY(${members}::text[])` : sql`(${c} IS NOT NULL AND NOT (${c} = ANY(${grouped}::text[])))`))));
      }
      return or(parts);
    },
  };
}

/**
 * A path ending on the objects that link here through a many-to-many field (a route target's
 * importing_vrf_id: the VRFs whose import_targets hold it), matched by their id or natural key; __n: none
 * of them is named. `null` names no object, as for a many-to-many field followed forward.
 */
function linkedObjectsFilter(name: string, route: FilterPath, holder: ResolvedModel, by: 'id' | ColumnField): FilterDef {
  return {
    name,
    lookups: ['exact', 'n'],
    field: route.field,
    kind: 'relation',
    async compile(lookup, values, param, ctx) {
      const r = resolveTargets(holder, by, values, param, ctx);
      if (!r) return null;
      // As a many-to-many filter followed forward, `null` names no object: it matches nothing.
      const c = r.ids?.length || r.keys?.values.length ? route.wrap(() => refersTo(column(route.holder, 'id'), { ...r, wantsNull: false }, false)) : sql`FALSE`;
      return lookup === 'n' ? sql`NOT COALESCE((${c}), FALSE)` : c;
    },
  };
}

/** A generic relation narrowed to one type (assigned_object[dcim.interface]), matched by the ids of that type's objects. */
function narrowedById(name: string, route: FilterPath): FilterDef {
  const hop = route.narrowed!;
  const col = hop.field.idColumn;
  return {
    name,
    lookups: ['exact', 'n'],
    field: route.field,
    kind: 'integer',
    async compile(lookup, values, param, ctx) {
      // Ids must exist (else a 400, as for any relation filter); 'null' means "no object of this type".
      const r = resolveTargets(hop.target, 'id', values, param, ctx);
      if (!r) return null;
      const parts: Sql[] = [];
      const ids = r.ids;
      if (ids?.length) parts.push(route.wrap((a) => route.guarded(a, col, (c) => sql`${c} = ANY(${ids})`)));
      if (r.wantsNull) {
        // Unset: the relation holds no object of this type; through several holders, some holder's does not.
        const isSet = (a: string) => route.guarded(a, col, (c) => sql`${c} IS NOT NULL`);
        parts.push(route.multiValued ? route.wrap((a) => sql`NOT COALESCE((${isSet(a)}), FALSE)`) : sql`NOT COALESCE((${route.wrap(isSet)}), FALSE)`);
      }
      const c = or(parts);
      // __n keeps every row not matched, unassigned ones included (NetBox's exclude()).
      return lookup === 'n' ? sql`NOT COALESCE((${c}), FALSE)` : c;
    },
  };
}

/**
 * A path's `when`: stored fields of the listed row that must hold given values for the path to match
 * (an interface of another virtual chassis member counts only when not mgmt_only). A negated lookup
 * then holds where the conditions do not, or where the path does not match.
 */
function withWhen(model: ResolvedModel, name: string, spec: Filter, path: string, def: FilterDef): FilterDef {
  const when = spec.when?.[path];
  if (!when) return def;
  const conds = Object.entries(when).map(([field, value]) => {
    const f = model.fields.get(field);
    if (!f?.column || f.kind === 'fk') throw new Error(`${model.label}: filter ${name}: when: ${field} is not a stored field of ${model.label}`);
    if (typeof value !== (f.kind === 'boolean' ? 'boolean' : NUMERIC_KINDS.has(f.kind) ? 'number' : 'string')) throw new Error(`${model.label}: filter ${name}: when: ${JSON.stringify(value)} is not a value of ${field}`);
    return sql`${column('t', f.column)} = ${value}`;
  });
  const holds = and(conds);
  return {
    ...def,
    async compile(lookup, values, param, ctx) {
      const c = await def.compile(lookup, values, param, ctx);
      if (!c) return null;
      return POSITIVE_OF[lookup] ? sql`(NOT COALESCE((${holds}), FALSE) OR (${c}))` : sql`(${holds}) AND (${c})`;
    },
  };
}

const NUMERIC_KINDS: ReadonlySet<string> = new Set(['integer', 'positive_integer', 'decimal', 'float']);

/**
 * A declared filter: one path, or several (`"field": [...]`), any of which may match; a negated lookup
 * then needs every path to miss (untagged_vlan or tagged_vlans: vlan_id=5 / vlan_id__n=5).
 */
function declared(model: ResolvedModel, name: string, spec: Filter): FilterDef {
  if (spec.lookup === 'available_on') return availableOnFilter(model, name, spec);
  if (spec.lookup === 'tagged_type' || spec.lookup === 'tagged_type_id') {
    if (model.def.role !== 'tag') throw new Error(`${model.label}: filter ${name}: ${spec.lookup} belongs to the model with "role": "tag"`);
    return taggedTypeFilter(model, name, spec.lookup === 'tagged_type' ? 'label' : 'id');
  }
  const stamp = spec.field === 'created' || spec.field === 'last_updated' ? spec.field : undefined;
  if (stamp && !model.fields.has(stamp)) return timestampBound(model, name, spec, stamp);
  const paths = Array.isArray(spec.field) ? spec.field : [spec.field ?? name];
  const stray = Object.keys(spec.when ?? {}).find((p) => !paths.includes(p));
  if (stray) throw new Error(`${model.label}: filter ${name}: when names ${stray}, which is not one of its paths`);
  if (spec.lookup === 'is_unset') return someUnset(name, paths.map((p) => onePath(model, name, { ...spec, lookup: 'is_set' }, p)));
  const defs = paths.map((p) => withWhen(model, name, spec, p, onePath(model, name, spec, p)));
  if (defs.length === 1) return defs[0]!;
  const kinds = new Set(defs.map((d) => d.kind));
  if (kinds.size > 1) throw new Error(`${model.label}: filter ${name}: its paths filter different kinds of value (${[...kinds].join(', ')})`);
  if (spec.lookup === 'is_set') {
    // Flags: set when any path is set, unset when none is (occupied: a cable, or marked connected).
    return {
      ...defs[0]!,
      async compile(lookup, values, param, ctx) {
        const flags = parseAll('boolean', values, param, ctx);
        if (!flags) return null;
        const parts: Sql[] = [];
        for (const d of defs) parts.push((await d.compile(lookup, ['true'], param, ctx))!);
        const any = or(parts);
        return flags[0] ? any : sql`NOT (${any})`;
      },
    };
  }
  const lookups = defs[0]!.lookups.filter((l) => defs.every((d) => d.lookups.includes(l)) && (l === 'exact' || POSITIVE_OF[l]));
  return {
    ...defs[0]!,
    lookups,
    async compile(lookup, values, param, ctx) {
      const parts: Sql[] = [];
      for (const d of defs) {
        const c = await d.compile(lookup, values, param, ctx);
        if (!c) return null;
        parts.push(c);
      }
      return POSITIVE_OF[lookup] ? and(parts) : or(parts);
    },
  };
}

/** NetBox's created_after / created_before: one bound of the model's own timestamp, which is no field a path reaches. */
function timestampBound(model: ResolvedModel, name: string, spec: Filter, stamp: 'created' | 'last_updated'): FilterDef {
  const own = timestampFilter(model, stamp);
  if (!own) throw new Error(`${model.label}: filter ${name}: the model keeps no ${stamp} timestamp`);
  if (spec.lookup !== 'at_least' && spec.lookup !== 'at_most') throw new Error(`${model.label}: filter ${name}: ${stamp} takes at_least or at_most only`);
  const bound = spec.lookup === 'at_least' ? 'gte' : 'lte';
  return { ...own, name, lookups: ['exact'], compile: (_lookup, values, param, ctx) => own.compile(bound, values, param, ctx) };
}

/**
 * is_unset over paths: true when some path is unset, false when every one is set (a cable's
 * unterminated: an end without a termination). Each path's is_set gives its flag.
 */
function someUnset(name: string, defs: FilterDef[]): FilterDef {
  return {
    ...defs[0]!,
    name,
    async compile(lookup, values, param, ctx) {
      const flags = parseAll('boolean', values, param, ctx);
      if (!flags) return null;
      const parts: Sql[] = [];
      for (const d of defs) parts.push((await d.compile(lookup, ['true'], param, ctx))!);
      const every = and(parts);
      return flags[0] ? sql`NOT (${every})` : every;
    },
  };
}

const cache = new WeakMap<ResolvedModel, FilterDef[]>();

/** The filters a model's definition declares by name ("filters": {...}). */
export function domainFilters(model: ResolvedModel): FilterDef[] {
  let defs = cache.get(model);
  if (!defs) {
    defs = Object.entries(model.def.filters ?? {}).map(([name, spec]) => declared(model, name, spec));
    cache.set(model, defs);
  }
  return defs;
}

/**
 * The filters generic relations pointing at this model give it (a contact assignment's `object` gives
 * contact, contact_role and contact_group to every type offering contacts): declared once, on the
 * offering side, with paths from the target.
 */
export function targetFilters(model: ResolvedModel): FilterDef[] {
  let defs = targetCache.get(model);
  if (!defs) {
    defs = model.reverseGenerics.flatMap((g) => (g.def.type === 'generic_fk' ? Object.entries(g.def.target_filters ?? {}) : []).map(([name, spec]) => declared(model, name, spec)));
    targetCache.set(model, defs);
  }
  return defs;
}

const targetCache = new WeakMap<ResolvedModel, FilterDef[]>();

/**
 * Builds one declared filter, to check it: a fault is thrown as an Error whose message names what is
 * wrong, without the model and filter name the engine's messages start with (the caller points at the filter).
 */
export function checkDeclaredFilter(model: ResolvedModel, name: string, spec: Filter): void {
  try {
    declared(model, name, spec);
  } catch (e) {
    if (!(e instanceof Error) || e instanceof TypeError) throw e;
    const lead = `${model.label}: filter ${name}`;
    throw new Error(e.message.startsWith(`${lead}: `) ? e.message.slice(lead.length + 2) : e.message.startsWith(`${lead} `) ? e.message.slice(lead.length + 1) : e.message);
  }
}
