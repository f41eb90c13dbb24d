import type { Registry } from '../definitions/registry-types';
import type { Config } from '../config';
import type { Principal } from '../auth/authenticate';
import type { Clock } from '../auth/clock';
import type { CredentialCache } from '../auth/credential-cache';
import type { CustomFieldCache } from '../validation/custom-field-cache';
import type { Action, Scope } from '../auth/permissions';
import type { ResolvedModel } from '../definitions/registry-types';
import type { ChangeContext } from '../writes/change-context';
import type { Db } from '../database/db';
import type { Replicas } from '../database/open-replicas';
import type { WriteNotes } from '../maintenance/maintainer';

/** What every handler works with: the registry, the database and the settings, plus who is asking. */
export interface ApiContext {
  registry: Registry;
  knex: Db;
  config: Config;
  version: string;
  clock: Clock;
  embedded?: boolean;
  /** Tokens this process has looked up, for reads (createApp makes one when none is given). */
  credentials?: CredentialCache;
  /** Custom field definitions this process has read, for writes made in one statement (createApp makes one). */
  customFields?: CustomFieldCache;
  /** The standbys safe reads may use and this instance's write leases; absent without DATABASE_REPLICA_URLS. */
  replicas?: Replicas;
  /** Told of each write's rows, so that a table a large write changed is analyzed after it (engine/maintenance). */
  maintenance?: WriteNotes;
}

export interface CallContext extends ApiContext {
  principal: Principal | null;
  origin: string;
  query: URLSearchParams;
  requestId: string;
  /** What the caller may do with a model (permissions loaded once per request). */
  scope(model: ResolvedModel, action: Action): Promise<Scope>;
}

/** The caller and request the change log names for this call's writes. */
export function changeContextOf(ctx: CallContext): ChangeContext {
  return { userId: ctx.principal?.userId ?? null, userName: ctx.principal?.username ?? '', requestId: ctx.requestId, origin: ctx.origin };
}
