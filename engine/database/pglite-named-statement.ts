import { parse, protocol, type PGlite, type Results } from '@electric-sql/pglite';
import { MAX_PREPARED_PER_CONNECTION, preparedName } from './prepared-names';

const message = protocol.serialize;

/** Per embedded database (one session each): the statements prepared in it, with their parameter types. */
const preparedIn = new WeakMap<PGlite, Map<string, number[]>>();

/**
 * Runs a statement under a name, preparing it first if this session has not: the extended protocol's
 * Parse with a name, then Bind/Describe/Execute/Sync each time, as PGlite's own query() does unnamed.
 * Run inside PGlite's public runExclusive (its query lock), so no other query's messages come between these.
 */
export async function queryNamed(pg: PGlite, text: string, params: readonly unknown[]): Promise<Results> {
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
