import type { AuthDeps } from './authenticate';
import { ident, sql } from '../sql/fragment';
import { runRows } from '../query/statements/run';
import { DUMMY_HASH, verifyPasswordAsync } from './passwords';
import { HttpError } from '../errors/http-error';

/** Failed attempts allowed in the window, per username and per client address. */
const WINDOW_MINUTES = 15;
const PER_USERNAME = 10;
const PER_ADDRESS = 30;

/**
 * Checks a username and password: rate-limited per client address and per username (failures are
 * kept in the database, so every instance counts them), constant-time, and the same work whether or
 * not the user exists. Returns the user's id, or null for wrong credentials.
 *
 * Each attempt is recorded as a failure before the password is checked (and forgotten if it succeeds
 * or is refused), so concurrent guesses count against each other: at most PER_USERNAME are ever in
 * flight or failed within the window, however many arrive at once.
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
    const [inserted] = await runRows<{ id: number }>(deps.knex, sql`INSERT INTO ${t} ("username", "address", "created", "last_updated") VALUES (${name}, ${from}, ${now}::timestamptz, ${now}::timestamptz) RETURNING "id"`);
    attempt = inserted!.id;
    const [row] = await runRows<{ by_user: number; by_address: number }>(deps.knex, sql`SELECT count(*) FILTER (WHERE "username" = ${name})::int AS "by_user", count(*) FILTER (WHERE "address" = ${from})::int AS "by_address"
         FROM ${t} WHERE "created" > ${since}::timestamptz`);
    // The counts include this attempt.
    if (row!.by_user > PER_USERNAME || row!.by_address > PER_ADDRESS) {
      await forget();
      throw new HttpError(429, { detail: 'Too many failed login attempts. Try again later.' }, { 'Retry-After': String(WINDOW_MINUTES * 60) });
    }
  }
  const [row] = await runRows<{ id: number; password: string; is_active: boolean }>(deps.knex, sql`SELECT "id", "password", "is_active" FROM ${ident(user.table)} WHERE "username" = ${username}`);
  const ok = await verifyPasswordAsync(password, row?.password ?? DUMMY_HASH);
  if (ok && row && row.is_active) {
    await forget();
    return row.id;
  }
  return null;
}
