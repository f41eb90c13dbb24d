/**
 * What Patchbay's database layer (engine/database/) costs per statement over the driver it wraps: the
 * same prepared statement through connectDatabase and through pg.Pool / PGlite directly, sequential and
 * 8 at a time. `npx tsx tests/bench/driver-overhead.ts [postgres://...]`; without a URL, PGlite only.
 * (It measured knex the same way before the layer replaced it: docs/operations.md has both.)
 */
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { connectDatabase } from '../../engine/database/connect';
import { runRows } from '../../engine/database/run';
import { sql } from '../../engine/sql/fragment';

const N = 20_000;
const STATEMENT = 'SELECT g AS id, md5(g::text) AS name FROM generate_series(1, 20) g WHERE g > $1';

async function timeIt(label: string, concurrency: number, once: () => Promise<unknown>): Promise<void> {
  for (let i = 0; i < 500; i++) await once(); // warm: plans, prepared statements, JIT of this process
  const started = process.hrtime.bigint();
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next++ < N) await once();
  }));
  const us = Number(process.hrtime.bigint() - started) / 1000 / N;
  console.log(`${label.padEnd(44)} c${concurrency}  ${us.toFixed(1).padStart(6)} µs/statement  ${(1e6 / us).toFixed(0).padStart(6)} /s`);
}

async function main(): Promise<void> {
  const url = process.argv[2];
  const statement = sql`SELECT g AS id, md5(g::text) AS name FROM generate_series(1, 20) g WHERE g > ${0}`;
  if (url) {
    const db = await connectDatabase({ url, poolMax: 8 });
    const pool = new pg.Pool({ connectionString: url, max: 8 });
    for (const c of [1, 8]) {
      await timeIt('PostgreSQL, Patchbay layer (named statement)', c, () => runRows(db.knex, statement));
      await timeIt('PostgreSQL, pg.Pool named statement', c, () => pool.query({ name: 'bench', text: STATEMENT, values: [0] }));
    }
    await db.close();
    await pool.end();
  }
  const db = await connectDatabase({});
  const lite = new PGlite();
  for (const c of [1, 8]) {
    await timeIt('PGlite, Patchbay layer (named statement)', c, () => runRows(db.knex, statement));
    await timeIt('PGlite, query() unnamed', c, () => lite.query(STATEMENT, [0]));
  }
  await db.close();
  await lite.close();
}

void main();
