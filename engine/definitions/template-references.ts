import { isConcealed } from './concealed-fields';
import type { ResolvedModel } from './registry-types';

/** Any `{...}` of a template: what it holds must be a reference. */
const BRACED = /\{([^{}]*)\}/g;
/** A reference: a field, or a dotted path through foreign keys ({site.name}). */
const REFERENCE = /^[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)*$/;

/**
 * Why a reference of a display or message template names nothing the engine can show, or null when it
 * does. A reference reaches, through foreign keys, one of: a stored field (a foreign key shows its id),
 * id, created or last_updated, a related object's display ({fk.display}), a generic relation's type or id column, a generic relation (shown as the
 * display of the object it names), or `<choice field>.label` (the choice's label). `extra` names words
 * the template has besides ({other} of a no_overlap message). A display function may read a concealed
 * field (`concealedOk`): it decides what of it shows (a token's masked key).
 */
export function referenceProblem(model: ResolvedModel, reference: string, extra: readonly string[] = [], concealedOk = false): string | null {
  if (extra.includes(reference)) return null;
  if (!REFERENCE.test(reference)) return `"{${reference}}" is not a reference: write {field} or {foreign_key.field}`;
  const steps = reference.split('.');
  let at = model;
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    const last = i === steps.length - 1;
    const f = at.fields.get(step);
    if (!last && f?.kind === 'fk') {
      at = f.target;
      continue;
    }
    if (!last && (f?.kind === 'choice' || (f?.kind === 'computed' && f.choices)) && i === steps.length - 2 && steps[i + 1] === 'label') return null;
    if (!last) {
      if (f?.kind === 'generic_fk') return `"{${reference}}": "${step}" is a generic relation, whose target's fields are not known; {${steps.slice(0, i + 1).join('.')}} shows its display`;
      return `"{${reference}}": "${step}" is not a foreign key of ${at.label}`;
    }
    if (f && isConcealed(f) && !concealedOk) return `"{${reference}}" is concealed (secret or shown_with): a template shows it to everyone`;
    if (f && (f.column || f.kind === 'generic_fk')) return null;
    // {fk.display}: the related object's own display.
    if (step === 'display' && i > 0) return null;
    if (step === 'id' || (at.timestamps !== false && step === 'created') || (at.lastUpdated && step === 'last_updated')) return null;
    if (at.fieldList.some((g) => g.kind === 'generic_fk' && (g.typeColumn === step || g.idColumn === step))) return null;
    return f ? `"{${reference}}": "${step}" is a ${f.kind} field of ${at.label}, which holds no value a template can show` : `"{${reference}}": ${at.label} has no field "${step}"`;
  }
  return null;
}

/** Each `{...}` of a template whose reference names nothing, with why. */
export function templateProblems(model: ResolvedModel, template: string, extra: readonly string[] = []): string[] {
  const out: string[] = [];
  for (const [, inner] of template.matchAll(BRACED)) {
    const problem = referenceProblem(model, inner!, extra);
    if (problem) out.push(problem);
  }
  return out;
}
