import { Client } from 'pg';
import { loadRegistry } from '/work/main/engine/boot';
import { listStatement } from '/work/main/engine/query/statements/read-statements';
import { sql } from '/work/main/engine/sql/fragment';

async function main() {
  const registry = loadRegistry('/work/main/schema');
  const c = new Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/scratch' });
  await c.connect(); await c.query('SET jit = off');
  const only = process.argv[2];
  const rows: Array<[string, number, number, number]> = [];
  for (let rep = 0; rep < 3; rep++) for (const m of registry.models.values()) {
    if (only && m.label !== only) continue;
    try {
      const st = listStatement(registry, { model: m, conditions: [sql`TRUE`], ordering: m.ordering, limit: 50, offset: 0, form: 'full', omit: new Set(), json: { origin: 'http://x', revealSecrets: false } });
      const { sql: text, bindings } = st.toKnex();
      let i = 0;
      const pgText = text.replace(/\?/g, () => `$${++i}`);
      const r = await c.query(`EXPLAIN (ANALYZE, SUMMARY, FORMAT JSON) ${pgText}`, bindings as unknown[]);
      const plan = r.rows[0]['QUERY PLAN'][0];
      rows.push([m.label, Math.round(plan['Planning Time']), Math.round(plan['Execution Time']), pgText.length]);
    } catch (e) { rows.push([m.label + ' ERR ' + (e as Error).message.slice(0, 80), 0, 0, 0]); }
  }
  rows.sort((a, b) => b[1] - a[1]);
  for (const r of rows.slice(0, 25)) console.log(r.join('\t'));
  await c.end();
}
main();
