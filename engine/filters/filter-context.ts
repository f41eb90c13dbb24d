import type { Registry } from '../definitions/registry-types';
import type { FilterErrors } from './filter-errors';
import type { Sql } from '../sql/fragment';
import type { Rows } from '../reads/reader-access';
import type { Db } from '../database/db';

/** What compiling a list's filters needs: the registry, a database handle, the error sink, the deferred checks. */
export interface FilterContext {
  db: Db;
  registry: Registry;
  errors: FilterErrors;
  /** Checks the read's statement makes alongside the page (objects a filter names must exist). */
  checks: ExistenceCheck[];
  /** The rows whose shown_with fields the caller may see: a filter on such a field matches no others. */
  reveal: Rows;
  /** The calling user (null: anonymous), for filters whose answer depends on who asks (saved filters' usable). */
  userId: number | null;
  /** STRICT_FILTERING: a parameter that names no filter (an unknown cf_ name included) is a 400 rather than ignored. */
  strict: boolean;
}

/**
 * The objects a filter parameter names must exist, or the request is a 400 naming the first one that does
 * not ("Select a valid choice. 42 is not one of the available choices."), as NetBox. `firstMissing` is a
 * SQL expression: the 1-based position in `values` of the first one missing, or NULL.
 */
export interface ExistenceCheck {
  param: string;
  values: string[];
  firstMissing: Sql;
}
