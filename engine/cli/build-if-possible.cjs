#!/usr/bin/env node
// Brings dist/ up to date before the CLI runs (npm start, the npm scripts, `npx patchbay ...`).
//
// A development install has TypeScript: when the sources differ from those dist/ was compiled from, tsc
// compiles them. Whether they differ is decided by a fingerprint of the compiler inputs (every .ts file
// tsconfig.build.json includes, by path and content, both tsconfig files and the compiler's version),
// stored in dist/ after a successful build: a start with nothing changed runs no compiler at all (tsc's own
// incremental check still takes seconds), and a source changed, added or deleted changes the fingerprint.
//
// A production install has no TypeScript (a devDependency, pruned away): there the build shipped in dist/
// is what runs, and nothing here reads the sources.
//
// Run as a script: exit status 0 when dist/ is up to date (or cannot be built here), tsc's status otherwise.
// `--always` compiles even when the fingerprint matches (npm run build).
'use strict';
const { spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const DIST = path.join(ROOT, 'dist');
const ENTRY = path.join(DIST, 'engine', 'cli', 'main.js');
const FINGERPRINT = path.join(DIST, '.sources-fingerprint');
const LOCK = path.join(DIST, '.build-lock');
const TSCONFIG = path.join(ROOT, 'engine', 'tsconfig.build.json');
/** A lock older than this was left by a build that died: it is taken over. */
const STALE_LOCK_MS = 10 * 60 * 1000;

/** The compiler's entry point, or null where TypeScript is not installed (a production install). */
function findTsc() {
  try {
    return require.resolve('typescript/bin/tsc', { paths: [ROOT] });
  } catch {
    return null;
  }
}

/** Every .ts file under dir, as paths relative to ROOT, in a stable order. */
function tsFiles(dir, out = []) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) tsFiles(full, out);
    else if (entry.name.endsWith('.ts')) out.push(path.relative(ROOT, full));
  }
  return out;
}

/** What the compiled output depends on: tsconfig.build.json's inputs (server.ts, engine/), the configs, tsc's version. */
function fingerprint(tsc) {
  const hash = crypto.createHash('sha256');
  const add = (name, content) => {
    hash.update(`${name}\0${content.length}\0`);
    hash.update(content);
  };
  add('typescript', require(path.join(path.dirname(tsc), '..', 'package.json')).version);
  for (const rel of ['tsconfig.json', path.join('engine', 'tsconfig.build.json'), 'server.ts', ...tsFiles(path.join(ROOT, 'engine'))]) {
    add(rel, fs.readFileSync(path.join(ROOT, rel)));
  }
  return hash.digest('hex');
}

function upToDate(current) {
  if (!fs.existsSync(ENTRY)) return false;
  try {
    return fs.readFileSync(FINGERPRINT, 'utf8') === current;
  } catch {
    return false;
  }
}

/**
 * tsc never deletes: the output of a source that was deleted would stay in dist/ and could still be loaded
 * (a dynamic import, a stale require). Removes every compiled file under dist/engine whose source is gone.
 */
function removeOrphans(dir = path.join(DIST, 'engine')) {
  if (!fs.existsSync(dir)) return;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      removeOrphans(full);
      if (!fs.readdirSync(full).length) fs.rmdirSync(full);
      continue;
    }
    const m = /^(.*)\.js(\.map)?$/.exec(entry.name);
    if (!m) continue;
    const source = path.join(ROOT, path.relative(DIST, dir), `${m[1]}.ts`);
    if (!fs.existsSync(source)) fs.rmSync(full, { force: true });
  }
}

function sleep(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Holds dist/.build-lock while fn runs, so that processes started together do not compile over each other. */
function withLock(fn) {
  fs.mkdirSync(DIST, { recursive: true });
  for (;;) {
    try {
      fs.mkdirSync(LOCK);
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      try {
        if (Date.now() - fs.statSync(LOCK).mtimeMs > STALE_LOCK_MS) fs.rmSync(LOCK, { recursive: true, force: true });
      } catch {
        // released meanwhile
      }
      sleep(200);
    }
  }
  try {
    return fn();
  } finally {
    fs.rmSync(LOCK, { recursive: true, force: true });
  }
}

/**
 * Compiles when needed. Compiler output and the one line saying why go to stderr, so that a command's
 * stdout (createsuperuser's token) stays its own. Returns 0 when dist/ is current afterwards (or when there
 * is no compiler here), else tsc's exit status.
 */
function ensureBuilt({ always = false } = {}) {
  const tsc = findTsc();
  if (!tsc) return 0;
  if (!always && upToDate(fingerprint(tsc))) return 0;
  return withLock(() => {
    // Another process may have built while this one waited for the lock; the sources are read again
    // after the build, so a file saved during it makes the next start compile again.
    const before = fingerprint(tsc);
    if (!always && upToDate(before)) return 0;
    if (!always) console.error(fs.existsSync(ENTRY) ? 'patchbay: sources changed since the last build; compiling to dist/' : 'patchbay: no build in dist/ yet; compiling the TypeScript (once)');
    const r = spawnSync(process.execPath, [tsc, '-p', TSCONFIG], { stdio: ['ignore', 2, 2] });
    const status = r.status ?? 1;
    if (status === 0) removeOrphans();
    if (status === 0 && fingerprint(tsc) === before) fs.writeFileSync(FINGERPRINT, before);
    else fs.rmSync(FINGERPRINT, { force: true });
    return status;
  });
}

module.exports = { ensureBuilt };

if (require.main === module) process.exit(ensureBuilt({ always: process.argv.includes('--always') }));
