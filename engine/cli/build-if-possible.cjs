#!/usr/bin/env node
// Run before the npm scripts that start the CLI. In a development install it brings dist/ up to date
// (tsc is incremental: a rebuild with nothing changed takes about a second). A production install has no
// TypeScript (it is a devDependency, pruned away): there the build shipped in dist/ is what runs.
const { spawnSync } = require('node:child_process');
const path = require('node:path');

let tsc;
try {
  tsc = require.resolve('typescript/bin/tsc');
} catch {
  process.exit(0);
}
const r = spawnSync(process.execPath, [tsc, '-p', path.join(__dirname, '..', 'tsconfig.build.json')], { stdio: 'inherit' });
process.exit(r.status ?? 1);
