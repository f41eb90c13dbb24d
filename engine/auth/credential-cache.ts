import { ident, sql, type Sql } from '../sql/fragment';
import { runRows } from '../database/run';
import { AUTH_VERSION_TABLE } from '../migrations/routines';
import type { Principal } from './authenticate';
import type { Grant } from './permissions';
import type { Db } from '../database/db';
import { currentRequestScope } from '../database/request-scope';

/** A token as looked up, kept so the next request with it need not look again. */
export interface CachedToken {
  tokenId: number;
  principal: Principal;
  /** The auth version the lookup saw: reads made with this entry check it is still current. */
  version: number;
  /** ms since the epoch; null: never expires. Checked on every use, against the server's clock. */
  expiresAtMs: number | null;
  allowedIps: string[] | null;
}

/** Beyond this many tokens the cache starts again empty rather than grow without bound. */
const MAX_ENTRIES = 10_000;

/**
 * Tokens and their users' permissions, per server process, so a read authenticates without a round trip.
 * Every read made with a cached entry carries `authVersionIsCurrent(version)` in its one statement:
 * a change to users, groups, tokens or permissions moves the version on in its own transaction
 * (engine/migrations/routines.ts), so the very next read on any instance sees it, raises StaleCredentials,
 * and the request is answered again after a fresh lookup. Writes never use the cache.
 */
export class CredentialCache {
  private readonly tokens = new Map<string, CachedToken>();
  /** user id -> their permissions, as loaded under an auth version. */
  private readonly grantsByUser = new Map<number, { version: number; grants: Grant[] }>();

  get(key: string): CachedToken | undefined {
    return this.tokens.get(key);
  }

  set(key: string, entry: CachedToken): void {
    if (this.tokens.size >= MAX_ENTRIES) this.tokens.clear();
    this.tokens.set(key, entry);
  }

  /** The user's permissions as loaded under this auth version, if they were. */
  grants(userId: number, version: number): Grant[] | undefined {
    const g = this.grantsByUser.get(userId);
    return g && g.version === version ? g.grants : undefined;
  }

  setGrants(userId: number, version: number, grants: Grant[]): void {
    if (this.grantsByUser.size >= MAX_ENTRIES) this.grantsByUser.clear();
    this.grantsByUser.set(userId, { version, grants });
  }

  /** Everything goes: one change may concern any user (a group's permissions). */
  clear(): void {
    this.tokens.clear();
    this.grantsByUser.clear();
  }
}

/** A read made with cached credentials found them out of date; nothing was answered yet. */
export class StaleCredentials extends Error {
  constructor() {
    super('the credentials this read was authorised with have changed');
    this.name = 'StaleCredentials';
  }
}

/** The auth version, read in the statement of whatever the request reads. */
export function currentAuthVersion(): Sql {
  return sql`(SELECT "version" FROM ${ident(AUTH_VERSION_TABLE)})`;
}

/**
 * True when the credentials a read was authorised with are still current (TRUE without cached credentials).
 * On a standby, also that the standby is fresh enough for this caller (engine/database/standby.ts): false
 * there has the request answered again on the primary.
 */
export function credentialsAreCurrent(principal: Principal | null): Sql {
  const version = principal?.authVersion;
  const credentials = version === undefined ? sql`TRUE` : sql`${currentAuthVersion()} = ${version}::bigint`;
  const standby = currentRequestScope()?.readFrom;
  return standby ? sql`(${credentials} AND ${standby.freshness(principal?.userId ?? null)})` : credentials;
}

/** Whether the auth version is still the one given: asked before refusing a caller on cached permissions. */
export async function authVersionIsCurrent(knex: Db, version: number): Promise<boolean> {
  const [row] = await runRows<{ current: boolean }>(knex, sql`SELECT ${currentAuthVersion()} = ${version}::bigint AS "current"`);
  return row?.current === true;
}
