import { sql, type Sql } from '../sql/fragment';
import { runRows } from '../database/run';
import type { DbTransaction } from '../database/db';

/** Who is writing, as the change log's triggers read it (engine/migrations/change-log-triggers.ts). */
export interface ChangeContext {
  userId: number | null;
  userName: string;
  /** The response's X-Request-ID. */
  requestId: string;
  /** The scheme and host URLs in stored events start with. */
  origin: string;
}

/**
 * An expression (always TRUE) that sets the write's context for the change log, local to its
 * transaction, so every row the transaction logs — whichever statement or cascade wrote it — names
 * the caller and the request. A statement run without BEGIN puts it in the CTE its write reads first.
 */
export function changeContextSql(c: ChangeContext): Sql {
  return sql`(set_config('patchbay.user_id', ${c.userId === null ? '' : String(c.userId)}::text, true) IS NOT NULL
    AND set_config('patchbay.user_name', ${c.userName}::text, true) IS NOT NULL
    AND set_config('patchbay.request_id', ${c.requestId}::text, true) IS NOT NULL
    AND set_config('patchbay.origin', ${c.origin}::text, true) IS NOT NULL)`;
}

/** Sets the context at the start of a write's transaction. */
export async function setChangeContext(trx: DbTransaction, c: ChangeContext): Promise<void> {
  await runRows(trx, sql`SELECT ${changeContextSql(c)} AS "set"`);
}
