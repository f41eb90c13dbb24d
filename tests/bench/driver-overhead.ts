/**
 * What Patchbay's database layer (engine/database/) costs per statement over the driver it wraps: the
 * same prepared statement through connectDatabase and through pg.Pool / PGlite directly, sequential and
 * 8 at a time. `npx tsx tests/bench/driver-overhead.ts [postgres://...]`; without a URL, PGlite only.
 * The two take turns in rounds and the medians are reported, so load that comes and goes on the machine
 * falls on both alike. (The same file measured knex before the layer replaced it, by checking out that
 * commit and running it there: docs/operations.md has both.)
 */
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { connectDatabase } from '../../engine/database/connect';
import { runRows } from '../../engine/database/run';
import { sql } from '../../engine/sql/fragment';

const ROUNDS = 9;
const PER_ROUND = 2_000;
const STATEMENT = 'SELECT g AS id, md5(g::text) AS name FROM generate_series(1, 20) g WHERE g > $1';

async function timeBlock(concurrency: number, once: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next++ < PER_ROUND) await once();
  }));
  return Number(process.hrtime.bigint() - started) / 1000 / PER_ROUND;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** µs per statement of each contender (median over rounds) and of the difference (median of each round's). */
async function compare(label: string, concurrency: number, layer: () => Promise<unknown>, driver: () => Promise<unknown>): Promise<void> {
  for (let i = 0; i < 500; i++) await Promise.all([layer(), driver()]); // warm: plans, prepared statements, JIT of this process
  const a: number[] = [];
  const b: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Alternating which goes first, so neither always follows the other's garbage.
    if (round % 2) b.push(await timeBlock(concurrency, driver));
    a.push(await timeBlock(concurrency, layer));
    if (!(round % 2)) b.push(await timeBlock(concurrency, driver));
  }
  const diff = median(a.map((x, i) => x - b[i]!));
  console.log(`${label.padEnd(11)} c${concurrency}  layer ${median(a).toFixed(1).padStart(6)} µs  driver ${median(b).toFixed(1).padStart(6)} µs  layer - driver ${diff.toFixed(1).padStart(6)} µs/statement`);
}

async function main(): Promise<void> {
  const url = process.argv[2];
  const statement = sql`SELECT g AS id, md5(g::text) AS name FROM generate_series(1, 20) g WHERE g > ${0}`;
  console.log('layer: connectDatabase + runRows (named statement); driver: pg.Pool named statement, PGlite query() unnamed');
  if (url) {
    const db = await connectDatabase({ url, poolMax: 8 });
    const pool = new pg.Pool({ connectionString: url, max: 8 });
    for (const c of [1, 8]) {
      await compare('PostgreSQL', c, () => runRows(db.knex, statement), () => pool.query({ name: 'bench', text: STATEMENT, values: [0] }));
    }
    await db.close();
    await pool.end();
  }
  const db = await connectDatabase({});
  const lite = new PGlite();
  for (const c of [1, 8]) {
    await compare('PGlite', c, () => runRows(db.knex, statement), () => lite.query(STATEMENT, [0]));
  }
  await db.close();
  await lite.close();
}

void main();
