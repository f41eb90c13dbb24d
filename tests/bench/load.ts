import autocannon from 'autocannon';
import { summarize, type LatencySummary } from './stats';

/** One measured point: one request, at one connection count, for a fixed time. */
export interface LoadPoint {
  connections: number;
  /** Responses completed inside the window, per second. */
  reqPerSec: number;
  latency: LatencySummary;
  /** Non-2xx answers plus connection errors and timeouts. */
  errors: number;
  /** Status codes other than 2xx, with how often they came. */
  statuses: Record<string, number>;
  /** Mean bytes received per response (headers included). */
  meanResponseBytes: number;
  seconds: number;
}

export interface LoadRequest {
  /** http://127.0.0.1:<port><path> */
  url: string;
  headers: Record<string, string>;
  /** GET when not given. */
  method?: 'GET' | 'POST';
  body?: string;
  connections: number;
  seconds: number;
}

/**
 * Runs autocannon against one URL and stops by itself after `seconds` (a watchdog stops it a minute later
 * at the latest). Latencies are taken from every response, unrounded, rather than autocannon's histogram.
 */
export function runLoad(req: LoadRequest): Promise<LoadPoint> {
  if (!req.url.startsWith('http://127.0.0.1:')) throw new Error(`load stays on 127.0.0.1, not ${req.url}`);
  return new Promise((resolve, reject) => {
    const latencies: number[] = [];
    const statuses: Record<string, number> = {};
    let bytes = 0;
    let reqErrors = 0;
    let watchdog: NodeJS.Timeout | undefined;
    const finish = (err: unknown, result: autocannon.Result | undefined) => {
      clearTimeout(watchdog);
      if (err || !result) {
        reject(err instanceof Error ? err : new Error(`autocannon: ${String(err)}`));
        return;
      }
      const seconds = result.duration > 0 ? result.duration : req.seconds;
      const non2xx = Object.values(statuses).reduce((a, b) => a + b, 0);
      resolve({
        connections: req.connections,
        reqPerSec: latencies.length / seconds,
        latency: summarize(latencies),
        errors: non2xx + Math.max(reqErrors, result.errors),
        statuses,
        meanResponseBytes: latencies.length ? bytes / latencies.length : 0,
        seconds,
      });
    };
    const instance = autocannon(
      { url: req.url, method: req.method ?? 'GET', body: req.body, connections: req.connections, duration: req.seconds, headers: req.headers, timeout: 60, pipelining: 1 },
      (err: unknown, result: autocannon.Result | undefined) => finish(err, result),
    );
    watchdog = setTimeout(() => instance.stop(), (req.seconds + 60) * 1000);
    instance.on('response', (_client: autocannon.Client, statusCode: number, resBytes: number, responseTime: number) => {
      latencies.push(responseTime);
      bytes += resBytes;
      if (statusCode < 200 || statusCode > 299) statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
    });
    instance.on('reqError', () => {
      reqErrors++;
    });
  });
}
