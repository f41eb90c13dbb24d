import type { Knex } from 'knex';
import type { Registry } from '../definitions/registry-types';
import type { Config } from '../config';
import type { Principal } from '../auth/authenticate';
import type { Serializer } from '../serialization/serialize';

/** What every handler works with: the registry, the database and the settings, plus who is asking. */
export interface ApiContext {
  registry: Registry;
  knex: Knex;
  config: Config;
  version: string;
}

export interface CallContext extends ApiContext {
  principal: Principal | null;
  origin: string;
  serializer: Serializer;
  query: URLSearchParams;
  requestId: string;
}
