import type { Knex } from 'knex';

/** How long /api/status/ waits for the database: a health check must answer even when the database cannot. */
const PING_TIMEOUT_MS = 2000;

/** Whether the database answers a trivial query in time (knex retires the connection of a ping that times out). */
export async function databaseReachable(knex: Knex): Promise<boolean> {
  try {
    await knex.raw('select 1').timeout(PING_TIMEOUT_MS);
    return true;
  } catch {
    return false;
  }
}
