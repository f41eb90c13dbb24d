/**
 * Finds references from test code to files outside the repository: the machine's own folders (`/work/`),
 * the team's `shared/` folder beside old checkouts, and `path.join(__dirname, '..', ...)` climbing above
 * the repository root. A clone with nothing beside it must run every test, so each is a failure.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface OutsidePath {
  file: string;
  line: number;
  text: string;
}

const MACHINE_PATH = /(['"`])\/work\//;
/** `shared/` as a path segment: `../shared/`, `/shared/`, or the start of a quoted path. */
const SHARED_FOLDER = /(?:^|[\s'"`/(])(?:\.\.\/)*shared\/|['"`]shared['"`]\s*,\s*['"`]reference['"`]/;
const CLIMB = /path\.(?:join|resolve)\(\s*__dirname\s*,((?:\s*['"`][^'"`]*['"`]\s*,?)+)/g;

/** Offending lines of one file's text; `file` is its path relative to `root`. */
export function outsidePaths(root: string, file: string, text: string): OutsidePath[] {
  const found: OutsidePath[] = [];
  text.split('\n').forEach((line, i) => {
    const escapes = [...line.matchAll(CLIMB)].some((m) => {
      const parts = [...m[1].matchAll(/['"`]([^'"`]*)['"`]/g)].map((p) => p[1]);
      const target = path.resolve(root, path.dirname(file), ...parts);
      return path.relative(root, target).startsWith('..');
    });
    if (escapes || MACHINE_PATH.test(line) || SHARED_FOLDER.test(line)) found.push({ file, line: i + 1, text: line.trim() });
  });
  return found;
}

const SCANNED = /\.(?:ts|cjs|mjs|js|sh|py|yml|json)$/;

/** Every offending line of the test code, configuration and CI script under `root`. */
export function outsidePathsInRepository(root: string): OutsidePath[] {
  const files = ['package.json', 'jest.config.js', '.ci/run', ...walk(root, 'tests')];
  return files.flatMap((file) => {
    const full = path.join(root, file);
    return fs.existsSync(full) ? outsidePaths(root, file, fs.readFileSync(full, 'utf8')) : [];
  });
}

const NOT_SCANNED = new Set(['netbox-3.7-api.json', 'outside-paths.ts', 'self-contained.test.ts'].map((f) => path.join('tests', 'reference', f)));

function walk(root: string, dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return walk(root, rel);
    // The reference data is NetBox's own text, not a path anyone reads; this scanner and its test spell
    // out the patterns they look for.
    return SCANNED.test(e.name) && !NOT_SCANNED.has(rel) ? [rel] : [];
  });
}
