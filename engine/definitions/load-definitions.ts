import fs from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import type { ModelDefinition } from './generated/model-definition';
import { DefinitionError } from './definition-error';

export interface LoadedDefinition {
  file: string;
  def: ModelDefinition;
}

/** Every `<app>/<model>.json` under the schema directory, checked against model.schema.json. */
export function loadDefinitions(schemaDir: string): LoadedDefinition[] {
  const metaSchema: unknown = JSON.parse(fs.readFileSync(path.join(schemaDir, 'model.schema.json'), 'utf8'));
  const ajv = new Ajv({ allErrors: false, strict: false });
  const validate = ajv.compile<ModelDefinition>(metaSchema as object);
  const out: LoadedDefinition[] = [];
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
        throw new DefinitionError(rel, '', `not valid JSON: ${(e as Error).message}`);
      }
      if (!validate(data)) {
        const err = validate.errors?.[0];
        const extra = err?.params && 'additionalProperty' in err.params ? ` (${String(err.params.additionalProperty)})` : '';
        throw new DefinitionError(rel, err?.instancePath ?? '', `${err?.message ?? 'invalid'}${extra}`);
      }
      if (data.app !== app) throw new DefinitionError(rel, '/app', `app "${data.app}" does not match folder "${app}"`);
      out.push({ file: rel, def: data });
    }
  }
  return out;
}
