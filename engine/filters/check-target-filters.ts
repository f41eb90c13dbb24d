import type { Registry } from '../definitions/registry-types';
import type { FaultCollector } from '../definitions/fault-collector';
import { checkDeclaredFilter } from './domain-filters';

/**
 * A generic relation's target_filters are built on every type it may point at, at startup and by
 * `check`: a fault is reported at the offering file's declaration and names the type it fails on.
 */
export function checkTargetFilters(registry: Registry, faults: FaultCollector): void {
  for (const model of registry.models.values()) {
    for (const f of model.fieldList) {
      if (f.kind !== 'generic_fk' || f.def.type !== 'generic_fk') continue;
      for (const [name, spec] of Object.entries(f.def.target_filters ?? {})) {
        const at = `/fields/${f.name}/target_filters/${name}`;
        for (const target of f.genericTargets) {
          if (faults.has(model.file, at)) break;
          faults.attempt(model.file, at, () => {
            try {
              checkDeclaredFilter(target, name, spec);
            } catch (e) {
              throw e instanceof Error && !(e instanceof TypeError) ? new Error(`on ${target.label}: ${e.message}`) : e;
            }
          });
        }
      }
    }
  }
}
