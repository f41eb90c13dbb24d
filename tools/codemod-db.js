#!/usr/bin/env node
/**
 * Moves TypeScript from knex's types to engine/database/db.ts's (knex was replaced by a typed layer of
 * Patchbay's own). For branches made before the change: run `node tools/codemod-db.js [dirs...]`
 * (default engine tests) from the repository root, then `npx tsc --noEmit -p .`.
 *
 *   import type { Knex } from 'knex'   ->  import type { Db, DbTransaction } from '<relative>/engine/database/db'
 *   Knex | Knex.Transaction            ->  Db (and a local `type Db = Knex | Knex.Transaction` goes)
 *   Knex.Transaction                   ->  DbTransaction
 *   Knex.RawBinding                    ->  unknown
 *   Knex (as a type)                   ->  Db
 *   raw<{ rows: Array<T> }>(...)       ->  raw<T>(...)
 *   fragment.toKnex()                  ->  fragment.toPositional() (then `db.run(statement)` instead of `db.raw(sql, bindings)`)
 *
 * The Database handle's field keeps its name (`db.knex`, `ctx.knex`, `t.knex`): nothing to rename.
 * What it cannot do is reported, not guessed: the query builder (`knex('table')...`), `knex.schema`,
 * `knex.migrate`, `.timeout()`, `.options()`, `knex.client`.
 */
const fs = require('node:fs');
const path = require('node:path');

const ROOT = process.cwd();
const DB_MODULE = path.join(ROOT, 'engine', 'database', 'db');

function files(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'dist' ? [] : files(p);
    return /\.(ts|tsx)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

function rewrite(file, text) {
  let out = text
    // Db covers both: every Db method works on the database and in a transaction alike.
    .replace(/\bKnex \| Knex\.Transaction\b/g, 'Knex')
    .replace(/^(export )?type Db = Knex;\n/gm, '')
    .replace(/\bKnex\.Transaction\b/g, 'DbTransaction')
    .replace(/\bKnex\.RawBinding\b/g, 'unknown')
    .replace(/\.toKnex\(\)/g, '.toPositional()')
    // knex's raw<T> named the whole result, Db's raw<R> names a row.
    .replace(/\.raw<\{ rows: Array<(.+?)> \}>\(/g, '.raw<$1>(')
    .replace(/\.raw<\{ rows: (.+?)\[\] \}>\(/g, '.raw<$1>(');
  const importRe = /^import type \{ Knex \} from 'knex';\n/m;
  if (importRe.test(out)) {
    out = out.replace(importRe, '');
    out = out.replace(/(?<![.\w'"])Knex\b(?![.\w'"])/g, 'Db');
    const names = ['Db', 'DbTransaction'].filter((n) => new RegExp(`\\b${n}\\b`).test(out));
    let rel = path.relative(path.dirname(file), DB_MODULE).split(path.sep).join('/');
    if (!rel.startsWith('.')) rel = `./${rel}`;
    if (names.length) {
      const line = `import type { ${names.join(', ')} } from '${rel}';\n`;
      // After the last import, so the file's import block stays together.
      const imports = [...out.matchAll(/^import [^;]+;\n/gm)];
      const at = imports.length ? imports[imports.length - 1].index + imports[imports.length - 1][0].length : 0;
      out = out.slice(0, at) + line + out.slice(at);
    }
  }
  return out;
}

const LEFT = [
  [/from 'knex(-pglite)?'/, 'still imports knex'],
  [/\bknex\.(schema|migrate|client)\b|\.client\.acquireConnection/, 'uses knex.schema / migrate / client'],
  [/\.timeout\(\d|\.options\(\{ ?prepared/, 'uses .timeout() / .options() of a knex query'],
  [/\bknex\(['"`]/, "uses knex's query builder"],
];

let changed = 0;
for (const dir of process.argv.slice(2).length ? process.argv.slice(2) : ['engine', 'tests']) {
  for (const file of files(path.resolve(ROOT, dir))) {
    const text = fs.readFileSync(file, 'utf8');
    const out = rewrite(file, text);
    if (out !== text) {
      fs.writeFileSync(file, out);
      changed++;
    }
    out.split('\n').forEach((line, i) => {
      for (const [re, what] of LEFT) if (re.test(line)) console.log(`${path.relative(ROOT, file)}:${i + 1}: ${what}; by hand`);
    });
  }
}
console.log(`${changed} file(s) rewritten`);
