import { PGlite } from '@electric-sql/pglite';
import fs from 'node:fs';
const db = new PGlite();
const text = fs.readFileSync('migrations/0005_create_patchbay_jsonb_deep_merge.sql', 'utf8');
const parts = text.split(/;\n\n/);
for (const p of parts) { const s = p.replace(/^--.*$/mg, '').trim(); if (s) await db.query(s); }
const r = await db.query(`SELECT patchbay_jsonb_deep_merge_agg(d ORDER BY w)::text AS m FROM (VALUES ('{"a":{"b":1,"c":2},"x":1}'::jsonb, 1), ('{"a":{"b":5},"x":[1]}'::jsonb, 2)) v(d, w)`);
console.log(r.rows);
try { await db.query('SET jit = off'); console.log('jit off ok'); } catch (e) { console.log('jit err', e.message); }
