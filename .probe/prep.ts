import { Client } from 'pg';
import { loadRegistry } from '../engine/boot';
import { listStatement, objectsStatement } from '../engine/query/statements/read-statements';
import { Sql, sql } from '../engine/sql/fragment';
async function main() {
  const registry = loadRegistry('/work/main/schema');
  const c = new Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/patchbay_bench', options: '-c jit=off' });
  await c.connect();
  const m = registry.models.get(process.argv[2]!)!;
  const json = { origin: 'http://x', revealSecrets: false };
  const st = process.argv[3] === 'detail'
    ? objectsStatement(registry, { model: m, conditions: [sql`"t"."id" = ${Number(process.argv[4])}`], form: 'full', omit: new Set(), json })
    : listStatement(registry, { model: m, conditions: [process.env.WHERE ? Sql.fromPlaceholders(process.env.WHERE, []) : sql`TRUE`], ordering: m.ordering, limit: Number(process.argv[4] ?? 50), offset: 0, form: (process.env.FORM as 'brief') ?? 'full', omit: new Set((process.env.OMIT ?? '').split(',').filter(Boolean)), json });
  const { sql: text, bindings } = st.toKnex();
  let i = 0;
  const pgText = text.replace(/\?/g, () => `$${++i}`);
  for (const named of [false, true]) {
    const times: number[] = [];
    for (let k = 0; k < 12; k++) {
      const t0 = performance.now();
      await c.query(named ? { name: 'x', text: pgText, values: bindings as unknown[] } : { text: pgText, values: bindings as unknown[] });
      times.push(Math.round((performance.now() - t0) * 10) / 10);
    }
    console.log(named ? 'named  ' : 'unnamed', times.join(' '));
  }
  await c.end();
}
main();
