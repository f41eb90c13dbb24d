import type { Registry, ResolvedModel } from '../../definitions/registry-types';
import { pathNodes, type PathNodes } from '../../definitions/path-nodes';
import { column, ident, join, sql } from '../../sql/fragment';
import { runRows } from '../../database/run';
import type { Db } from '../../database/db';


/** A node of a path: [type label, id], as stored in a path's hops. */
export type PathNode = [string, number];

interface Traced {
  path: PathNode[][];
  isComplete: boolean;
  isActive: boolean;
  isSplit: boolean;
}

/**
 * Every path change takes this transaction-scoped advisory lock first, so two transactions cabling
 * at once recompute paths one after the other, each seeing the other's committed cables: no path is
 * stored from a view of the cabling that another commit has already changed. (The key is arbitrary,
 * "Path" in ASCII.)
 */
const PATH_LOCK = 0x50617468;

/** Hops through pass-through ports are bounded: a cabling loop (rear port to its own front port) ends. */
const MAX_HOPS = 256;

const ids = (rows: Array<{ id: number | string }>): number[] => rows.map((r) => Number(r.id));

/** The objects at the far end of the cables attached to these terminations, and those cables. */
async function across(db: Db, p: PathNodes, type: string, nodeIds: number[]): Promise<{ cables: Array<{ id: number; status: string }>; far: PathNode[] }> {
  const t = p.termination;
  const [typeCol, idCol, cableCol, endCol] = [t.termination.typeColumn, t.termination.idColumn, t.cable.column, t.end.column];
  const near = await runRows<{ cable: number | string; end: string }>(db, sql`SELECT ${ident(cableCol)} AS "cable", ${ident(endCol)} AS "end" FROM ${ident(t.model.table)}
    WHERE ${ident(typeCol)} = ${type}::text AND ${ident(idCol)} = ANY(${nodeIds}) ORDER BY "id"`);
  if (!near.length) return { cables: [], far: [] };
  const cableIds = [...new Set(near.map((r) => Number(r.cable)))];
  const cables = await runRows<{ id: number | string; status: string }>(db, sql`SELECT "id", ${ident(p.cable.status.column)} AS "status" FROM ${ident(p.cable.model.table)} WHERE "id" = ANY(${cableIds}) ORDER BY "id"`);
  const farEnds = near.map((r) => `${String(r.cable)}:${r.end === 'A' ? 'B' : 'A'}`);
  const far = await runRows<{ type: string; id: number | string }>(db, sql`SELECT ${ident(typeCol)} AS "type", ${ident(idCol)} AS "id" FROM ${ident(t.model.table)}
    WHERE (${ident(cableCol)}::text || ':' || ${ident(endCol)}) = ANY(${farEnds}) ORDER BY "id"`);
  return { cables: cables.map((c) => ({ id: Number(c.id), status: c.status })), far: far.map((r): PathNode => [r.type, Number(r.id)]) };
}

/**
 * The link rows (a wireless link) attached to these endpoints, and the endpoints at their other ends: NetBox's
 * from_origin when an interface's link is a WirelessLink rather than a cable.
 */
async function acrossLinks(db: Db, p: PathNodes, type: string, nodeIds: number[]): Promise<{ links: Array<{ node: PathNode; status: string }>; far: PathNode[] }> {
  for (const [model, l] of p.links) {
    if (l.a.target.label !== type && l.b.target.label !== type) continue;
    const rows = await runRows<{ id: number | string; status: string; a: number | string; b: number | string }>(db, sql`SELECT "id", ${ident(l.status)} AS "status", ${ident(l.a.column)} AS "a", ${ident(l.b.column)} AS "b"
      FROM ${ident(model.table)} WHERE ${ident(l.a.column)} = ANY(${nodeIds}) OR ${ident(l.b.column)} = ANY(${nodeIds}) ORDER BY "id"`);
    if (!rows.length) continue;
    const near = new Set(nodeIds);
    return {
      links: rows.map((r) => ({ node: [model.label, Number(r.id)], status: r.status })),
      far: rows.map((r): PathNode => (near.has(Number(r.a)) && l.a.target.label === type ? [l.b.target.label, Number(r.b)] : [l.a.target.label, Number(r.a)])),
    };
  }
  return { links: [], far: [] };
}

function modelOf(registry: Registry, label: string): ResolvedModel | undefined {
  return registry.models.get(label);
}

/**
 * The path from an origin, as NetBox 3.7's CablePath.from_origin traces it: through each cable to its far
 * end; a front port continues at its rear port (remembering the position when the rear port has several),
 * a rear port at the front port of the position last remembered (several positions and none remembered:
 * the path splits), a circuit termination at the circuit's other termination (ending at its provider
 * network or uncabled site); an endpoint ends the path, complete. Null when the origin has no cable.
 */
async function trace(db: Db, registry: Registry, p: PathNodes, origin: PathNode): Promise<Traced | null> {
  const path: PathNode[][] = [];
  const stack: number[][] = [];
  let isComplete = false;
  let isActive = true;
  let isSplit = false;
  let terms: PathNode[] = [origin];
  for (let hop = 0; terms.length && hop < MAX_HOPS; hop++) {
    const type = terms[0]![0];
    path.push(terms);
    const cabled = await across(db, p, type, terms.map((n) => n[1]));
    // A cable wins; without one, a link row (a wireless link) joins the endpoints as a cable would.
    const { links, far } = cabled.cables.length
      ? { links: cabled.cables.map((c) => ({ node: [p.cable.model.label, c.id] as PathNode, status: c.status })), far: cabled.far }
      : await acrossLinks(db, p, type, terms.map((n) => n[1]));
    if (!links.length) {
      if (path.length === 1) return null;
      break;
    }
    path.push(links.map((c) => c.node));
    if (links.some((c) => c.status !== 'connected')) isActive = false;
    // The far ends are recorded whatever comes next (an empty hop when the cable has none).
    path.push(far);
    if (!far.length) break;
    const farModel = modelOf(registry, far[0]![0]);
    const farIds = far.map((n) => n[1]);
    const front = farModel && p.front.get(farModel);
    const rear = farModel && p.rear.get(farModel);
    const circuit = farModel && p.circuit.get(farModel);
    if (farModel && front) {
      const rows = await runRows<{ rear: number | string; position: number }>(db, sql`SELECT ${ident(front.rearPort.column)} AS "rear", ${ident(front.position)} AS "position" FROM ${ident(farModel.table)} WHERE "id" = ANY(${farIds}) ORDER BY "id"`);
      const rearModel = front.rearPort.target;
      const rearIds = [...new Set(rows.map((r) => Number(r.rear)))];
      const rears = await runRows<{ id: number | string; positions: number }>(db, sql`SELECT "id", ${ident(p.rear.get(rearModel)!.positions)} AS "positions" FROM ${ident(rearModel.table)} WHERE "id" = ANY(${rearIds}) ORDER BY "id"`);
      if (rears.length > 1 || Number(rears[0]?.positions ?? 1) > 1) stack.push(rows.map((r) => Number(r.position)));
      terms = ids(rears).map((id): PathNode => [rearModel.label, id]);
    } else if (farModel && rear) {
      const fronts = [...p.front].filter(([, f]) => f.rearPort.target === farModel);
      const [frontModel, f] = fronts[0] ?? [];
      if (!frontModel || !f) break;
      let positions: number[];
      const single = far.length === 1 ? await runRows<{ positions: number }>(db, sql`SELECT ${ident(rear.positions)} AS "positions" FROM ${ident(farModel.table)} WHERE "id" = ${farIds[0]}::bigint`) : [];
      if (far.length === 1 && Number(single[0]?.positions) === 1) positions = [1];
      else if (stack.length) positions = stack.pop()!;
      else {
        // No position remembered: the path fans out over every position, so it stops at the rear ports.
        isSplit = true;
        break;
      }
      const rows = await runRows<{ id: number | string }>(db, sql`SELECT "id" FROM ${ident(frontModel.table)} WHERE ${ident(f.rearPort.column)} = ANY(${farIds}) AND ${ident(f.position)} = ANY(${positions}) ORDER BY "id"`);
      terms = ids(rows).map((id): PathNode => [frontModel.label, id]);
    } else if (farModel && circuit) {
      if (far.length > 1) {
        isSplit = true;
        break;
      }
      const ends = circuit.ends.map((e, i) => sql`${column('o', e.column)} AS ${ident(`e${i}`)}`);
      const [other] = await runRows<Record<string, number | string | null>>(db, sql`SELECT ${join([sql`"o"."id"`, ...ends])}
        FROM ${ident(farModel.table)} AS "o" JOIN ${ident(farModel.table)} AS "n" ON ${column('n', circuit.circuit.column)} = ${column('o', circuit.circuit.column)} AND ${column('n', circuit.side)} <> ${column('o', circuit.side)}
        WHERE "n"."id" = ${farIds[0]}::bigint`);
      if (!other) break;
      const otherNode: PathNode = [farModel.label, Number(other.id)];
      const cabled = await runRows<{ id: number }>(db, sql`SELECT "id" FROM ${ident(p.termination.model.table)} WHERE ${ident(p.termination.termination.typeColumn)} = ${farModel.label}::text AND ${ident(p.termination.termination.idColumn)} = ${otherNode[1]}::bigint`);
      const endIndex = circuit.ends.findIndex((_, i) => other[`e${i}`] !== null && other[`e${i}`] !== undefined);
      // The first end (a provider network) completes the path; a site ends it when nothing is cabled there.
      if (endIndex === 0 || (endIndex > 0 && !cabled.length)) {
        const end = circuit.ends[endIndex]!;
        path.push([otherNode], [[end.target.label, Number(other[`e${endIndex}`])]]);
        if (endIndex === 0) isComplete = true;
        break;
      }
      terms = [otherNode];
    } else {
      isComplete = true;
      break;
    }
  }
  return { path, isComplete, isActive, isSplit };
}

/** Origins of stored paths that pass through any of these nodes. */
async function originsThrough(db: Db, p: PathNodes, nodes: PathNode[]): Promise<PathNode[]> {
  if (!nodes.length) return [];
  const e = p.ends;
  const probes = nodes.map((n) => JSON.stringify([[n]]));
  const rows = await runRows<{ type: string; id: number | string }>(db, sql`SELECT DISTINCT "e".${ident(e.node.typeColumn)} AS "type", "e".${ident(e.node.idColumn)} AS "id"
    FROM ${ident(e.model.table)} AS "e" JOIN ${ident(p.store.model.table)} AS "s" ON "s"."id" = "e".${ident(e.path.column)}
    WHERE "e".${ident(e.end)} = 'origin' AND "s".${ident(p.store.path)} @> ANY(${probes}::jsonb[])`);
  return rows.map((r): PathNode => [r.type, Number(r.id)]);
}

/** The terminations of these cables, with the endpoints among them. */
async function cableNodes(db: Db, p: PathNodes, cableIds: number[]): Promise<PathNode[]> {
  const t = p.termination;
  const rows = await runRows<{ type: string; id: number | string }>(db, sql`SELECT ${ident(t.termination.typeColumn)} AS "type", ${ident(t.termination.idColumn)} AS "id" FROM ${ident(t.model.table)} WHERE ${ident(t.cable.column)} = ANY(${cableIds}) ORDER BY "id"`);
  return rows.map((r): PathNode => [r.type, Number(r.id)]);
}

/** The origins whose paths a change to these cables may alter: their endpoints, and every path through them or their ends. */
async function affectedOrigins(db: Db, registry: Registry, p: PathNodes, cableIds: number[]): Promise<PathNode[]> {
  const terms = await cableNodes(db, p, cableIds);
  const cables = cableIds.map((id): PathNode => [p.cable.model.label, id]);
  const through = await originsThrough(db, p, [...cables, ...terms]);
  const endpoints = terms.filter((n) => {
    const m = modelOf(registry, n[0]);
    return m !== undefined && p.endpoints.has(m);
  });
  const seen = new Map<string, PathNode>();
  for (const n of [...endpoints, ...through]) seen.set(`${n[0]}:${n[1]}`, n);
  return [...seen.values()];
}

/** Replaces the stored path of each origin with the one traced now (none when it has no cable). */
async function retrace(db: Db, registry: Registry, p: PathNodes, origins: PathNode[]): Promise<void> {
  const { store, ends } = p;
  for (const origin of origins) {
    await runRows(db, sql`DELETE FROM ${ident(store.model.table)} WHERE "id" IN (SELECT ${ident(ends.path.column)} FROM ${ident(ends.model.table)}
      WHERE ${ident(ends.end)} = 'origin' AND ${ident(ends.node.typeColumn)} = ${origin[0]}::text AND ${ident(ends.node.idColumn)} = ${origin[1]}::bigint)`);
    const traced = await trace(db, registry, p, origin);
    if (!traced) continue;
    const [row] = await runRows<{ id: number | string }>(db, sql`INSERT INTO ${ident(store.model.table)} (${ident(store.path)}, ${ident(store.isComplete)}, ${ident(store.isActive)}, ${ident(store.isSplit)})
      VALUES (${JSON.stringify(traced.path)}::jsonb, ${traced.isComplete}, ${traced.isActive}, ${traced.isSplit}) RETURNING "id"`);
    // The destinations: the last hop of a complete path (the objects connected_endpoints shows).
    const destinations = traced.isComplete ? traced.path[traced.path.length - 1]! : [];
    const rows = [['origin', origin] as const, ...destinations.map((d) => ['destination', d] as const)];
    for (const [end, node] of rows) {
      const reachable = end === 'origin' && traced.isComplete && traced.isActive;
      await runRows(db, sql`INSERT INTO ${ident(ends.model.table)} (${ident(ends.path.column)}, ${ident(ends.end)}, ${ident(ends.reachable)}, ${ident(ends.node.typeColumn)}, ${ident(ends.node.idColumn)})
        VALUES (${Number(row!.id)}::bigint, ${end}::text, ${reachable}, ${node[0]}::text, ${node[1]}::bigint)`);
    }
  }
}

async function lock(db: Db): Promise<void> {
  await runRows(db, sql`SELECT pg_advisory_xact_lock(${PATH_LOCK}::bigint)`);
}

/** After cables are created or changed, in their transaction: the paths through them, stored again. */
export async function cablesWritten(db: Db, registry: Registry, model: ResolvedModel, cableIds: number[]): Promise<void> {
  const p = pathNodes(registry);
  if (!p || p.cable.model !== model || !cableIds.length) return;
  await lock(db);
  await retrace(db, registry, p, await affectedOrigins(db, registry, p, cableIds));
}

/** The cables of these cable terminations. */
async function cablesOf(db: Db, p: PathNodes, terminationIds: number[]): Promise<number[]> {
  const t = p.termination;
  const rows = await runRows<{ cable: number | string }>(db, sql`SELECT DISTINCT ${ident(t.cable.column)} AS "cable" FROM ${ident(t.model.table)} WHERE "id" = ANY(${terminationIds})`);
  return rows.map((r) => Number(r.cable));
}

/**
 * The pass-through nodes whose change alters the paths through them: the ports themselves and, for front
 * ports, the rear ports they map to now (a new mapping can extend a path that stopped at the rear port).
 */
async function passThroughNodes(db: Db, p: PathNodes, model: ResolvedModel, ids: number[]): Promise<PathNode[]> {
  const nodes = ids.map((id): PathNode => [model.label, id]);
  const front = p.front.get(model);
  if (front) {
    const rows = await runRows<{ rear: number | string }>(db, sql`SELECT DISTINCT ${ident(front.rearPort.column)} AS "rear" FROM ${ident(model.table)} WHERE "id" = ANY(${ids})`);
    for (const r of rows) nodes.push([front.rearPort.target.label, Number(r.rear)]);
  }
  return nodes;
}

/** The origins a change to these link rows may alter: the endpoints they join now, and every path through them. */
async function linkOrigins(db: Db, p: PathNodes, model: ResolvedModel, ids: number[]): Promise<PathNode[]> {
  const l = p.links.get(model)!;
  const rows = await runRows<{ a: number | string; b: number | string }>(db, sql`SELECT ${ident(l.a.column)} AS "a", ${ident(l.b.column)} AS "b" FROM ${ident(model.table)} WHERE "id" = ANY(${ids}) ORDER BY "id"`);
  const ends = rows.flatMap((r): PathNode[] => [[l.a.target.label, Number(r.a)], [l.b.target.label, Number(r.b)]]);
  const through = await originsThrough(db, p, ids.map((id): PathNode => [model.label, id]));
  const seen = new Map<string, PathNode>();
  for (const n of [...ends, ...through]) seen.set(`${n[0]}:${n[1]}`, n);
  return [...seen.values()];
}

function isPassThrough(p: PathNodes, model: ResolvedModel): boolean {
  return p.front.has(model) || p.rear.has(model);
}

/**
 * After cables, cable terminations or pass-through ports are created or changed, in their transaction:
 * the paths through them, stored again.
 */
export async function pathsWritten(db: Db, registry: Registry, model: ResolvedModel, ids: number[]): Promise<void> {
  const p = pathNodes(registry);
  if (!p || !ids.length) return;
  const link = p.links.get(model);
  if (link) {
    await lock(db);
    await retrace(db, registry, p, await linkOrigins(db, p, model, ids));
  } else if (p.cable.model === model) await cablesWritten(db, registry, model, ids);
  else if (p.termination.model === model) await cablesWritten(db, registry, p.cable.model, await cablesOf(db, p, ids));
  else if (isPassThrough(p, model)) {
    await lock(db);
    await retrace(db, registry, p, await originsThrough(db, p, await passThroughNodes(db, p, model, ids)));
  }
}

/** Whether writes of this model's objects retrace paths (the engine then writes them outside its one-statement path). */
export function writesRetracePaths(model: ResolvedModel): boolean {
  const kind = model.def.path_node?.kind;
  return kind === 'cable' || kind === 'link' || kind === 'cable_termination' || kind === 'front_port' || kind === 'rear_port';
}

/**
 * Before cables are deleted, in the delete's transaction: the origins whose paths run through them; the
 * returned function traces those paths again once the cables are gone.
 */
export async function pathsDeleting(db: Db, registry: Registry, model: ResolvedModel, cableIds: number[]): Promise<() => Promise<void>> {
  const p = pathNodes(registry);
  if (!p || !cableIds.length || (p.cable.model !== model && !isPassThrough(p, model) && !p.links.has(model))) return async () => {};
  await lock(db);
  // A link going: its two endpoints and the paths through it are traced again without it.
  if (p.links.has(model)) {
    const origins = await linkOrigins(db, p, model, cableIds);
    return () => retrace(db, registry, p, origins);
  }
  // A pass-through port going: the paths through it are traced again without it (their nodes would name nothing).
  const origins = p.cable.model === model ? await affectedOrigins(db, registry, p, cableIds) : await originsThrough(db, p, await passThroughNodes(db, p, model, cableIds));
  return () => retrace(db, registry, p, origins);
}

/** Cables whose terminations a transaction deleted (an interface deleted with its device takes its cable end along). */
const cablesLosingEnds = new WeakMap<object, Set<number>>();

/** Notes the cables of cable terminations about to be deleted (called for every delete of the termination model). */
export async function noteTerminationsDeleting(db: Db, registry: Registry, model: ResolvedModel, ids: readonly number[]): Promise<void> {
  const p = pathNodes(registry);
  if (!p || p.termination.model !== model || !ids.length) return;
  await lock(db);
  const set = cablesLosingEnds.get(db) ?? new Set<number>();
  for (const c of await cablesOf(db, p, [...ids])) set.add(c);
  cablesLosingEnds.set(db, set);
}

/**
 * After a delete that took cable ends with it: the paths through those cables are traced again from
 * their origins still standing, and paths whose origin went with the delete are dropped.
 */
export async function retraceCablesLosingEnds(db: Db, registry: Registry): Promise<void> {
  const p = pathNodes(registry);
  const set = cablesLosingEnds.get(db);
  cablesLosingEnds.delete(db);
  if (!p || !set?.size) return;
  const cableIds = [...set];
  const origins = await affectedOrigins(db, registry, p, cableIds);
  const probes = cableIds.map((id) => JSON.stringify([[[p.cable.model.label, id]]]));
  await runRows(db, sql`DELETE FROM ${ident(p.store.model.table)} WHERE ${ident(p.store.path)} @> ANY(${probes}::jsonb[])`);
  await retrace(db, registry, p, origins);
}
