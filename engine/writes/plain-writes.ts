import type { ResolvedModel } from '../definitions/registry-types';
import type { PreparedWrite } from './prepare-write';
import type { CustomFieldDef } from '../validation/custom-field-values';
import { compileChecks } from '../validation/definition-checks';
import { hasWriteHooks } from './role-hooks';
import { fitsRowSet } from './write-row-sets';
import { fileFields } from './stored-files';

/**
 * Plain writes: those that come down to writing the objects' own rows, which the engine can write
 * set-based (many objects, one statement) or answer in the same statement (one object). Links need
 * statements of their own (set-based too, for many objects); child rows, tree parents, named validators
 * and role hooks are written object by object, and so are stored files (the files a row stops naming are
 * noted before it changes).
 */

/** Whether the model's writes can ever be plain. */
export function modelWritesPlainly(model: ResolvedModel): boolean {
  return !model.tree && !hasWriteHooks(model) && !fileFields(model).length;
}

/** Whether one prepared object's write only writes its own row's columns. */
export function writesOnlyRow(model: ResolvedModel, write: PreparedWrite, creating: boolean): boolean {
  if (write.links.size || write.children.size || !fitsRowSet(model, write.columns)) return false;
  if (creating && !Object.keys(write.columns).length) return false;
  // A foreign key's validators run after the row is written (a statement of their own); value validators ran in prepareWrite.
  return !model.fieldList.some((f) => f.kind === 'fk' && f.def.validators?.length && f.column in write.columns);
}

/** Whether one prepared object's write writes its own row and links (many-to-many, tags) only: a bulk write can do both set-based. */
export function writesRowAndLinks(model: ResolvedModel, write: PreparedWrite, creating: boolean): boolean {
  return writesOnlyRow(model, { ...write, links: new Map() }, creating);
}

/**
 * Whether preparing this body reads nothing from the database: no relation named by attributes, no
 * link, child or generic relation (whose targets are looked up and locked), no custom field naming
 * objects. Such a body, with definitions already at hand, can be validated before any statement runs.
 */
export function preparesWithoutReads(model: ResolvedModel, body: unknown, customFields: readonly CustomFieldDef[]): boolean {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return false;
  if (customFields.some((d) => d.type === 'object' || d.type === 'multiobject')) return false;
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    const field = model.fields.get(model.writeAliases.get(key) ?? key);
    if (!field) {
      if (model.fieldList.some((f) => f.kind === 'generic_fk' && (f.typeColumn === key || f.idColumn === key))) return false;
      continue;
    }
    if (field.readOnly) continue;
    if (field.kind === 'm2m' || field.kind === 'tags' || field.kind === 'children' || field.kind === 'generic_fk') return false;
    if (field.kind === 'fk' && value !== null && typeof value === 'object') return false;
  }
  return true;
}

/** Whether the model's rows are judged by definition checks after a write (a statement of its own). */
export function hasChecks(model: ResolvedModel): boolean {
  return compileChecks(model) !== null;
}
