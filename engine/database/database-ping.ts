import type { Db } from './db';

/** How long /api/status/ waits for the database: a health check must answer even when the database cannot. */
const PING_TIMEOUT_MS = 2000;

/**
 * Whether the database answers a trivial query in time, connecting included. A ping still pending at the
 * deadline goes on in the background, bounded by the connect and query timeouts (the connection of a query
 * unanswered past the query timeout is closed, see pg-database.ts).
 */
export async function databaseReachable(db: Db): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), PING_TIMEOUT_MS)));
  const ping = db.raw('select 1').then(() => true, () => false);
  try {
    return await Promise.race([ping, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
