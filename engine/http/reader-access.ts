import type { ResolvedModel } from '../definitions/registry-types';
import type { Form } from '../reads/forms';
import type { Scope } from '../auth/permissions';
import type { CallContext } from './api-context';
import { and } from '../sql/fragment';
import { consultedTypes } from '../reads/compiled-representations';
import { SEES_EVERYTHING, type ReaderAccess, type Rows } from '../reads/reader-access';
import { revealAction } from '../definitions/concealed-fields';

/** A representation an answer holds: of which model, in which form. */
export interface Shown {
  model: ResolvedModel;
  form: Form;
}

function rowsOf(scope: Scope): Rows {
  if (!scope.allowed) return false;
  return scope.conditions.length ? and(scope.conditions) : true;
}

/**
 * The caller's access as the representations of an answer need it, from their permissions (loaded once
 * per request, so this costs no query of its own): view scopes of the types at the far end of those
 * representations' links, and the scope of the action that shows each model's shown_with fields.
 * Only the types a representation depends on are asked about.
 */
export async function readerAccess(ctx: CallContext, shown: readonly Shown[]): Promise<ReaderAccess> {
  if (ctx.principal?.isSuperuser) return SEES_EVERYTHING;
  const views = new Map<ResolvedModel, Rows>();
  const reveals = new Map<ResolvedModel, Rows>();
  for (const { model, form } of shown) {
    for (const linked of consultedTypes(ctx.registry, model, form)) {
      if (!views.has(linked)) views.set(linked, rowsOf(await ctx.scope(linked, 'view')));
    }
    const action = revealAction(model);
    if (action && !reveals.has(model)) reveals.set(model, rowsOf(await ctx.scope(model, action)));
  }
  return {
    view(model) {
      const rows = views.get(model);
      if (rows === undefined) throw new Error(`${model.label}: a representation asked what the caller may view of a type it was not prepared for`);
      return rows;
    },
    reveal: (model) => reveals.get(model) ?? false,
  };
}
