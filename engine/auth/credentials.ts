import type { AuthDeps } from './authenticate';
import { ident, sql } from '../sql/fragment';
import { runRows } from '../database/run';
import { DUMMY_HASH, verifyPassword } from './passwords';
import { HttpError } from '../http/http-error';

/** Failed attempts allowed in the window, per username and per client address. */
const WINDOW_MINUTES = 15;
const PER_USERNAME = 10;
const PER_ADDRESS = 30;

/**
 * Checks a username and password: rate-limited per client address and per username (failures are
 * kept in the database, so every instance counts them), constant-time, and the same work whether or
 * not the user exists. Returns the user's id, or null for wrong credentials.
 *
 * Each admitted attempt is recorded as a failure before the password is checked (and forgotten if it
 * succeeds), so concurrent guesses count against each other: at most PER_USERNAME are ever in flight or
 * failed within the window, however many arrive at once.
 */
export async function checkCredentials(deps: AuthDeps, username: string, password: string, address: string): Promise<number | null> {
  const failures = deps.registry.roles.get('login_failure');
  const user = deps.registry.roles.get('user')!;
  const since = new Date(deps.clock.now().getTime() - WINDOW_MINUTES * 60_000).toISOString();
  const name = username.slice(0, 150);
  const from = address.slice(0, 64);
  let attempt: number | null = null;
  const forget = async () => {
    if (failures && attempt !== null) await runRows(deps.knex, sql`DELETE FROM ${ident(failures.table)} WHERE "id" = ${attempt}::bigint`);
  };
  if (failures) {
    const t = ident(failures.table);
    const now = deps.clock.now().toISOString();
    // Counting and recording happen under transaction-scoped advisory locks on the username and the address
    // (taken in key order, so two attempts never wait on each other crosswise): a burst of concurrent guesses
    // is admitted one at a time, exactly up to the limit, instead of all recording first and all being refused.
    const admitted = await deps.knex.transaction(async (trx) => {
      await runRows(trx, sql`SELECT count(pg_advisory_xact_lock("k")) FROM (SELECT DISTINCT hashtextextended("v", 0) AS "k" FROM unnest(ARRAY[${`login user|${name}`}::text, ${`login address|${from}`}::text]) AS "v" ORDER BY 1) AS "keys"`);
      const [row] = await runRows<{ by_user: number; by_address: number }>(trx, sql`SELECT count(*) FILTER (WHERE "username" = ${name})::int AS "by_user", count(*) FILTER (WHERE "address" = ${from})::int AS "by_address"
           FROM ${t} WHERE "created" > ${since}::timestamptz`);
      if (row!.by_user >= PER_USERNAME || row!.by_address >= PER_ADDRESS) return false;
      const [inserted] = await runRows<{ id: number }>(trx, sql`INSERT INTO ${t} ("username", "address", "created", "last_updated") VALUES (${name}, ${from}, ${now}::timestamptz, ${now}::timestamptz) RETURNING "id"`);
      attempt = inserted!.id;
      return true;
    });
    if (!admitted) throw new HttpError(429, { detail: 'Too many failed login attempts. Try again later.' }, { 'Retry-After': String(WINDOW_MINUTES * 60) });
  }
  const [row] = await runRows<{ id: number; password: string; is_active: boolean }>(deps.knex, sql`SELECT "id", "password", "is_active" FROM ${ident(user.table)} WHERE "username" = ${username}`);
  const ok = await verifyPassword(password, row?.password ?? DUMMY_HASH);
  if (ok && row && row.is_active) {
    await forget();
    return row.id;
  }
  return null;
}
