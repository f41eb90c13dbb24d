import type { Config } from '../config';
import { loadRegistry } from '../boot';
import { DefinitionErrors } from '../definitions/definition-error';

/**
 * `patchbay check`: reads and checks every definition and schema/applications.json as startup does,
 * without opening a database. Prints how many were checked, or every fault (file:pointer: reason, one a
 * line) and exits 1.
 */
export function check(config: Config): number {
  let count: number;
  try {
    count = loadRegistry(config.schemaDir).models.size;
  } catch (e) {
    if (!(e instanceof DefinitionErrors)) throw e;
    for (const line of e.lines) console.error(line);
    console.error(`${e.errors.length} error${e.errors.length === 1 ? '' : 's'} in the definitions`);
    return 1;
  }
  console.log(`${count} definitions checked, no errors`);
  return 0;
}
