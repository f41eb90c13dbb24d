import fs from 'node:fs';
import path from 'node:path';

let root: string | undefined;

/**
 * The folder holding Patchbay's package.json (and schema/, migrations/). Found by walking up from this
 * file, so it is the same whether the code runs from the sources or from the compiled copy in dist/.
 */
export function packageRoot(): string {
  if (root) return root;
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file) && (JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string }).name === 'patchbay') return (root = dir);
    if (path.dirname(dir) === dir) throw new Error(`no package.json of patchbay above ${__dirname}`);
  }
}
