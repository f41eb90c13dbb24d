import type { Registry, ResolvedModel } from '../definitions/registry-types';
import { sql } from '../sql/fragment';
import { runRows } from '../database/run';
import { definitionsText } from '../validation/custom-field-cache';
import type { Prepared } from './prepare-write';
import type { DbTransaction } from '../database/db';

/**
 * A body the one-statement path prepared before giving way to the transactional path (the write was not
 * plain after all, refused a value, or deadlocked), so that path need not prepare it again (a password
 * hashed twice, every value checked twice). It was prepared against the process's cached custom field
 * definitions, whose text it keeps (null when the model has none).
 */
export interface PreparedEarlier {
  prepared: Prepared;
  definitions: string | null;
}

/**
 * The earlier preparation, if the transaction may use it: the custom field definitions it was prepared
 * against are still the current ones, read FOR SHARE as the transactional path reads them (so none can
 * change before this write commits). Null when they changed: the body is then prepared again.
 */
export async function stillPrepared(trx: DbTransaction, registry: Registry, model: ResolvedModel, earlier: PreparedEarlier): Promise<Prepared | null> {
  if (earlier.definitions === null) return earlier.prepared;
  const now = definitionsText(registry, model);
  if (!now) return earlier.prepared;
  const [row] = await runRows<{ same: boolean }>(trx, sql`SELECT ${now} = ${earlier.definitions}::text AS "same"`);
  return row?.same ? earlier.prepared : null;
}
