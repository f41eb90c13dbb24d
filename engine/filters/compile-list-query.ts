import type { OrderTerm, Registry, ResolvedModel } from '../definitions/registry-types';
import type { Condition } from '../query/conditions';

export interface ListPlan {
  conditions: Condition[];
  ordering: OrderTerm[];
}

/**
 * Query string -> WHERE conditions and ORDER BY terms for a list. Field filters arrive with the
 * filtering work; until then a list is ordered by the model's default ordering.
 */
export function compileListQuery(registry: Registry, model: ResolvedModel, query: URLSearchParams): ListPlan {
  void registry;
  void query;
  return { conditions: [], ordering: model.ordering };
}
