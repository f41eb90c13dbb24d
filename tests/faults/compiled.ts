import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(file));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, fs.statSync(file).mtimeMs);
  }
  return newest;
}

/**
 * These tests run the compiled code in dist/, as production does. `npm test` builds first (pretest); a
 * jest run on its own after an edit would silently test the old build, so say so instead.
 */
export function assertBuilt(): void {
  const info = path.join(ROOT, 'dist', '.tsbuildinfo');
  const built = fs.existsSync(info) ? fs.statSync(info).mtimeMs : 0;
  const source = Math.max(newestSource(path.join(ROOT, 'engine')), fs.statSync(path.join(ROOT, 'server.ts')).mtimeMs);
  if (built < source) throw new Error('dist/ is missing or older than the sources: run npm run build (npm test does it first)');
}
