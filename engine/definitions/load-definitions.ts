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
 * are followed (they would only report the same fault again).
 */
export function loadDefinitions(schemaDir: string, faults?: FaultCollector): LoadedDefinition[] {
  const own = faults ?? new FaultCollector();
  const metaSchema: unknown = JSON.parse(fs.readFileSync(path.join(schemaDir, 'model.schema.json'), 'utf8'));
  const ajv = new Ajv({ allErrors: true, strict: false });
  const validate = ajv.compile<ModelDefinition>(metaSchema as object);
  const out: LoadedDefinition[] = [];
  const before = own.count;
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
        continue;
      }
      if (!validate(data)) {
        for (const f of schemaFaults(rel, validate.errors ?? [], data)) own.add(f.file, f.pointer, f.reason);
        continue;
      }
      if (data.app !== app) {
        own.add(rel, '/app', `app "${data.app}" does not match folder "${app}"`);
        continue;
      }
      out.push({ file: rel, def: data });
    }
  }
  if (own.count > before) own.throwIfAny();
  return out;
}
