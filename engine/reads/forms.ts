import type { ResolvedField, ResolvedModel } from '../definitions/registry-types';

/** A representation's form: everything (full), or the short form lists and nested objects use (brief). */
export type Form = 'full' | 'brief';

/** Which fields of a model a form shows. */
export function fieldsOfForm(model: ResolvedModel, form: Form): ResolvedField[] {
  if (form === 'full') return model.fieldList.filter((f) => !f.writeOnly);
  return model.brief.map((n) => model.fields.get(n)).filter((f): f is ResolvedField => !!f);
}
