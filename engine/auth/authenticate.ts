import type { Knex } from 'knex';
import type { Request } from 'express';
import { HttpError } from '../routes/http-error';
import type { Registry } from '../definitions/registry-types';
import type { Config } from '../config';
import type { Clock } from './clock';
import { authTables } from './auth-tables';
import { clientAddress, inNetworks } from './client-address';
import { sessionPrincipal } from './sessions';

/** Who is asking: a user known through a token or a browser session, or nobody. */
export interface Principal {
  userId: number;
  username: string;
  isSuperuser: boolean;
  /** The token used, or null for a browser session. */
  tokenId: number | null;
  writeEnabled: boolean;
  /** A session's CSRF token: unsafe requests authenticated by cookie must echo it. */
  csrfToken?: string;
}

interface TokenRow {
  id: number;
  expired: boolean;
  write_enabled: boolean;
  allowed_ips: string[] | null;
  stale: boolean;
  user_id: number;
  username: string;
  is_active: boolean;
  is_superuser: boolean;
}

const TOKEN_HEADER = /^Token\s+(\S+)\s*$/i;
/** NetBox records a token's use at most once a minute. */
const LAST_USED_INTERVAL_SECONDS = 60;

/**
 * Uses this process has just recorded, per database and token id: a burst of requests on a stale token
 * sends one UPDATE, not one each (the UPDATE's own condition keeps other instances to one a minute).
 */
const recordedUses = new WeakMap<object, Map<number, number>>();

function claimUse(db: object, tokenId: number, nowMs: number): boolean {
  const interval = LAST_USED_INTERVAL_SECONDS * 1000;
  let seen = recordedUses.get(db);
  if (!seen) recordedUses.set(db, (seen = new Map()));
  const last = seen.get(tokenId);
  if (last !== undefined && nowMs - last < interval) return false;
  if (seen.size >= 10_000) for (const [id, at] of seen) if (nowMs - at >= interval) seen.delete(id);
  seen.set(tokenId, nowMs);
  return true;
}

export interface AuthDeps {
  knex: Knex;
  registry: Registry;
  config: Config;
  clock: Clock;
}

/**
 * Reads `Authorization: Token <key>` (or, without one, the session cookie). No credentials means
 * anonymous; bad credentials are refused with NetBox's words.
 */
export async function authenticate(deps: AuthDeps, req: Request): Promise<Principal | null> {
  const header = req.headers.authorization;
  if (!header) return sessionPrincipal(deps, req);
  const m = TOKEN_HEADER.exec(header);
  if (!m) throw new HttpError(403, { detail: 'Invalid token header. No credentials provided.' });
  const key = m[1]!;
  if (!/^[0-9a-fA-F]{40}$/.test(key)) throw new HttpError(403, { detail: 'Invalid token' });
  const { users, tokens } = authTables(deps.registry);
  const now = deps.clock.now().toISOString();
  const result = await deps.knex.raw(
    `SELECT t."id", (t."expires" IS NOT NULL AND t."expires" <= ?::timestamptz) AS "expired", t."write_enabled", t."allowed_ips"::text[] AS "allowed_ips",
            (t."last_used" IS NULL OR t."last_used" < ?::timestamptz - interval '${LAST_USED_INTERVAL_SECONDS} seconds') AS "stale",
            u."id" AS "user_id", u."username", u."is_active", u."is_superuser"
       FROM ${tokens} t JOIN ${users} u ON u."id" = t."user_id"
      WHERE t."key" = ?`,
    [now, now, key],
  );
  const row = (result.rows as TokenRow[])[0];
  if (!row) throw new HttpError(403, { detail: 'Invalid token' });
  if (!row.is_active) throw new HttpError(403, { detail: 'User inactive or deleted.' });
  if (row.expired) throw new HttpError(403, { detail: 'Token expired' });
  if (row.allowed_ips && row.allowed_ips.length) {
    const addr = clientAddress(req, deps.config.trustedProxies);
    if (!addr || !inNetworks(addr, row.allowed_ips)) {
      throw new HttpError(403, { detail: `Source IP ${addr?.toString() ?? 'unknown'} is not permitted to authenticate using this token.` });
    }
  }
  if (row.stale && !deps.config.maintenanceMode && claimUse(deps.knex, row.id, deps.clock.now().getTime())) {
    // The condition is repeated in the UPDATE so concurrent requests record one use, not one each.
    await deps.knex.raw(
      `UPDATE ${tokens} SET "last_used" = ?::timestamptz, "last_updated" = ?::timestamptz
        WHERE "id" = ? AND ("last_used" IS NULL OR "last_used" < ?::timestamptz - interval '${LAST_USED_INTERVAL_SECONDS} seconds')`,
      [now, now, row.id, now],
    );
  }
  return {
    userId: row.user_id,
    username: row.username,
    isSuperuser: row.is_superuser,
    tokenId: row.id,
    writeEnabled: row.write_enabled,
  };
}
