import type { ResolvedModel } from './registry-types';
import type { FaultCollector } from './fault-collector';

/** Definitions that load but cannot work at request time, refused with their pointers. */
export function checkModelSense(model: ResolvedModel, faults: FaultCollector): void {
  void model;
  void faults;
}
