// What read replicas cost a write and a read, against the scale-out cluster (tools/replication/cluster.sh):
// an instance without DATABASE_REPLICA_URLS and one with it, each alone, same database, sequential requests.
//   eval "$(bash tools/replication/cluster.sh env)"
//   SCALE_OUT_PRIMARY_URL=$PRIMARY_URL SCALE_OUT_STANDBY_URL=$STANDBY_URL SCALE_OUT_CLUSTER=$PWD/tools/replication/cluster.sh npx tsx tests/bench/write-lease-cost.ts
import { api, cluster, migrate, ownDatabase, sleep, startInstance, superuser, untilStandbyState } from '../scale-out/scale-out-support';

function summary(ms: number[]): string {
  const s = [...ms].sort((x, y) => x - y);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!.toFixed(1);
  return `median ${at(0.5)} ms, p95 ${at(0.95)} ms (n=${s.length})`;
}

async function timed(f: () => Promise<{ status: number }>, expected: number): Promise<number> {
  const t = performance.now();
  const r = await f();
  if (r.status !== expected) throw new Error(`status ${r.status}, expected ${expected}`);
  return performance.now() - t;
}

async function main(): Promise<void> {
  const db = await ownDatabase('pb_leasebench');
  await migrate(db.primary);
  const admin = await superuser(db.primary, 'admin');
  const reader = await superuser(db.primary, 'reader');
  const plain = await startInstance(db, { DATABASE_REPLICA_URLS: '' });
  const routed = await startInstance(db);
  try {
    await untilStandbyState(routed.base, admin, 'up');
    const site = (await api(plain.base, admin, 'POST', '/api/dcim/sites/', { name: 'bench', slug: 'bench' })).body.id as number;
    const bases = { 'without replicas': plain.base, 'with replicas': routed.base };
    for (const base of Object.values(bases)) for (let i = 0; i < 20; i++) await api(base, admin, 'PATCH', `/api/dcim/sites/${site}/`, { description: `warm ${i}` });
    // Past the lease's first REPLICA_MAX_LAG + 1 s, the instance skips the upsert.
    await sleep(7000);
    const writes: Record<string, number[]> = { 'without replicas': [], 'with replicas': [] };
    const reads: Record<string, number[]> = { 'without replicas': [], 'with replicas': [] };
    // Interleaved, so that the machine's other load weighs on both alike.
    for (let i = 0; i < 300; i++) {
      for (const [label, base] of Object.entries(bases)) {
        writes[label]!.push(await timed(() => api(base, admin, 'PATCH', `/api/dcim/sites/${site}/`, { description: `w ${i}` }), 200));
        reads[label]!.push(await timed(() => api(base, reader, 'GET', `/api/dcim/sites/${site}/`), 200));
      }
    }
    for (const label of Object.keys(bases)) console.log(`${label}: PATCH ${summary(writes[label]!)}; GET detail by a user who does not write ${summary(reads[label]!)}`);
    const status = await api(routed.base, admin, 'GET', '/api/status/');
    console.log(`with replicas, /api/status/: ${JSON.stringify(status.body.patchbay.replicas)}`);
    const fresh: string[] = [];
    for (let i = 0; i < 10; i++) fresh.push(await superuser(db.primary, `first${i}`));
    for (const delay of [0, 1000]) {
      cluster('delay', String(delay));
      await sleep(3000);
      const firsts: number[] = [];
      // A user's first write takes a lease new to the standby and waits until the standby shows it.
      for (const token of fresh.splice(0, 5)) firsts.push(await timed(() => api(routed.base, token, 'PATCH', `/api/dcim/sites/${site}/`, { description: token }), 200));
      console.log(`standby apply delay ${delay} ms: a user's first write (PATCH) ${summary(firsts)}`);
    }
  } finally {
    cluster('delay', '0');
    await Promise.all([plain.stop(), routed.stop()]);
    await db.drop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
