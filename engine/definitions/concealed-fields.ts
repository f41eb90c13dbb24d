import type { ResolvedField, ResolvedModel } from './registry-types';

/**
 * Fields whose value some callers who see the object may not see: a secret (a token's key: in its own
 * representation only, while ALLOW_TOKEN_RETRIEVAL), or a field shown only with an action on the object
 * (`shown_with`: a webhook's secret, to those who may change it). Either is matched only as a whole, by
 * its own exact filter; never ordered by, searched, nested in another object's representation or written
 * to the change log: anything else would tell the value to someone it is hidden from, a piece at a time.
 */
export function isConcealed(field: ResolvedField): boolean {
  return field.def.secret === true || field.def.shown_with !== undefined;
}

/** The action a caller needs on an object to see its `shown_with` fields, or null when it has none. */
export function revealAction(model: ResolvedModel): 'change' | null {
  for (const f of model.fieldList) if (f.def.shown_with) return f.def.shown_with;
  return null;
}
