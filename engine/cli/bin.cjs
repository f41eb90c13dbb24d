#!/usr/bin/env node
// Entry point of `npx patchbay <command>`: runs the compiled CLI that `npm run build` writes to dist/.
const fs = require('node:fs');
const path = require('node:path');

const compiled = path.join(__dirname, '..', '..', 'dist', 'engine', 'cli', 'main.js');
if (!fs.existsSync(compiled)) {
  console.error(`patchbay: not built (no ${path.relative(process.cwd(), compiled) || compiled}); run npm run build first`);
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
