/**
 * The files tests/database-independent.json lists run in the embedded run only (jest.config.js leaves them
 * out when TEST_DATABASE_URL is set). That is right only while none of them, nor any test module it imports,
 * reaches the database a run is given: the test app (startTestApp) or TEST_DATABASE_URL.
 */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const TESTS = path.join(ROOT, 'tests');
const { files } = JSON.parse(fs.readFileSync(path.join(TESTS, 'database-independent.json'), 'utf8')) as { files: string[] };

/** Ways a test reaches the run's database. */
const REACHES_DATABASE = /\bTEST_DATABASE_URL\b|\bstartTestApp\b/;

/** The test modules a file imports, itself included, transitively (engine code is not a test's choice of database). */
function testModules(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = fs.readFileSync(file, 'utf8');
  for (const m of text.matchAll(/from\s+['"](\.{1,2}\/[^'"]+)['"]/g)) {
    const base = path.resolve(path.dirname(file), m[1]!);
    const resolved = [base, `${base}.ts`, path.join(base, 'index.ts')].find((f) => fs.existsSync(f) && fs.statSync(f).isFile());
    if (resolved && resolved.startsWith(TESTS + path.sep) && resolved.endsWith('.ts')) testModules(resolved, seen);
  }
  return seen;
}

function reachingDatabase(file: string): string[] {
  return [...testModules(file)].filter((f) => REACHES_DATABASE.test(fs.readFileSync(f, 'utf8'))).map((f) => path.relative(ROOT, f));
}

test.each(files)('%s exists and reaches no run database', (file) => {
  expect(fs.existsSync(path.join(ROOT, file))).toBe(true);
  expect(reachingDatabase(path.join(ROOT, file))).toEqual([]);
});

test('the check finds a file that starts a test app, through an imported module too', () => {
  expect(reachingDatabase(path.join(TESTS, 'sql', 'statement-text-stable.test.ts'))).toEqual(expect.arrayContaining(['tests/support/test-app.ts']));
  expect(reachingDatabase(path.join(TESTS, 'import', 'not-carried.test.ts'))).toEqual(['tests/import/support/import-target.ts']);
});
