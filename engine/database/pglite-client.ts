import type { Knex } from 'knex';
import { parse, protocol, type PGlite, type Results } from '@electric-sql/pglite';
import ClientPgLite from 'knex-pglite';
import { MAX_PREPARED_PER_CONNECTION, preparedName } from './prepared-names';

interface QueryObject {
  sql: string;
  bindings?: readonly unknown[];
  options?: { prepared?: boolean };
  response?: Results;
}

/** The part of knex-pglite's client extended here. */
interface KnexPgLiteClient {
  _query(connection: PGlite, obj: QueryObject): Promise<QueryObject>;
}
const KnexPgLite = ClientPgLite as unknown as new (config: Knex.Config) => KnexPgLiteClient;

const message = protocol.serialize;

/** Per embedded database (one session each): the statements prepared in it, with their parameter types. */
const preparedIn = new WeakMap<PGlite, Map<string, number[]>>();

/**
 * Runs a statement under a name, preparing it first if this session has not: the extended protocol's
 * Parse with a name, then Bind/Describe/Execute/Sync each time, as PGlite's own query() does unnamed.
 * Run inside PGlite's public runExclusive (its query lock), so no other query's messages come between these.
 */
async function queryNamed(pg: PGlite, text: string, params: readonly unknown[]): Promise<Results> {
  return pg.runExclusive(async () => {
    let prepared = preparedIn.get(pg);
    if (!prepared) preparedIn.set(pg, (prepared = new Map()));
    const name = preparedName(text);
    const run = (m: Uint8Array) => pg.execProtocolStream(m, { syncToFs: false });
    const messages = [];
    try {
      let types = prepared.get(name);
      if (!types) {
        if (prepared.size >= MAX_PREPARED_PER_CONNECTION) {
          await run(message.query('DEALLOCATE ALL'));
          prepared.clear();
        }
        await run(message.parse({ name, text }));
        types = parse.parseDescribeStatementResults(await run(message.describe({ type: 'S', name })));
        prepared.set(name, types);
      }
      const paramTypes = types;
      const values = params.map((v, i) => {
        if (v === null || v === undefined) return null;
        const serialize = pg.serializers[paramTypes[i] ?? 0];
        return serialize ? serialize(v) : String(v);
      });
      messages.push(...(await run(message.bind({ statement: name, values }))));
      messages.push(...(await run(message.describe({ type: 'P' }))));
      messages.push(...(await run(message.execute({}))));
    } finally {
      messages.push(...(await run(message.sync())));
    }
    if (!pg.isInTransaction()) await pg.syncToFs();
    return parse.parseResults(messages, pg.parsers)[0]!;
  });
}

/**
 * knex-pglite's client, with the prepared statements the PostgreSQL client gets from pg's named
 * statements (engine/database/pg-client.ts): PGlite's query() sends every statement unnamed, so
 * PostgreSQL would plan a read's large statement on every request. A statement marked `prepared` is
 * prepared once in the session and then only bound and executed: PostgreSQL keeps and reuses its plan.
 */
export function pgliteClientClass(): typeof Knex.Client {
  class PatchbayPgLiteClient extends KnexPgLite {
    override async _query(connection: PGlite, obj: QueryObject): Promise<QueryObject> {
      if (!obj.options?.prepared) return super._query(connection, obj);
      if (!obj.sql) throw new Error('The query is empty');
      obj.response = await queryNamed(connection, obj.sql, obj.bindings ?? []);
      return obj;
    }
  }
  return PatchbayPgLiteClient as unknown as typeof Knex.Client;
}
