import http from 'node:http';
import { sleep } from '../stats';
import type { Rotation } from './health-checks';
import { emptyTally, type Outcome, type Tally } from './tally';

/** How long a request may take before it counts as hung (a drain lets requests finish well within it). */
const HUNG_MS = 30_000;

export interface Work {
  urls: string[];
  token: string;
  /** Set to true to end the client loops. */
  stop: { now: boolean };
  /** With health checks (--health-check-ms), requests go only to the instances in rotation; without, to all. */
  rotation?: Rotation;
}

/** How long a client waits when no instance is in rotation. */
const NONE_IN_ROTATION_MS = 20;

interface Req {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
}

let serial = 0;
/** Four reads to one write, as automation that syncs inventory does. */
function nextRequest(): Req {
  const n = ++serial;
  if (n % 5 !== 0) return { method: 'GET', path: '/api/dcim/sites/?limit=10' };
  const name = `restart-${process.pid}-${n}`;
  return { method: 'POST', path: '/api/dcim/sites/', body: JSON.stringify({ name, slug: name }) };
}

/** One request through node:http with a keep-alive agent, classified by how it ended. */
function viaAgent(agent: http.Agent, url: string, token: string, r: Req): Promise<Outcome> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (o: Outcome) => {
      if (!done) (done = true), clearTimeout(timer), resolve(o);
    };
    const headers: Record<string, string> = { Authorization: `Token ${token}`, Accept: 'application/json' };
    if (r.body) headers['Content-Type'] = 'application/json';
    const req = http.request(`${url}${r.path}`, { method: r.method, agent, headers }, (res) => {
      res.resume();
      res.on('end', () => finish((res.statusCode ?? 0) >= 500 ? '5xx' : 'answered'));
      res.on('error', () => finish(req.reusedSocket ? 'lost on a reused connection' : 'lost on a new connection'));
    });
    const timer = setTimeout(() => {
      finish('hung');
      req.destroy();
    }, HUNG_MS);
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'ECONNREFUSED') finish('refused');
      else finish(req.reusedSocket ? 'lost on a reused connection' : 'lost on a new connection');
    });
    req.end(r.body);
  });
}

/** One request through fetch (undici's pooled keep-alive connections, Node's default client). */
async function viaFetch(url: string, token: string, r: Req): Promise<Outcome> {
  const headers: Record<string, string> = { Authorization: `Token ${token}`, Accept: 'application/json' };
  if (r.body) headers['Content-Type'] = 'application/json';
  try {
    const res = await fetch(`${url}${r.path}`, { method: r.method, headers, body: r.body, signal: AbortSignal.timeout(HUNG_MS) });
    await res.arrayBuffer();
    return res.status >= 500 ? '5xx' : 'answered';
  } catch (e) {
    if ((e as Error).name === 'TimeoutError') return 'hung';
    const code = ((e as { cause?: NodeJS.ErrnoException }).cause ?? {}).code;
    // undici does not say whether the connection was reused; a reset is lost either way.
    return code === 'ECONNREFUSED' ? 'refused' : 'lost on a reused connection';
  }
}

/**
 * A client loop that spreads its requests over the instances (those in rotation, with health checks)
 * round-robin, as a load balancer does, and moves a refused request on to the next instance (refused is safe
 * to retry; nothing else is retried).
 */
async function loop(send: (url: string, r: Req) => Promise<Outcome>, w: Work, tally: Tally): Promise<void> {
  let next = Math.floor(Math.random() * w.urls.length);
  while (!w.stop.now) {
    const r = nextRequest();
    for (let attempt = 0; attempt < w.urls.length && !w.stop.now; attempt++) {
      const routable = w.rotation ? w.urls.filter((u) => w.rotation!.inRotation(u)) : w.urls;
      if (routable.length === 0) {
        attempt--;
        await sleep(NONE_IN_ROTATION_MS);
        continue;
      }
      const url = routable[next++ % routable.length]!;
      const o = await send(url, r);
      tally[o]++;
      if (o !== 'refused') break;
    }
  }
}

/** `count` loops on node:http keep-alive agents (one agent per instance, shared by the loops). */
export async function agentClients(count: number, w: Work): Promise<Tally> {
  const tally = emptyTally();
  const agents = new Map(w.urls.map((u) => [u, new http.Agent({ keepAlive: true, maxSockets: count })]));
  await Promise.all(Array.from({ length: count }, () => loop((url, r) => viaAgent(agents.get(url)!, url, w.token, r), w, tally)));
  for (const a of agents.values()) a.destroy();
  return tally;
}

/** `count` loops on fetch. */
export async function fetchClients(count: number, w: Work): Promise<Tally> {
  const tally = emptyTally();
  await Promise.all(Array.from({ length: count }, () => loop((url, r) => viaFetch(url, w.token, r), w, tally)));
  return tally;
}
