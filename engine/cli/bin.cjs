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
    // Errors meant for the operator (a bad definition, a database that never came up) are one line, without a stack.
    const oneLine = err instanceof Error && (err.name === 'DefinitionError' || err.name === 'StartupError');
    console.error(oneLine ? `patchbay: ${err.message}` : err);
    process.exitCode = 1;
  });
