/**
 * A clone with nothing beside it runs the tests: no test file reads a path outside the repository, and
 * NetBox's reference is the in-repository copy (tests/reference/README.md gives its provenance).
 */
import fs from 'node:fs';
import path from 'node:path';
import { outsidePaths, outsidePathsInRepository } from './outside-paths';
import { NETBOX_REFERENCE_FILE, readNetboxReference } from './netbox-reference-file';

const ROOT = path.resolve(__dirname, '..', '..');

test('no test, configuration or CI file references a path outside the repository', () => {
  expect(outsidePathsInRepository(ROOT)).toEqual([]);
});

test('the scanner finds each way of reaching outside, and nothing else', () => {
  const text = [
    "const a = [path.join(__dirname, '..', '..', '..', 'shared', 'reference', 'x.json')];",
    "const b = '/work/shared/reference/netbox-3.7-api.json';",
    "const c = path.resolve(__dirname, '../../../elsewhere/file.json');",
    '// read ../shared/bench/baseline.md',
    "const d = path.join(__dirname, '..', 'support', 'images.ts');",
    "import { sharedSandbox } from '../../engine/sandbox/shared-sandbox';",
    "const e = fetch('/api/extras/saved-filters/?shared=true');",
  ].join('\n');
  expect(outsidePaths(ROOT, 'tests/api/x.test.ts', text).map((o) => o.line)).toEqual([1, 2, 3, 4]);
});

test("NetBox's reference is the repository's own copy, with its provenance", () => {
  expect(path.relative(ROOT, NETBOX_REFERENCE_FILE)).toBe(path.join('tests', 'reference', 'netbox-3.7-api.json'));
  const ref = readNetboxReference<{ source: string; endpoints: Record<string, unknown> }>();
  expect(ref.source).toBe('NetBox 3.7.8 OpenAPI (drf-spectacular), condensed');
  expect(Object.keys(ref.endpoints)).toHaveLength(97);
  expect(fs.readFileSync(path.join(__dirname, 'README.md'), 'utf8')).toContain('NetBox **3.7.8**');
});
