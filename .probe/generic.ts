import { Client } from 'pg';
import { loadRegistry } from '../engine/boot';
import { listStatement } from '../engine/query/statements/read-statements';
import { Sql, sql } from '../engine/sql/fragment';
async function main() {
  const registry = loadRegistry('/work/main/schema');
  const c = new Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/patchbay_bench', options: '-c jit=off' });
  await c.connect();
  const m = registry.models.get(process.argv[2]!)!;
  const json = { origin: 'http://x', revealSecrets: false };
  const st = listStatement(registry, { model: m, conditions: [process.env.WHERE ? Sql.fromPlaceholders(process.env.WHERE, JSON.parse(process.env.BIND ?? '[]')) : sql`TRUE`], ordering: m.ordering, limit: Number(process.argv[3] ?? 50), offset: 0, form: (process.env.FORM as 'brief') ?? 'full', omit: new Set((process.env.OMIT ?? '').split(',').filter(Boolean)), json, current: sql`TRUE` });
  const { sql: text, bindings } = st.toKnex();
  let i = 0;
  const pgText = text.replace(/\?/g, () => `$${++i}`);
  await c.query(`SET plan_cache_mode = ${process.env.MODE ?? 'force_generic_plan'}`);
  await c.query({ name: 'x', text: pgText, values: bindings as unknown[] });
  const vals = (bindings as unknown[]).map((b) => (typeof b === 'string' ? `'${String(b).replace(/'/g, "''")}'` : typeof b === 'object' && b !== null ? `'${JSON.stringify(b).replace(/'/g, "''")}'` : String(b)));
  const r = await c.query(`EXPLAIN (ANALYZE) EXECUTE x(${vals.join(',')})`);
  console.log(r.rows.map((x) => x['QUERY PLAN']).join('\n'));
  await c.end();
}
main();
