import type { Registry } from '../definitions/registry-types';
import { ident, sql } from '../sql/fragment';
import { runRows } from '../database/run';
import type { Db } from '../database/db';

/**
 * NetBox's housekeeping of the change log: rows older than CHANGELOG_RETENTION days go (0 keeps them
 * for ever); so do outbox rows that were delivered or skipped that long ago (failed ones stay, to be
 * seen). Run by the dispatcher once an hour; returns how many change log rows went.
 */
export async function pruneChangeLog(knex: Db, registry: Registry, days: number): Promise<number> {
  if (!days) return 0;
  let pruned = 0;
  const log = registry.roles.get('object_change');
  if (log) {
    const rows = await runRows<{ n: number }>(knex, sql`WITH "gone" AS (DELETE FROM ${ident(log.table)} WHERE "time" < now() - make_interval(days => ${days}::int) RETURNING 1) SELECT count(*)::int AS "n" FROM "gone"`);
    pruned = rows[0]?.n ?? 0;
  }
  const outbox = registry.roles.get('event_outbox');
  if (outbox) {
    await runRows(knex, sql`DELETE FROM ${ident(outbox.table)} WHERE "status" IN ('delivered', 'skipped') AND "time" < now() - make_interval(days => ${days}::int)`);
  }
  return pruned;
}
