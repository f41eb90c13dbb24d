import fs from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import type { ModelDefinition } from './generated/model-definition';
import { FaultCollector } from './fault-collector';
import { schemaFaults } from './schema-faults';

export interface LoadedDefinition {
  file: string;
  def: ModelDefinition;
}

/**
 * Every `<app>/<model>.json` under the schema directory, checked against model.schema.json. Every file
 * is read and checked before anything is thrown: the faults of all of them come out together. A file
 * that does not have the shape of a definition stops the reading here, before references between files
 * are followed (they would only report the same fault again); an option a field's kind does not take
 * does not, and is thrown by the caller with the faults the references have.
 */
export function loadDefinitions(schemaDir: string, faults?: FaultCollector): LoadedDefinition[] {
  const own = faults ?? new FaultCollector();
  const metaSchema: unknown = JSON.parse(fs.readFileSync(path.join(schemaDir, 'model.schema.json'), 'utf8'));
  const ajv = new Ajv({ allErrors: true, strict: false });
  const validate = ajv.compile<ModelDefinition>(metaSchema as object);
  const out: LoadedDefinition[] = [];
  let hard = false;
  for (const app of fs.readdirSync(schemaDir).sort()) {
    const appDir = path.join(schemaDir, app);
    if (!fs.statSync(appDir).isDirectory()) continue;
    for (const name of fs.readdirSync(appDir).sort()) {
      if (!name.endsWith('.json')) continue;
      const file = path.join(appDir, name);
      const rel = path.relative(process.cwd(), file) || file;
      let data: unknown;
      try {
        data = JSON.parse(fs.readFileSync(file, 'utf8'));
      } catch (e) {
        own.add(rel, '', `not valid JSON: ${(e as Error).message}`);
        hard = true;
        continue;
      }
      if (!validate(data)) {
        const found = schemaFaults(rel, validate.errors ?? [], data);
        for (const f of found) own.add(f.file, f.pointer, f.reason);
        // A word a field's kind does not take (or no kind knows) leaves the rest of the file readable:
        // its references are checked too, so one run tells everything. Any other fault of shape does not.
        if (!validate.errors!.every((e) => e.keyword === 'additionalProperties' || e.keyword === 'if')) {
          hard = true;
          continue;
        }
      }
      const def = data as ModelDefinition;
      if (def.app !== app) {
        own.add(rel, '/app', `app "${def.app}" does not match folder "${app}"`);
        hard = true;
        continue;
      }
      out.push({ file: rel, def });
    }
  }
  // Without a caller's collector every fault is thrown here; with one, only those that stop the reading.
  if (hard || !faults) own.throwIfAny();
  return out;
}
