import type { OrderTerm, Registry, ResolvedModel } from '../definitions/registry-types';
import type { Sql } from '../sql/fragment';
import { customFieldConditions, parseCustomFieldParam, type CustomFieldParam } from './custom-field-filters';
import { FilterErrors, unknownFilterMessage } from './filter-errors';
import type { ExistenceCheck, FilterContext } from './filter-context';
import type { Rows } from '../reads/reader-access';
import { filterTable } from './filter-table';
import { orderingOf } from './ordering-param';
import { searchCondition } from './search-filter';
import { badStringMessage } from '../validation/string-hygiene';
import { withSavedFilters } from './saved-filters';
import type { Db } from '../database/db';

export interface ListPlan {
  conditions: Sql[];
  ordering: OrderTerm[];
  /** To run in the same statement as the page (see ExistenceCheck). */
  checks: ExistenceCheck[];
}

/** Query parameters that shape the response rather than filter it. */
const RESERVED = new Set(['limit', 'offset', 'ordering', 'brief', 'exclude', 'format', 'fields', 'include', 'export']);
const MAX_VALUES = 1000;

/**
 * Query string -> WHERE conditions and ORDER BY terms, all looked up in the model's filter table:
 * different parameters AND, repeated values OR (tags AND). Unknown parameters are ignored, as NetBox
 * does (a 400 under STRICT_FILTERING); a known filter with a bad value is a 400 naming the parameter.
 */
export async function compileListQuery(
  db: Db,
  registry: Registry,
  model: ResolvedModel,
  query: URLSearchParams,
  caller: { userId: number | null; reveal?: Rows; strict?: boolean } = { userId: null },
): Promise<ListPlan> {
  const errors = new FilterErrors();
  const checks: ExistenceCheck[] = [];
  // Without a word from the caller, a filter on a shown_with field matches nothing (it would tell the value).
  const ctx: FilterContext = { db, registry, errors, checks, reveal: caller.reveal ?? false, userId: caller.userId, strict: caller.strict === true };
  const table = filterTable(model);
  const conditions: Sql[] = [];
  const customs: CustomFieldParam[] = [];
  const grouped = new Map<string, string[]>();
  for (const [key, value] of query) {
    if (RESERVED.has(key)) continue;
    let list = grouped.get(key);
    if (!list) grouped.set(key, (list = []));
    list.push(value);
  }
  // ?filter= and ?filter_id= bring saved parameters in (one statement, only when named).
  await withSavedFilters(db, registry, model, grouped, caller.userId, errors);
  // In the order of their names, not of the query string: the statement's text (PostgreSQL keeps a plan
  // per text) depends on which filters are given, not on the order a client happened to write them in.
  const byName = [...grouped].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [param, values] of byName) {
    if (values.length > MAX_VALUES) {
      errors.add(param, `Too many values (at most ${MAX_VALUES}).`);
      continue;
    }
    if (param === 'q') {
      const bad = values.map(badStringMessage).find(Boolean);
      if (bad) errors.add('q', bad);
      else conditions.push(searchCondition(model, values[values.length - 1]!));
      continue;
    }
    if (param.startsWith('cf_')) {
      const cf = parseCustomFieldParam(param, values);
      if (cf) customs.push(cf);
      else if (ctx.strict) errors.add(param, unknownFilterMessage(param));
      continue;
    }
    let def = table.get(param);
    let lookup = 'exact';
    if (!def) {
      const cut = param.lastIndexOf('__');
      if (cut > 0) {
        def = table.get(param.slice(0, cut));
        lookup = param.slice(cut + 2);
      }
    }
    if (!def || !def.lookups.includes(lookup)) {
      // NetBox ignores what it does not know; STRICT_FILTERING turns a mistyped filter into an answer.
      if (ctx.strict) errors.add(param, unknownFilterMessage(param));
      continue;
    }
    const c = await def.compile(lookup, values, param, ctx);
    if (c) conditions.push(c);
  }
  conditions.push(...(await customFieldConditions(ctx, model, customs)));
  errors.throwIfAny();
  return { conditions, ordering: orderingOf(model, query), checks };
}
