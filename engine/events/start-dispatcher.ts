import type { Registry } from '../definitions/registry-types';
import type { Config } from '../config';
import { Dispatcher } from './dispatcher';
import { configureSharedSandbox } from '../sandbox/shared-sandbox';
import type { Db } from '../database/db';

/** Starts a dispatcher of the outbox when the definitions have one (null otherwise). */
export function startDispatcher(knex: Db, registry: Registry, config: Config): Dispatcher | null {
  if (!registry.roles.has('event_outbox') || !registry.roles.has('event_rule') || !registry.roles.has('webhook')) return null;
  configureSharedSandbox(config);
  const d = new Dispatcher({ knex, registry, config, log: (line) => console.error(line) });
  d.start();
  return d;
}
