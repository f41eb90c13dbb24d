import type { FkField, GenericField, Registry, ResolvedField, ResolvedModel } from './registry-types';
import { DefinitionError } from './definition-error';
import type { FaultCollector } from './fault-collector';

/**
 * The `path_node` word resolved: which models cable paths pass through and how (NetBox's
 * CablePath.from_origin), and where paths are stored. Checked at startup; the engine reads this,
 * never a model's name.
 */
export interface PathNodes {
  cable: { model: ResolvedModel; status: ResolvedField & { column: string } };
  termination: { model: ResolvedModel; cable: FkField; end: ResolvedField & { column: string }; termination: GenericField };
  store: { model: ResolvedModel; path: string; isComplete: string; isActive: string; isSplit: string };
  ends: { model: ResolvedModel; path: FkField; end: string; reachable: string; node: GenericField };
  endpoints: Set<ResolvedModel>;
  front: Map<ResolvedModel, { rearPort: FkField; position: string }>;
  rear: Map<ResolvedModel, { positions: string }>;
  /** Rows joining two endpoints as a cable would (a wireless link): a path from either crosses it to the other. */
  links: Map<ResolvedModel, { a: FkField; b: FkField; status: string }>;
  circuit: Map<ResolvedModel, { circuit: FkField; side: string; ends: FkField[] }>;
}

const cache = new WeakMap<Registry, PathNodes | null>();

/** The registry's cable path nodes, or null when no model declares the stores (no paths kept). */
export function pathNodes(registry: Registry): PathNodes | null {
  if (!cache.has(registry)) cache.set(registry, resolvePathNodes(registry));
  return cache.get(registry)!;
}

type Gathered = Omit<PathNodes, 'cable' | 'termination' | 'store' | 'ends'> & Partial<PathNodes>;

const gathering = (): Gathered => ({ endpoints: new Set(), front: new Map(), rear: new Map(), circuit: new Map(), links: new Map() }) as Gathered;

/**
 * Every model's path_node words checked on its own (each model's first fault is kept), then, when
 * they all resolve, how they fit together.
 */
export function checkPathNodes(registry: Registry, faults: FaultCollector): void {
  const out = gathering();
  const before = faults.count;
  for (const model of registry.models.values()) {
    if (model.def.path_node) faults.attempt(model.file, '/path_node', () => addPathNode(model, out));
  }
  if (faults.count === before) faults.attempt('schema', '/path_node', () => pathNodes(registry));
}

function resolvePathNodes(registry: Registry): PathNodes | null {
  const out = gathering();
  for (const model of registry.models.values()) addPathNode(model, out);
  if (!out.store && !out.ends) return null;
  if (!out.store || !out.ends || !out.cable || !out.termination) throw new DefinitionError('schema', '/path_node', 'cable paths need a path, a path_end, a cable and a cable_termination model');
  if (out.termination.cable.target !== out.cable.model) throw new DefinitionError(out.termination.model.file, '/path_node/cable', `does not point at ${out.cable.model.label}`);
  if (out.ends.path.target !== out.store.model) throw new DefinitionError(out.ends.model.file, '/path_node', `"path" does not point at ${out.store.model.label}`);
  for (const [link, l] of out.links) {
    for (const end of ['a', 'b'] as const) if (!out.endpoints.has(l[end].target)) throw new DefinitionError(link.file, `/path_node/${end}`, `${l[end].target.label} is not an endpoint path node`);
  }
  for (const [front, f] of out.front) if (!out.rear.has(f.rearPort.target)) throw new DefinitionError(front.file, '/path_node/rear_port', `${f.rearPort.target.label} is not a rear_port path node`);
  return out as PathNodes;
}

/** One model's path_node words: the fields they name exist with the right kinds. */
function addPathNode(model: ResolvedModel, out: Gathered): void {
  const w = model.def.path_node;
  if (!w) return;
  const at = (k: string) => `/path_node/${k}`;
  const field = (k: keyof typeof w, kind?: string): ResolvedField => {
    const name = w[k];
    const f = typeof name === 'string' ? model.fields.get(name) : undefined;
    if (!f || (kind && f.kind !== kind) || (!kind && !f.column)) throw new DefinitionError(model.file, at(k), `"${String(name ?? '')}" is not a ${kind ?? 'stored'} field of ${model.label}`);
    return f;
  };
  const stored = (name: string): string => {
    const f = model.fields.get(name);
    if (!f?.column) throw new DefinitionError(model.file, '/path_node', `${model.label} needs a stored "${name}" field`);
    return f.column;
  };
  switch (w.kind) {
    case 'endpoint':
      out.endpoints.add(model);
      break;
    case 'front_port':
      out.front.set(model, { rearPort: field('rear_port', 'fk') as FkField, position: field('position').column! });
      break;
    case 'rear_port':
      out.rear.set(model, { positions: field('positions').column! });
      break;
    case 'circuit_termination': {
      const ends = (w.ends ?? []).map((n, i) => {
        const f = model.fields.get(n);
        if (f?.kind !== 'fk') throw new DefinitionError(model.file, at(`ends/${i}`), `"${n}" is not a foreign key of ${model.label}`);
        return f as FkField;
      });
      out.circuit.set(model, { circuit: field('circuit', 'fk') as FkField, side: field('side').column!, ends });
      break;
    }
    case 'cable':
      if (out.cable) throw new DefinitionError(model.file, at('kind'), 'only one model may be the cable');
      out.cable = { model, status: field('status') as ResolvedField & { column: string } };
      break;
    case 'link':
      out.links.set(model, { a: field('a', 'fk') as FkField, b: field('b', 'fk') as FkField, status: field('status').column! });
      break;
    case 'cable_termination':
      out.termination = { model, cable: field('cable', 'fk') as FkField, end: field('end') as ResolvedField & { column: string }, termination: field('termination', 'generic_fk') as GenericField };
      break;
    case 'path':
      out.store = { model, path: stored('path'), isComplete: stored('is_complete'), isActive: stored('is_active'), isSplit: stored('is_split') };
      break;
    case 'path_end': {
      const path = model.fields.get('path');
      const node = model.fields.get('node');
      if (path?.kind !== 'fk' || node?.kind !== 'generic_fk') throw new DefinitionError(model.file, '/path_node', `${model.label} needs a "path" foreign key and a "node" generic relation`);
      out.ends = { model, path: path as FkField, end: stored('end'), reachable: stored('reachable'), node: node as GenericField };
      break;
    }
  }
}
