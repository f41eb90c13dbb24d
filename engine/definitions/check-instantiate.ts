import { DefinitionError } from './definition-error';
import type { Registry, ResolvedModel } from './registry-types';
import type { FaultCollector } from './fault-collector';

/**
 * The `instantiate` rules of a model name what exists: the template and copy models, foreign keys where
 * relations are matched, set and referred to, stored fields copied under the same name in both models,
 * and substitution paths through at most one foreign key. Each rule's first fault is kept in `faults`.
 */
export function checkInstantiateRules(registry: Registry, model: ResolvedModel, file: string, faults: FaultCollector): void {
  for (const [i, rule] of (model.def.instantiate ?? []).entries()) faults.attempt(file, `/instantiate/${i}`, () => {
    const at = `/instantiate/${i}`;
    const fail = (pointer: string, reason: string): never => {
      throw new DefinitionError(file, `${at}/${pointer}`, reason);
    };
    const from = registry.models.get(rule.from) ?? fail('from', `unknown model "${rule.from}"`);
    const to = registry.models.get(rule.to) ?? fail('to', `unknown model "${rule.to}"`);
    const fk = (m: ResolvedModel, name: string, pointer: string) => {
      const f = m.fields.get(name);
      if (f?.kind !== 'fk') fail(pointer, `${m.label} has no foreign key "${name}"`);
      return f!;
    };
    for (const [tpl, own] of Object.entries(rule.match)) {
      const a = fk(from, tpl, `match/${tpl}`);
      const b = fk(model, own, `match/${tpl}`);
      if (a.target !== b.target) fail(`match/${tpl}`, `${from.label}.${tpl} and ${model.label}.${own} point at different models`);
    }
    for (const [copy, own] of Object.entries(rule.set)) {
      const f = fk(to, copy, `set/${copy}`);
      const target = own === 'id' ? model : fk(model, own, `set/${copy}`).target;
      if (f.target !== target) fail(`set/${copy}`, `${to.label}.${copy} does not point at what "${own}" is`);
    }
    for (const [j, name] of (rule.copy ?? []).entries()) {
      const a = from.fields.get(name);
      const b = to.fields.get(name);
      if (!a?.column || !b?.column || a.kind !== b.kind) fail(`copy/${j}`, `"${name}" is not a stored field of the same kind in ${from.label} and ${to.label}`);
    }
    for (const [name, by] of Object.entries(rule.refs ?? {})) {
      const tpl = fk(from, name, `refs/${name}`);
      const copy = fk(to, name, `refs/${name}`);
      if (!tpl.target!.fields.get(by)?.column || !copy.target!.fields.get(by)?.column) fail(`refs/${name}`, `"${by}" is not a stored field of ${tpl.target!.label} and ${copy.target!.label}`);
    }
    if (rule.substitute) {
      const path = rule.substitute.with;
      const [head, tail, more] = path.split('.');
      const f = model.fields.get(head!);
      const ok = !more && f?.column && (!tail || (f.kind === 'fk' && f.target!.fields.get(tail)?.column));
      if (!ok) fail('substitute/with', `"${path}" is not a stored field of ${model.label}, nor one behind one of its foreign keys`);
      for (const [j, name] of rule.substitute.in.entries()) {
        const kind = from.fields.get(name)?.kind;
        if (!(rule.copy ?? []).includes(name) || (kind !== 'string' && kind !== 'text')) fail(`substitute/in/${j}`, `"${name}" is not a copied text field`);
      }
    }
  });
}
