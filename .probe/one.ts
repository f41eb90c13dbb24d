import { Client } from 'pg';
import { loadRegistry } from '../engine/boot';
import { listStatement } from '../engine/query/statements/read-statements';
import { Sql, sql } from '../engine/sql/fragment';
async function main() {
  const registry = loadRegistry('/work/main/schema');
  const c = new Client({ connectionString: process.env.DB ?? 'postgres://postgres@127.0.0.1:5432/scratch' });
  await c.connect(); await c.query('SET jit = off');
  const m = registry.models.get(process.argv[2]!)!;
  const omit = new Set((process.argv[4] ?? '').split(',').filter(Boolean));
  const st = listStatement(registry, { model: m, conditions: [process.env.WHERE ? Sql.fromPlaceholders(process.env.WHERE, []) : sql`TRUE`], ordering: m.ordering, limit: Number(process.argv[3] ?? 50), offset: 0, form: 'full', omit, json: { origin: 'http://x', revealSecrets: false } });
  const { sql: text, bindings } = st.toKnex();
  let i = 0;
  const pgText = text.replace(/\?/g, () => `$${++i}`);
  if (process.env.SHOW) console.log(pgText, bindings);
  const r = await c.query(`EXPLAIN (ANALYZE, SUMMARY ${process.env.BUF ? ', BUFFERS' : ''}) ${pgText}`, bindings as unknown[]);
  console.log(r.rows.map((x) => x['QUERY PLAN']).join('\n'));
  await c.end();
}
main();
