/**
 * What `SET LOCAL jit = off` per read would cost, beside the database setting Patchbay uses in
 * DATABASE_POOL_MODE=transaction (docs/scaling-out/pgbouncer.md): a 50-row read run unnamed N times, then N
 * times wrapped in BEGIN; SET LOCAL jit = off; <read>; COMMIT, one client, on the URL given (a migrated and
 * seeded database, e.g. the bench's, directly or through PgBouncer).
 *
 *   npx tsx tests/bench/set-local-cost.ts postgres://postgres@127.0.0.1:6460/bench_bouncer [N]
 */
import pg from 'pg';

async function main(url: string, n: number): Promise<void> {
  const client = new pg.Client(url);
  await client.connect();
  const read = { text: 'SELECT "id", "name" FROM "dcim_site" WHERE "id" > $1 ORDER BY "id" LIMIT 50', values: [0] };
  try {
    for (let i = 0; i < 200; i++) await client.query(read);
    let started = performance.now();
    for (let i = 0; i < n; i++) await client.query(read);
    const plain = (performance.now() - started) / n;
    started = performance.now();
    for (let i = 0; i < n; i++) {
      await client.query('BEGIN');
      await client.query('SET LOCAL jit = off');
      await client.query(read);
      await client.query('COMMIT');
    }
    const local = (performance.now() - started) / n;
    console.log(`plain unnamed read: ${plain.toFixed(3)} ms; BEGIN + SET LOCAL jit + read + COMMIT: ${local.toFixed(3)} ms (${n} each)`);
  } finally {
    await client.end();
  }
}

const [url, count] = process.argv.slice(2);
if (!url) {
  console.error('usage: tsx tests/bench/set-local-cost.ts <postgres url> [N]');
  process.exit(2);
}
main(url, Number(count ?? 2000)).catch((e: unknown) => {
  console.error((e as Error).message);
  process.exit(1);
});
