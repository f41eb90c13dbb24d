#!/usr/bin/env node
// Entry point of `npx patchbay <command>` and of the npm scripts: runs the compiled CLI in dist/, compiling
// it first when TypeScript is installed and the sources changed since the last build (or on a fresh clone,
// where there is none yet). A production install has no TypeScript and runs the dist/ it shipped with.
const fs = require('node:fs');
const path = require('node:path');
const { ensureBuilt } = require('./build-if-possible.cjs');

const compiled = path.join(__dirname, '..', '..', 'dist', 'engine', 'cli', 'main.js');
const built = ensureBuilt();
if (built !== 0) {
  console.error('patchbay: the TypeScript did not compile (errors above)');
  process.exit(built);
}
if (!fs.existsSync(compiled)) {
  console.error(`patchbay: not built (no ${path.relative(process.cwd(), compiled) || compiled}), and TypeScript is not installed to build it: run npm install, then npm run build`);
  process.exit(1);
}
require(compiled)
  .main(process.argv.slice(2))
  .then((code) => {
    if (typeof code === 'number') process.exitCode = code;
  })
  .catch((err) => {
    // Errors meant for the operator are told without a stack: bad definitions as one line per fault
    // (file:pointer: reason, as `patchbay check` prints them), a database that never came up as one line.
    if (err instanceof Error && err.name === 'DefinitionError') {
      const count = Array.isArray(err.errors) ? err.errors.length : 1;
      console.error(err.message);
      console.error(`patchbay: ${count} error${count === 1 ? '' : 's'} in the definitions`);
    } else console.error(err instanceof Error && err.name === 'StartupError' ? `patchbay: ${err.message}` : err);
    process.exitCode = 1;
  });
