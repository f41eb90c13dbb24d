import fs from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import type { ApplicationsDefinition } from './generated/applications-definition';
import { DefinitionError, DefinitionErrors } from './definition-error';
import { schemaFaults } from './schema-faults';

/** A view as applications.json names it: the engine's named view, whether the root lists it, and its options. */
export interface AppViewUse {
  view: string;
  listed: boolean;
  options: Record<string, unknown>;
}

/** An application: the first URL segment of its endpoints, and its endpoints that are not object types. */
export interface Application {
  name: string;
  description: string;
  /** View path segment -> the named view serving it, and whether the application's root lists it. */
  views: Map<string, AppViewUse>;
}

export const APPLICATIONS_FILE = 'applications.json';

/**
 * schema/applications.json, checked against applications.schema.json: the applications in the order
 * /api/ lists them. null when the schema directory has no such file (a directory of models only, as
 * tests build): the applications are then the folders that hold models.
 */
export function loadApplications(schemaDir: string): { file: string; applications: Application[] } | null {
  const file = path.join(schemaDir, APPLICATIONS_FILE);
  if (!fs.existsSync(file)) return null;
  const rel = path.relative(process.cwd(), file) || file;
  const metaSchema: unknown = JSON.parse(fs.readFileSync(path.join(schemaDir, 'applications.schema.json'), 'utf8'));
  const validate = new Ajv({ allErrors: true, strict: false }).compile<ApplicationsDefinition>(metaSchema as object);
  let data: unknown;
  try {
    data = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new DefinitionError(rel, '', `not valid JSON: ${(e as Error).message}`);
  }
  if (!validate(data)) {
    throw new DefinitionErrors(schemaFaults(rel, validate.errors ?? [], data));
  }
  const applications = Object.entries(data.applications).map(([name, app]): Application => ({
    name,
    description: app.description ?? '',
    views: new Map(Object.entries(app.views ?? {}).map(([segment, v]) => [segment, typeof v === 'string' ? { view: v, listed: false, options: {} } : { view: v.view, listed: v.listed ?? false, options: ((v as { options?: object }).options ?? {}) as Record<string, unknown> }])),
  }));
  return { file: rel, applications };
}
