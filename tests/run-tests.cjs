#!/usr/bin/env node
/**
 * `npm test`: jest, as it always ran. `npm test -- --types wireless.wirelesslink,dcim.site [jest args]`:
 * only the suites derived from the definitions (tests/derived-suites.json), for the named types only
 * (PATCHBAY_TEST_TYPES, read by tests/support/selected-types.ts). Every other argument goes to jest.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..');

/** `--types a,b` / `--types=a,b` (repeatable) taken out; the rest left for jest. */
function splitArgs(argv) {
  const types = [];
  const rest = [];
  let named = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--types') {
      named = true;
      if (i + 1 >= argv.length) return { error: '--types needs a value: --types app.model[,app.model...]' };
      types.push(...argv[++i].split(/[\s,]+/).filter(Boolean));
    } else if (a.startsWith('--types=')) {
      named = true;
      types.push(...a.slice('--types='.length).split(/[\s,]+/).filter(Boolean));
    } else rest.push(a);
  }
  if (named && !types.length) return { error: '--types needs a value: --types app.model[,app.model...]' };
  return { types: named ? types : null, rest };
}

/** app.model of every definition under the schema directory the tests serve. */
function definedTypes(schemaDir) {
  const out = new Set();
  for (const app of fs.readdirSync(schemaDir, { withFileTypes: true })) {
    if (!app.isDirectory()) continue;
    for (const file of fs.readdirSync(path.join(schemaDir, app.name))) {
      if (!file.endsWith('.json')) continue;
      const def = JSON.parse(fs.readFileSync(path.join(schemaDir, app.name, file), 'utf8'));
      if (def && typeof def.app === 'string' && typeof def.model === 'string') out.add(`${def.app}.${def.model}`);
    }
  }
  return out;
}

const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function main(argv) {
  const parsed = splitArgs(argv);
  if (parsed.error) {
    console.error(parsed.error);
    return Promise.resolve(2);
  }
  const env = { ...process.env, NODE_OPTIONS: '--experimental-vm-modules' };
  const jestArgs = [...parsed.rest];
  if (parsed.types) {
    const defined = definedTypes(path.join(ROOT, 'schema'));
    const unknown = parsed.types.filter((t) => !defined.has(t));
    if (unknown.length) {
      console.error(`--types: no definition in schema/ for ${unknown.join(', ')} (name types as app.model, e.g. dcim.site)`);
      return Promise.resolve(2);
    }
    env.PATCHBAY_TEST_TYPES = parsed.types.join(',');
    const { suites } = JSON.parse(fs.readFileSync(path.join(__dirname, 'derived-suites.json'), 'utf8'));
    // Paths anchored at the root so that jest takes each as exactly that file.
    jestArgs.push(...suites.map((s) => `^${escapeRegExp(path.join(ROOT, s))}$`));
    console.error(`derived suites for ${parsed.types.join(', ')}: ${suites.join(' ')}`);
  }
  const child = spawn(process.execPath, [require.resolve('jest/bin/jest'), ...jestArgs], { cwd: ROOT, env, stdio: 'inherit' });
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

if (require.main === module) main(process.argv.slice(2)).then((code) => process.exit(code));

module.exports = { splitArgs, definedTypes };
