import type { ResolvedField, ResolvedModel, Registry } from '../definitions/registry-types';

/**
 * The order an import writes types in, derived from the definitions' relations alone (no list kept by
 * hand): a type comes after every type it must point at (a required foreign key or generic relation).
 * Relations that may be empty and point at a type written later — a device's primary IPv4 address, an
 * address's assigned interface when the order puts it first — are left empty in the first pass and set
 * in a second pass once both ends exist. A relation to the type itself (a region's parent) is kept in the
 * first pass: objects of the type are written parents first (selfReferencesFirst).
 */

export interface TypeStep {
  model: ResolvedModel;
  /**
   * Fields left out of the first pass and set in the second: by name, with, for a generic relation, the
   * types it is deferred for (an address assigned to a VM interface waits; one on a device interface does not).
   */
  deferred: Map<string, ReadonlySet<string> | 'all'>;
  /** Fields pointing at the type itself: objects are written in an order that has their targets first. */
  selfFields: ResolvedField[];
}

interface Edge {
  to: ResolvedModel;
  field: ResolvedField;
  hard: boolean;
}

/** What the import carries: every type served for writing, the change log history when asked for. */
export function importedModels(registry: Registry, withChangeLog: boolean): ResolvedModel[] {
  const log = registry.roles.get('object_change');
  return [...registry.models.values()]
    .filter((m) => m.exposed && (!m.def.read_only || (withChangeLog && m === log)))
    .sort((a, b) => a.label.localeCompare(b.label));
}

/** A `children` field whose rows are a type imported on its own (a cable's terminations): not written through the parent. */
export function childrenImportedApart(field: ResolvedField, imported: ReadonlySet<ResolvedModel>): boolean {
  return field.kind === 'children' && imported.has(field.children.model);
}

function edgesOf(model: ResolvedModel, imported: ReadonlySet<ResolvedModel>, customFields: ResolvedModel | undefined): Edge[] {
  const out: Edge[] = [];
  const add = (to: ResolvedModel, field: ResolvedField, hard: boolean) => {
    if (imported.has(to)) out.push({ to, field, hard });
  };
  // A read-only model (the change log) is written row by row as stored: its relations are kept as they are.
  const readOnlyModel = model.def.read_only === true;
  for (const f of model.fieldList) {
    if (f.readOnly && !readOnlyModel) continue;
    if (f.kind === 'fk') add(f.target, f, f.required && !f.nullable);
    else if (f.kind === 'm2m' || f.kind === 'tags') add(f.target, f, false);
    else if (f.kind === 'generic_fk') for (const t of f.genericTargets) add(t, f, f.required && !f.nullable);
    else if (f.kind === 'custom_fields' && customFields && customFields !== model) add(customFields, f, true);
  }
  return out;
}

/** Types in write order, with the fields each leaves to the second pass. Throws on a cycle of required relations. */
export function importOrder(registry: Registry, models: readonly ResolvedModel[]): TypeStep[] {
  const imported = new Set(models);
  const customFields = registry.roles.get('custom_field');
  const edges = new Map(models.map((m) => [m, edgesOf(m, imported, customFields)]));
  const placed = new Set<ResolvedModel>();
  const steps: TypeStep[] = [];
  const remaining = new Set(models);
  while (remaining.size) {
    let best: { model: ResolvedModel; waiting: number } | null = null;
    for (const m of remaining) {
      const out = edges.get(m)!.filter((e) => e.to !== m);
      if (out.some((e) => e.hard && !placed.has(e.to))) continue;
      // Fewest types still to come that it points at: the fewest relations left for the second pass.
      const waiting = new Set(out.filter((e) => !placed.has(e.to)).map((e) => e.to)).size;
      if (!best || waiting < best.waiting || (waiting === best.waiting && m.label < best.model.label)) best = { model: m, waiting };
    }
    if (!best) {
      const stuck = [...remaining].map((m) => m.label).join(', ');
      throw new Error(`the definitions have a cycle of required relations among ${stuck}: no import order exists`);
    }
    const m = best.model;
    const out = edges.get(m)!;
    const deferred = new Map<string, Set<string> | 'all'>();
    for (const e of out) {
      if (e.to === m || placed.has(e.to)) continue;
      if (e.field.kind !== 'generic_fk') deferred.set(e.field.name, 'all');
      else {
        const types = deferred.get(e.field.name);
        if (types === undefined) deferred.set(e.field.name, new Set([e.to.label]));
        else if (types !== 'all') types.add(e.to.label);
      }
    }
    const selfFields = [...new Set(out.filter((e) => e.to === m && deferred.get(e.field.name) !== 'all').map((e) => e.field))];
    steps.push({ model: m, deferred, selfFields });
    placed.add(m);
    remaining.delete(m);
  }
  // A relation with validators judges the object it names as it stands (a virtual machine's primary
  // address must be assigned to one of its interfaces). If that object is completed in the second pass
  // (the address's assignment to an interface written later), the relation waits for the second pass too.
  const byModel = new Map(steps.map((s) => [s.model, s]));
  for (const s of steps) {
    for (const f of s.model.fieldList) {
      if (f.kind !== 'fk' || f.readOnly || !f.def.validators?.length || s.deferred.has(f.name) || f.target === s.model) continue;
      if (f.required && !f.nullable) continue;
      const target = byModel.get(f.target);
      if (target?.deferred.size) s.deferred.set(f.name, 'all');
    }
  }
  return steps;
}

/** The id a field of the representation names when it points at the type itself (null when it does not). */
function selfTarget(field: ResolvedField, model: ResolvedModel, o: Record<string, unknown>): number | null {
  if (field.kind === 'fk') {
    const v = o[field.name];
    const id = v && typeof v === 'object' ? (v as { id?: unknown }).id : v;
    return typeof id === 'number' ? id : null;
  }
  if (field.kind === 'generic_fk') {
    return o[field.typeColumn] === model.label && typeof o[field.idColumn] === 'number' ? (o[field.idColumn] as number) : null;
  }
  return null;
}

/**
 * The objects of one type with every object after those it points at through a self-relation (a tree's
 * parents first). Objects in a cycle of such relations (which no tree has) come in id order; their
 * self-relation values are returned to be set in the second pass. `linked`: whether any object of the
 * set names another through them (else the order does not matter).
 */
export function selfReferencesFirst<T extends Record<string, unknown> & { id: number }>(model: ResolvedModel, objects: readonly T[], selfFields: readonly ResolvedField[]): { ordered: T[]; cyclic: Set<number>; linked: boolean } {
  if (!selfFields.length) return { ordered: [...objects], cyclic: new Set(), linked: false };
  let linked = false;
  const byId = new Map(objects.map((o) => [o.id, o]));
  const state = new Map<number, 'visiting' | 'done'>();
  const ordered: T[] = [];
  const cyclic = new Set<number>();
  for (const start of objects) {
    if (state.has(start.id)) continue;
    // Iterative depth-first walk: a tree may be thousands deep.
    const stack: Array<{ o: T; next: number[] }> = [];
    const enter = (o: T) => {
      state.set(o.id, 'visiting');
      const next = selfFields.map((f) => selfTarget(f, model, o)).filter((id): id is number => id !== null && byId.has(id));
      if (next.length) linked = true;
      stack.push({ o, next });
    };
    enter(start);
    while (stack.length) {
      const top = stack[stack.length - 1]!;
      const id = top.next.pop();
      if (id === undefined) {
        stack.pop();
        state.set(top.o.id, 'done');
        ordered.push(top.o);
        continue;
      }
      const s = state.get(id);
      if (s === 'visiting') cyclic.add(top.o.id);
      else if (s === undefined) enter(byId.get(id)!);
    }
  }
  return { ordered, cyclic, linked };
}
