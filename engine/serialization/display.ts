import type { ResolvedModel } from '../definitions/registry-types';
import { displayWith } from '../definitions/named-functions';
import type { Row } from '../query/row-columns';

/** The object's display string: its template with {field} placeholders filled, or its named function. */
export function displayOf(model: ResolvedModel, row: Row): string {
  const d = model.def.display;
  if (typeof d === 'object') return displayWith(d.fn, row);
  return d.replace(/\{([a-z_][a-z0-9_]*)\}/g, (_, name: string) => {
    const f = model.fields.get(name);
    const v = row[f?.column ?? name];
    return v === null || v === undefined ? '' : String(v);
  });
}
