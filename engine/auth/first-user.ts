import type { Registry } from '../definitions/registry-types';
import type { Db } from '../database/db';
import { sql } from '../sql/fragment';
import { runRows } from '../database/run';
import { authTables } from './auth-tables';
import { HttpError, NOT_AUTHENTICATED_DETAIL } from '../http/http-error';

/** What a newcomer runs to get the first user; printed at start and put in the anonymous 403 while no user exists. */
export const CREATE_FIRST_USER = 'npx patchbay createsuperuser --username <name> --password <password>';

/** Whether the database holds any user at all (active or not: someone has set it up). */
export async function anyUserExists(db: Db, registry: Registry): Promise<boolean> {
  const { users } = authTables(registry);
  const rows = await runRows<{ one: number }>(db, sql`SELECT 1 AS "one" FROM ${users} LIMIT 1`);
  return rows.length > 0;
}

/** The line `serve` prints on a database with no user, so that the first start leads somewhere. */
export function firstUserAdvice(embedded: boolean): string {
  const when = embedded ? 'after stopping this server (the embedded database is single-process)' : 'beside this server';
  return `No user exists yet: create the first one with \`${CREATE_FIRST_USER}\`, ${when}. It prints an API token to send as "Authorization: Token <key>"; the user can also log in at /login/.`;
}

/**
 * The anonymous 403 on a database with no user says how to make one: NetBox's detail alone points at
 * tokens for a user who does not exist. Once a user has been seen, the database is not asked again in
 * this process (users are not expected to vanish; if they do, the plain NetBox detail is still right).
 */
export function firstUserHint(db: Db, registry: Registry): (err: unknown) => Promise<unknown> {
  let userSeen = false;
  return async (err) => {
    if (userSeen || !(err instanceof HttpError) || err.status !== 403) return err;
    const body = err.body as { detail?: unknown } | null;
    if (!body || body.detail !== NOT_AUTHENTICATED_DETAIL) return err;
    try {
      userSeen = await anyUserExists(db, registry);
    } catch {
      return err; // the database is unreachable: the plain refusal is still true
    }
    if (userSeen) return err;
    return new HttpError(403, { detail: `${NOT_AUTHENTICATED_DETAIL} No user exists yet: create one with \`${CREATE_FIRST_USER}\`.` }, err.headers);
  };
}
