import type { Knex } from 'knex';

/** How long /api/status/ waits for the database: a health check must answer even when the database cannot. */
const PING_TIMEOUT_MS = 2000;

/**
 * Whether the database answers a trivial query in time, connecting included. A ping still pending at the
 * deadline goes on in the background, bounded by the connect and query timeouts (knex retires the
 * connection of a query that exceeds its .timeout()).
 */
export async function databaseReachable(knex: Knex): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), PING_TIMEOUT_MS)));
  const ping = knex.raw('select 1').timeout(PING_TIMEOUT_MS).then(() => true, () => false);
  try {
    return await Promise.race([ping, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
