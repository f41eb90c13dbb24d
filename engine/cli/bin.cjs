#!/usr/bin/env node
// Entry point of `npx patchbay <command>`: runs the TypeScript sources directly through tsx's loader.
require('tsx/cjs');
require('./main.ts')
  .main(process.argv.slice(2))
  .then((code) => {
    if (typeof code === 'number') process.exitCode = code;
  })
  .catch((err) => {
    console.error(err instanceof Error && err.name === 'DefinitionError' ? err.message : err);
    process.exitCode = 1;
  });
