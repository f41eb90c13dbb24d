// Preloaded (node --require) into a `patchbay` child process by production-install.test.ts: the process
// behaves as after `npm prune --omit=dev`. Loading a devDependency, a file under tests/ or a TypeScript
// source fails loudly, as it would in production (where those files are absent or cannot run).
const Module = require('node:module');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');
const pkg = require(path.join(root, 'package.json'));
const devOnly = new Set(Object.keys(pkg.devDependencies || {}).filter((name) => !(pkg.dependencies || {})[name]));
const testsDir = path.join(root, 'tests') + path.sep;

const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, parent, ...rest) {
  const name = request.startsWith('@') ? request.split('/').slice(0, 2).join('/') : request.split('/')[0];
  const from = parent && parent.filename ? path.relative(root, parent.filename) : '?';
  if (devOnly.has(name)) throw new Error(`production guard: ${from} loads the devDependency ${name}`);
  const file = resolve.call(this, request, parent, ...rest);
  if (file.startsWith(testsDir) && file !== __filename) throw new Error(`production guard: ${from} loads test code ${path.relative(root, file)}`);
  if (/\.[cm]?ts$/.test(file)) throw new Error(`production guard: ${from} loads the TypeScript source ${path.relative(root, file)}`);
  return file;
};
