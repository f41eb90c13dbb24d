import { hasColumn, type ColumnField, type ResolvedModel } from './registry-types';

/**
 * The field that names an object of this model to other models: their filters (site=<slug>, vrf=<rd>)
 * and the many-to-many fields written and shown by key (a config context's tags, by slug).
 */
export function naturalKey(model: ResolvedModel): ColumnField | undefined {
  const name = model.def.natural_key ?? (model.fields.has('slug') ? 'slug' : model.fields.has('name') ? 'name' : undefined);
  const f = name ? model.fields.get(name) : undefined;
  return f && hasColumn(f) ? f : undefined;
}
