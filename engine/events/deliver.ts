import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Socket } from 'node:net';
import type { Config } from '../config';
import type { TemplateLimits } from '../sandbox/render-template';
import { readCaFile } from './ca-file';
import { addressAllowed, guardedLookup, type NetworkPolicy, REFUSED_DESTINATION } from './network-policy';
import { buildRequest, UnsendableRequest, type EventContext, type WebhookRequest, type WebhookRow } from './webhook-request';

export type { EventContext, WebhookRow } from './webhook-request';

export type Outcome = { ok: true; status: number } | { ok: false; status: number | null; error: string };

/** What one delivery may use: the request's deadline, the bytes read of the answer, where it may connect, which CA files it may read. */
export interface DeliveryLimits {
  templates: TemplateLimits;
  /** Milliseconds for the whole request: resolving, connecting, sending, the answer's headers and body. */
  deadlineMs: number;
  /** Bytes of the answer read before the connection is closed. */
  maxResponse: number;
  policy: NetworkPolicy;
  ca: Pick<Config, 'webhookCaDir' | 'webhookCaMaxSize'>;
}

/** A request error told as a reason, without the addresses or texts of what answered (deliveries are read by others). */
function reason(e: Error & { code?: string }): string {
  switch (e.code) {
    case 'EPATCHBAYPOLICY':
      return REFUSED_DESTINATION;
    case 'ECONNREFUSED':
      return 'the connection was refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'EAI_NODATA':
    case 'EAI_NONAME':
      return 'the host name did not resolve';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'the destination is unreachable';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'the connection was closed before an answer';
    case 'ERR_INVALID_URL':
      return 'payload_url is not a URL';
    default:
      if (e.code && (e.code.startsWith('ERR_TLS') || e.code.startsWith('ERR_SSL') || /CERT|SELF_SIGNED|UNABLE_TO/.test(e.code))) return `TLS: the server's certificate was not accepted (${e.code})`;
      return `the request failed (${e.code ?? 'error'})`;
  }
}

/** The socket's peer must be allowed: a backstop behind the lookup (and the check of literal addresses) that chose it. */
function guardSocket(socket: Socket, policy: NetworkPolicy, fail: (e: Error) => void): void {
  const check = () => {
    const peer = socket.remoteAddress;
    if (peer && !addressAllowed(peer, policy)) fail(Object.assign(new Error(REFUSED_DESTINATION), { code: 'EPATCHBAYPOLICY' }));
  };
  if (socket.remoteAddress) check();
  // Before anything else hears of the connection (and before the request's bytes follow it).
  else socket.prependOnceListener('connect', check);
}

/**
 * Makes the request under one deadline. The answer's status decides (2xx: delivered); its body is read
 * (to at most maxResponse bytes, within the deadline) only so the exchange ends cleanly, and never stored.
 */
function send(req: WebhookRequest, url: URL, method: string, tls: https.RequestOptions, limits: DeliveryLimits): Promise<Outcome> {
  return new Promise<Outcome>((resolve) => {
    let status: number | null = null;
    let settled = false;
    const settle = (o: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      r.destroy();
      resolve(o);
    };
    const answered = () => settle(status !== null && status >= 200 && status <= 299 ? { ok: true, status } : { ok: false, status, error: `Status ${status ?? 0} returned` });
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const options: https.RequestOptions = {
      method,
      headers: Object.fromEntries(req.headers),
      // A connection of its own (no pool): each delivery's destination is checked on the socket it uses.
      agent: false,
      lookup: guardedLookup(limits.policy),
      ...(url.protocol === 'https:' ? tls : {}),
    };
    const r = (url.protocol === 'https:' ? https.request : http.request)(url, options, (res) => {
      status = res.statusCode ?? 0;
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > limits.maxResponse) answered();
      });
      res.on('end', answered);
      res.on('error', answered);
    });
    const timer = setTimeout(() => {
      if (status !== null) answered();
      else settle({ ok: false, status: null, error: `no answer within ${limits.deadlineMs / 1000} seconds` });
    }, limits.deadlineMs);
    r.on('socket', (socket) => guardSocket(socket, limits.policy, (e) => r.destroy(e)));
    r.on('error', (e) => (status !== null ? answered() : settle({ ok: false, status: null, error: reason(e) })));
    // A literal address is connected to without a lookup: judged here.
    if (net.isIP(host) && !addressAllowed(host, limits.policy)) {
      r.destroy(Object.assign(new Error(REFUSED_DESTINATION), { code: 'EPATCHBAYPOLICY' }));
      return;
    }
    r.end(req.body);
  });
}

/** Sends one webhook; a 2xx answer is a delivery, anything else (or no complete answer in time) a failure with its reason. */
export async function deliver(hook: WebhookRow, context: EventContext, limits: DeliveryLimits): Promise<Outcome> {
  let req: WebhookRequest;
  let url: URL;
  try {
    req = await buildRequest(hook, context, limits.templates);
  } catch (e) {
    if (e instanceof UnsendableRequest) return { ok: false, status: null, error: e.message };
    throw e;
  }
  try {
    url = new URL(req.url);
  } catch {
    return { ok: false, status: null, error: 'payload_url is not a URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, status: null, error: `unsupported URL scheme ${url.protocol}` };
  const tls: https.RequestOptions = { rejectUnauthorized: hook.ssl_verification };
  if (url.protocol === 'https:' && hook.ssl_verification && hook.ca_file_path) {
    const ca = await readCaFile(hook.ca_file_path, limits.ca);
    if (!ca.ok) return { ok: false, status: null, error: ca.error };
    tls.ca = ca.ca;
  }
  try {
    return await send(req, url, hook.http_method, tls, limits);
  } catch (e) {
    // Options Node refuses synchronously (a header it will not send): a reason, not a crash.
    return { ok: false, status: null, error: `the request could not be made (${(e as Error & { code?: string }).code ?? 'error'})` };
  }
}
