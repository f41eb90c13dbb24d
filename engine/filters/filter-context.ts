import type { Knex } from 'knex';
import type { Registry } from '../definitions/registry-types';
import type { FilterErrors } from './filter-errors';

/** What compiling a list's filters needs: the registry, a database handle for lookups by name, the error sink. */
export interface FilterContext {
  db: Knex | Knex.Transaction;
  registry: Registry;
  errors: FilterErrors;
}
