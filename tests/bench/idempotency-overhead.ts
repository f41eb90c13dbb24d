/**
 * What an Idempotency-Key costs a write: sequential POSTs of one site, with and without the header,
 * against a real listening server, in alternating rounds (medians reported, so load that comes and goes on
 * the machine falls on both alike), plus the statements each sends and what a replay costs.
 * `TEST_DATABASE_URL=postgres://... npx tsx tests/bench/idempotency-overhead.ts`; without the URL, PGlite.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../engine/app';
import { startTestApp } from '../support/test-app';

const ROUNDS = 7;
const PER_ROUND = 150;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const t = await startTestApp();
  const app = createApp({ registry: t.registry, knex: t.knex, config: t.config, version: 'bench', embedded: t.db.embedded, clock: t.clock });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let seq = 0;
  const post = async (headers: Record<string, string>, body?: unknown): Promise<number> => {
    seq++;
    const res = await fetch(`${base}/api/dcim/sites/`, {
      method: 'POST',
      headers: { ...t.auth, 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body ?? { name: `bench ${seq}`, slug: `bench-${seq}` }),
    });
    await res.arrayBuffer();
    return res.status;
  };
  const plain = () => post({});
  const keyed = () => post({ 'Idempotency-Key': `bench-key-${seq}` });
  const replayBody = { name: 'replayed', slug: 'replayed' };
  const replay = () => post({ 'Idempotency-Key': 'the-replayed-key' }, replayBody);

  const timeBlock = async (once: () => Promise<number>): Promise<number> => {
    const started = process.hrtime.bigint();
    for (let i = 0; i < PER_ROUND; i++) {
      const status = await once();
      if (status !== 201) throw new Error(`answered ${status}`);
    }
    return Number(process.hrtime.bigint() - started) / 1000 / PER_ROUND;
  };

  const statements = async (once: () => Promise<number>): Promise<number> => {
    t.queries.reset();
    await once();
    return t.queries.count;
  };
  for (let i = 0; i < 100; i++) await Promise.all([plain(), keyed()]);
  await replay();
  const counts = { plain: await statements(plain), keyed: await statements(keyed), replay: await statements(replay) };

  const times: Record<'plain' | 'keyed' | 'replay', number[]> = { plain: [], keyed: [], replay: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? (['keyed', 'plain', 'replay'] as const) : (['plain', 'keyed', 'replay'] as const);
    for (const name of order) times[name].push(await timeBlock({ plain, keyed, replay }[name]));
  }
  const db = t.db.embedded ? 'PGlite (embedded)' : 'PostgreSQL';
  process.stdout.write(`Idempotency-Key overhead, ${db}, sequential POST /api/dcim/sites/ (one site), ${ROUNDS} rounds x ${PER_ROUND}, median µs per request:\n`);
  for (const name of ['plain', 'keyed', 'replay'] as const) {
    process.stdout.write(`  ${name.padEnd(7)} ${median(times[name]).toFixed(0).padStart(6)} µs   ${counts[name]} statements\n`);
  }
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await t.close();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
