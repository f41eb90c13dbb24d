/**
 * `npx patchbay ...` on a fresh clone compiles once, then runs; later commands compile only when a source
 * changed, was added or deleted, or dist/ is gone; without TypeScript (a production install) the shipped
 * dist/ runs as it is. The clone gets a TypeScript whose bin/tsc counts its runs before handing over to the
 * real compiler, so "did not compile" is observed, not timed.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cleanEnv, ROOT, tempDir } from './cli-support';

jest.setTimeout(600_000);

const clone = tempDir('clone');
const dir = clone.dir;
const runsLog = path.join(dir, 'tsc-runs.log');

function copyTrackedFiles(): void {
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
  for (const rel of listed.stdout.split('\0').filter(Boolean)) {
    const from = path.join(ROOT, rel);
    if (rel === 'node_modules' || !fs.existsSync(from) || fs.lstatSync(from).isSymbolicLink()) continue;
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.copyFileSync(from, path.join(dir, rel));
  }
}

/** node_modules linking to the installed packages, but with a counting TypeScript. */
function installPackages(): void {
  const installed = fs.realpathSync(path.join(ROOT, 'node_modules'));
  const modules = path.join(dir, 'node_modules');
  fs.mkdirSync(modules);
  for (const name of fs.readdirSync(installed)) {
    if (name === 'typescript' || name.startsWith('.')) continue;
    fs.symlinkSync(path.join(installed, name), path.join(modules, name));
  }
  const realTsc = path.join(installed, 'typescript', 'bin', 'tsc');
  const version = (JSON.parse(fs.readFileSync(path.join(installed, 'typescript', 'package.json'), 'utf8')) as { version: string }).version;
  fs.mkdirSync(path.join(modules, 'typescript', 'bin'), { recursive: true });
  fs.writeFileSync(path.join(modules, 'typescript', 'package.json'), JSON.stringify({ name: 'typescript', version }));
  fs.writeFileSync(
    path.join(modules, 'typescript', 'bin', 'tsc'),
    `require('node:fs').appendFileSync(${JSON.stringify(runsLog)}, 'tsc\\n');\nrequire(${JSON.stringify(realTsc)});\n`,
  );
}

const tscRuns = () => (fs.existsSync(runsLog) ? fs.readFileSync(runsLog, 'utf8').split('\n').filter(Boolean).length : 0);

function patchbay(...args: string[]) {
  const r = spawnSync(process.execPath, [path.join(dir, 'engine', 'cli', 'bin.cjs'), ...args], { cwd: dir, env: cleanEnv(), encoding: 'utf8', timeout: 300_000 });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  copyTrackedFiles();
  installPackages();
  expect(fs.existsSync(path.join(dir, 'dist'))).toBe(false);
});
afterAll(() => clone.remove());

test('the first command on a fresh clone compiles the TypeScript, then runs', () => {
  const r = patchbay('check');
  expect(r.stderr).toBe('patchbay: no build in dist/ yet; compiling the TypeScript (once)\n');
  expect(r.stdout).toMatch(/^\d+ definitions checked, no errors\n$/);
  expect(r.status).toBe(0);
  expect(tscRuns()).toBe(1);
});

test('the next command, with nothing changed, runs without compiling', () => {
  const r = patchbay('check');
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
  expect(tscRuns()).toBe(1);
  // touching a file without changing it is not a change
  const now = new Date();
  fs.utimesSync(path.join(dir, 'engine', 'app.ts'), now, now);
  expect(patchbay('check').stderr).toBe('');
  expect(tscRuns()).toBe(1);
});

test('a changed source is compiled before the command runs', () => {
  const main = path.join(dir, 'engine', 'cli', 'main.ts');
  fs.writeFileSync(main, fs.readFileSync(main, 'utf8').replace('usage: patchbay <command>', 'usage: patchbay <command> (edited)'));
  const r = patchbay('help');
  expect(r.stderr).toContain('patchbay: sources changed since the last build; compiling to dist/\n');
  expect(r.stderr).toContain('usage: patchbay <command> (edited)');
  expect(tscRuns()).toBe(2);
});

test('an added source is compiled, and a deleted one makes the next command compile and leaves no output behind', () => {
  const added = path.join(dir, 'engine', 'added-probe.ts');
  fs.writeFileSync(added, 'export const probe = 1;\n');
  expect(patchbay('check').status).toBe(0);
  expect(tscRuns()).toBe(3);
  expect(fs.existsSync(path.join(dir, 'dist', 'engine', 'added-probe.js'))).toBe(true);
  fs.rmSync(added);
  const r = patchbay('check');
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: 'patchbay: sources changed since the last build; compiling to dist/\n' });
  expect(tscRuns()).toBe(4);
  expect(fs.existsSync(path.join(dir, 'dist', 'engine', 'added-probe.js'))).toBe(false);
  expect(fs.existsSync(path.join(dir, 'dist', 'engine', 'added-probe.js.map'))).toBe(false);
  expect(fs.existsSync(path.join(dir, 'dist', 'engine', 'cli', 'main.js'))).toBe(true);
});

test('a missing dist/ is rebuilt', () => {
  fs.rmSync(path.join(dir, 'dist'), { recursive: true });
  const r = patchbay('check');
  expect(r.status).toBe(0);
  expect(r.stderr).toBe('patchbay: no build in dist/ yet; compiling the TypeScript (once)\n');
  expect(tscRuns()).toBe(5);
});

test('npm start and the other scripts run the same entry point', () => {
  const scripts = (JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  expect(scripts.start).toBe('exec node engine/cli/bin.cjs serve');
  expect(scripts.build).toBe('node engine/cli/build-if-possible.cjs --always');
});

test('without TypeScript (a production install), the shipped dist/ runs and nothing compiles', () => {
  fs.rmSync(path.join(dir, 'node_modules', 'typescript'), { recursive: true });
  const main = path.join(dir, 'engine', 'cli', 'main.ts');
  fs.appendFileSync(main, '\n// changed after the build\n');
  const r = patchbay('check');
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
  expect(tscRuns()).toBe(5);

  fs.rmSync(path.join(dir, 'dist'), { recursive: true });
  const unbuilt = patchbay('check');
  expect(unbuilt.status).toBe(1);
  expect(unbuilt.stderr).toBe(
    'patchbay: not built (no dist/engine/cli/main.js), and TypeScript is not installed to build it: run npm install, then npm run build\n',
  );
});
