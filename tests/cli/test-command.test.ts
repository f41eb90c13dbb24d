/**
 * The model author's loop: `npm test -- --types app.model,...` (tests/run-tests.cjs) runs only the suites
 * derived from the definitions, for the named types; plain `npm test` is jest as before.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseTestTypes } from '../support/selected-types';
import derived from '../derived-suites.json';

const ROOT = path.resolve(__dirname, '..', '..');
const RUNNER = path.join(ROOT, 'tests', 'run-tests.cjs');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { splitArgs } = require(RUNNER) as { splitArgs(argv: string[]): { types?: string[] | null; rest?: string[]; error?: string } };

function run(args: string[]) {
  const env = { ...process.env };
  delete env.PATCHBAY_TEST_TYPES;
  const r = spawnSync(process.execPath, [RUNNER, ...args], { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function testFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    return e.isDirectory() ? testFiles(rel) : e.name.endsWith('.test.ts') ? [rel] : [];
  });
}

test('--types is taken out of the arguments, in both spellings and repeated; everything else goes to jest in order', () => {
  expect(splitArgs(['--types', 'dcim.site,ipam.prefix', '-t', 'defaults', '--types=ipam.vlan'])).toEqual({ types: ['dcim.site', 'ipam.prefix', 'ipam.vlan'], rest: ['-t', 'defaults'] });
  expect(splitArgs(['tests/cli', '--runInBand'])).toEqual({ types: null, rest: ['tests/cli', '--runInBand'] });
  expect(splitArgs(['--types'])).toEqual({ error: '--types needs a value: --types app.model[,app.model...]' });
  expect(splitArgs(['--types='])).toEqual({ error: '--types needs a value: --types app.model[,app.model...]' });
});

test('PATCHBAY_TEST_TYPES names the types by commas or spaces; unset or empty means every type', () => {
  expect(parseTestTypes('dcim.site, ipam.prefix ipam.vlan')).toEqual(new Set(['dcim.site', 'ipam.prefix', 'ipam.vlan']));
  expect(parseTestTypes(undefined)).toBeNull();
  expect(parseTestTypes(' ')).toBeNull();
});

test('a type with no definition is refused before jest starts (exit 2, naming it)', () => {
  const r = run(['--types', 'dcim.site,wireless.nosuchtype']);
  expect([r.status, r.stderr.trim()]).toEqual([2, '--types: no definition in schema/ for wireless.nosuchtype (name types as app.model, e.g. dcim.site)']);
});

test('with --types jest runs exactly the derived suites; without, every test file', () => {
  const chosen = run(['--types', 'dcim.site', '--listTests']);
  expect(chosen.status).toBe(0);
  const listed = (out: string) => out.trim().split('\n').map((f) => path.relative(ROOT, f)).sort();
  expect(listed(chosen.stdout)).toEqual([...derived.suites].sort());
  const all = run(['--listTests']);
  expect(all.status).toBe(0);
  expect(listed(all.stdout)).toEqual(testFiles('tests').sort());
});

test('the derived suites are exactly the test files that narrow their cases to the selection', () => {
  const reading = testFiles('tests').filter((f) => /\b(?:onlySelected|isSelected)\(/.test(fs.readFileSync(path.join(ROOT, f), 'utf8')));
  expect(reading.sort()).toEqual([...derived.suites].sort());
});
