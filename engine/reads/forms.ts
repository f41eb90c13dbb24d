import type { ResolvedField, ResolvedModel } from '../definitions/registry-types';

/** A representation's form: everything (full), or the short form lists and nested objects use (brief). */
export type Form = 'full' | 'brief';

/** Which fields of a model a form shows. */
export function fieldsOfForm(model: ResolvedModel, form: Form): ResolvedField[] {
  if (form === 'full') return model.fieldList.filter((f) => !f.writeOnly);
  return model.brief.map((n) => model.fields.get(n)).filter((f): f is ResolvedField => !!f);
}

/**
 * Every name a form's representation may hold (engine/reads/object-json.ts writes them): the fields, and
 * the names a representation shows without a field of its own (id, url, display, a tree's _depth, a
 * generic relation's type and id columns, the timestamps). exclude= names outside it change nothing.
 */
export function namesOfForm(model: ResolvedModel, form: Form): Set<string> {
  if (form === 'brief') return new Set(model.brief);
  const names = new Set(['id', 'url', 'display']);
  if (model.tree) names.add('_depth');
  for (const f of fieldsOfForm(model, 'full')) {
    if (f.kind === 'generic_fk') names.add(f.typeColumn).add(f.idColumn);
    names.add(f.name);
  }
  if (model.timestamps !== false) names.add('created');
  if (model.lastUpdated) names.add('last_updated');
  return names;
}
