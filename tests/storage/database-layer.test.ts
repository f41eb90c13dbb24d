import { connectDatabase, type Database } from '../../engine/database/connect';
import { positional } from '../../engine/database/placeholders';
import type { QueryEvent } from '../../engine/database/db';
import { TEST_DATABASE_URL } from '../support/test-app';
import crypto from 'node:crypto';

/** Engine/database's Db: the semantics callers had from knex, on whichever database the suite runs. */

test('? holes become $n in order; \\? is a plain ?; a count that does not match is refused', () => {
  expect(positional(`SELECT ?, '{}'::jsonb \\? 'k', ?`, [1, 'a'])).toEqual({ text: `SELECT $1, '{}'::jsonb ? 'k', $2`, values: [1, 'a'] });
  expect(() => positional('SELECT ?', [])).toThrow('Expected 1 bindings, saw 0');
  expect(() => positional('SELECT 1', [1])).toThrow('Expected 0 bindings, saw 1');
});

describe('on the database', () => {
  const schema = TEST_DATABASE_URL ? `t_${crypto.randomBytes(6).toString('hex')}` : undefined;
  let database: Database;
  const events: QueryEvent[] = [];
  beforeAll(async () => {
    // The URL's own start-up options are kept beside the layer's (search_path from `schema`, jit=off).
    const url = TEST_DATABASE_URL ? `${TEST_DATABASE_URL}${TEST_DATABASE_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent('-c work_mem=7MB')}` : undefined;
    database = await connectDatabase(url ? { url, schema, poolMax: 2 } : {});
    database.knex.on('query', (q) => events.push(q));
    await database.knex.raw(`CREATE TABLE "layer_t" ("id" int PRIMARY KEY, "v" text)`);
  });
  afterAll(async () => {
    if (schema) await database.knex.raw(`DROP SCHEMA "${schema}" CASCADE`);
    else await database.knex.raw(`DROP TABLE "layer_t"`);
    await database.close();
  });

  (TEST_DATABASE_URL ? test : test.skip)('a connection has the URL\'s options and the layer\'s together', async () => {
    const { rows } = await database.knex.raw<{ work_mem: string; jit: string; search_path: string }>(
      `SELECT current_setting('work_mem') AS "work_mem", current_setting('jit') AS "jit", current_setting('search_path') AS "search_path"`,
    );
    expect(rows).toEqual([{ work_mem: '7MB', jit: 'off', search_path: `"${schema}"` }]);
  });

  test('values are bound, never SQL; rowCount counts what a write touched', async () => {
    const hostile = `x'); DROP TABLE "layer_t"; --`;
    const ins = await database.knex.raw(`INSERT INTO "layer_t" VALUES (?, ?), (?, ?)`, [1, hostile, 2, '?']);
    expect(ins.rowCount).toBe(2);
    const { rows } = await database.knex.run<{ v: string }>({ text: 'SELECT "v" FROM "layer_t" WHERE "id" = ANY($1) ORDER BY "id"', values: [[1, 2]] }, { prepared: true });
    expect(rows).toEqual([{ v: hostile }, { v: '?' }]);
    await expect(database.knex.raw('SELECT ?::int', [undefined])).rejects.toThrow('Undefined binding(s) detected');
  });

  test('a transaction commits when its work resolves, rolls back and passes the error on when it rejects', async () => {
    events.length = 0;
    const result = await database.knex.transaction(async (trx) => {
      await trx.raw(`INSERT INTO "layer_t" VALUES (10, 'kept')`);
      return 'done';
    });
    expect(result).toBe('done');
    expect(events.map((e) => e.sql)).toEqual(['BEGIN;', `INSERT INTO "layer_t" VALUES (10, 'kept')`, 'COMMIT;']);

    const failure = new Error('work failed');
    await expect(database.knex.transaction(async (trx) => {
      await trx.raw(`INSERT INTO "layer_t" VALUES (11, 'undone')`);
      throw failure;
    })).rejects.toBe(failure);
    const { rows } = await database.knex.raw<{ id: number }>(`SELECT "id" FROM "layer_t" WHERE "id" >= 10 ORDER BY "id"`);
    expect(rows).toEqual([{ id: 10 }]);
  });

  test('a nested transaction is a savepoint; a transaction used after its end refuses', async () => {
    let leaked: { raw(sql: string): Promise<unknown> } | undefined;
    await database.knex.transaction(async (trx) => {
      leaked = trx;
      await trx.raw(`INSERT INTO "layer_t" VALUES (20, 'outer')`);
      await expect(trx.transaction(async (inner) => {
        await inner.raw(`INSERT INTO "layer_t" VALUES (21, 'inner')`);
        await inner.raw(`INSERT INTO "layer_t" VALUES (20, 'duplicate')`);
      })).rejects.toMatchObject({ code: '23505' });
      await trx.raw(`INSERT INTO "layer_t" VALUES (22, 'after')`);
    });
    const { rows } = await database.knex.raw<{ id: number }>(`SELECT "id" FROM "layer_t" WHERE "id" >= 20 ORDER BY "id"`);
    expect(rows).toEqual([{ id: 20 }, { id: 22 }]);
    await expect(leaked!.raw('SELECT 1')).rejects.toThrow('Transaction query already complete');
  });

  test('a statement outside a transaction never lands inside it, and sees its rows only once committed', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let inserted!: () => void;
    const insertedYet = new Promise<void>((resolve) => (inserted = resolve));
    const trx = database.knex.transaction(async (t) => {
      await t.raw(`INSERT INTO "layer_t" VALUES (30, 'pending')`);
      inserted();
      await held;
      throw new Error('changed my mind');
    });
    await insertedYet;
    const outside = database.knex.raw<{ n: number }>(`SELECT count(*)::int AS "n" FROM "layer_t" WHERE "id" = 30`);
    release();
    await expect(trx).rejects.toThrow('changed my mind');
    expect((await outside).rows).toEqual([{ n: 0 }]);
  });

  test('errors are PostgreSQL\'s, with its code, and carry no bound value', async () => {
    const secret = 'token-0123456789abcdef';
    const err = await database.knex.raw(`INSERT INTO "layer_t" VALUES (1, ?)`, [secret]).then(() => null, (e: unknown) => e);
    expect(err).toMatchObject({ code: '23505', constraint: 'layer_t_pkey' });
    expect(JSON.stringify(err)).not.toContain(secret);
    expect(String((err as Error).message)).not.toContain(secret);
  });
});
