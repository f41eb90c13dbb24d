import type { Knex } from 'knex';
import type { Request } from 'express';
import { HttpError } from '../routes/http-error';
import type { Registry } from '../definitions/registry-types';
import { authTables } from './auth-tables';

/** Who is asking: a user known through a token, or nobody. */
export interface Principal {
  userId: number;
  username: string;
  isSuperuser: boolean;
  tokenId: number;
  writeEnabled: boolean;
}

interface TokenRow {
  id: number;
  expired: boolean;
  write_enabled: boolean;
  user_id: number;
  username: string;
  is_active: boolean;
  is_superuser: boolean;
}

const TOKEN_HEADER = /^Token\s+(\S+)\s*$/i;

/** Reads `Authorization: Token <key>`; no header means anonymous, a bad token is refused with NetBox's words. */
export async function authenticate(db: Knex, registry: Registry, req: Request): Promise<Principal | null> {
  const header = req.headers.authorization;
  if (!header) return null;
  const m = TOKEN_HEADER.exec(header);
  if (!m) throw new HttpError(403, { detail: 'Invalid token header. No credentials provided.' });
  const key = m[1]!;
  if (!/^[0-9a-fA-F]{40}$/.test(key)) throw new HttpError(403, { detail: 'Invalid token' });
  const { users, tokens } = authTables(registry);
  const result = await db.raw(
    `SELECT t."id", (t."expires" IS NOT NULL AND t."expires" <= now()) AS "expired", t."write_enabled",
            u."id" AS "user_id", u."username", u."is_active", u."is_superuser"
       FROM ${tokens} t JOIN ${users} u ON u."id" = t."user_id"
      WHERE t."key" = ?`,
    [key],
  );
  const row = (result.rows as TokenRow[])[0];
  if (!row) throw new HttpError(403, { detail: 'Invalid token' });
  if (row.expired) throw new HttpError(403, { detail: 'Token expired' });
  if (!row.is_active) throw new HttpError(403, { detail: 'User inactive or deleted.' });
  return {
    userId: row.user_id,
    username: row.username,
    isSuperuser: row.is_superuser,
    tokenId: row.id,
    writeEnabled: row.write_enabled,
  };
}
