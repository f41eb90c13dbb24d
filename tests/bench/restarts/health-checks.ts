import http from 'node:http';
import { sleep } from '../stats';

/** Which instances a health-checking load balancer currently routes to. */
export interface Rotation {
  /** Whether url's last health check answered 200. */
  inRotation(url: string): boolean;
  stop(): void;
}

/** One GET /api/status/ on a connection of its own, as load balancers check; true only for a 200 within timeoutMs. */
function check(url: string, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get(`${url}/api/status/`, { agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200));
      res.on('error', () => resolve(false));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

/**
 * Polls each instance's health check every intervalMs, on a fixed schedule (a slow check does not push the
 * next one back), and takes an instance out of rotation on its first check that is not a 200 (one failure to
 * mark down), back in on its first 200. A check gets intervalMs to answer.
 */
export function healthChecks(urls: string[], intervalMs: number): Rotation {
  const healthy = new Map(urls.map((u) => [u, true]));
  let stopped = false;
  for (const url of urls) {
    void (async () => {
      let next = Date.now();
      let started = 0;
      let applied = 0;
      while (!stopped) {
        const serial = ++started;
        void check(url, intervalMs).then((ok) => {
          // Checks may overlap; an answer that arrives after a later check's answer is stale.
          if (serial < applied) return;
          applied = serial;
          healthy.set(url, ok);
        });
        next += intervalMs;
        await sleep(Math.max(0, next - Date.now()));
      }
    })();
  }
  return {
    inRotation: (url) => healthy.get(url) === true,
    stop: () => (stopped = true),
  };
}
