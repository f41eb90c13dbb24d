import crypto from 'node:crypto';
import { renderTemplate, type TemplateLimits } from '../sandbox/render-template';

/** A webhook as the dispatcher reads it (the model playing the webhook role). */
export interface WebhookRow {
  payload_url: string;
  http_method: string;
  http_content_type: string;
  additional_headers: string;
  body_template: string;
  secret: string;
  ssl_verification: boolean;
  ca_file_path: string | null;
}

/** NetBox's webhook context: what the JSON body holds, and what templates see. */
export interface EventContext {
  event: string;
  timestamp: string;
  model: string;
  username: string;
  request_id: string;
  data: unknown;
  snapshots: unknown;
}

/** The request to make: URL, headers (in order, names unique whatever their case) and body. */
export interface WebhookRequest {
  url: string;
  headers: Array<[string, string]>;
  body: Buffer;
}

/** Why a delivery's request could not be built (a template failed, a header is not a header): the delivery fails with it. */
export class UnsendableRequest extends Error {}

/** RFC 9110's token: what a header name may be. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** What a header value may hold: visible ASCII, spaces, tabs and Latin-1 (as Node accepts); never CR or LF. */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** Headers whose value the request's framing decides: a user's would contradict the body sent. */
const FRAMING = new Set(['content-length', 'transfer-encoding', 'connection']);

/** NetBox's generate_signature: HMAC-SHA512 of the body with the secret, hex. */
export function signature(body: Buffer, secret: string): string {
  return crypto.createHmac('sha512', secret).update(body).digest('hex');
}

/** Renders templates of one delivery within one time budget shared by all of them. */
class Renderer {
  private readonly until: number;

  constructor(private readonly context: EventContext, private readonly limits: TemplateLimits) {
    this.until = Date.now() + limits.timeoutMs;
  }

  async render(code: string, what: string): Promise<string> {
    const left = this.until - Date.now();
    if (left <= 0) throw new UnsendableRequest(`${what}: the templates of one delivery took longer than ${this.limits.timeoutMs / 1000} seconds`);
    // The project's bounded template sandbox (time, memory and output limits).
    const r = await renderTemplate(code, this.context as unknown as Record<string, unknown>, {}, { ...this.limits, timeoutMs: left });
    if (!r.ok) throw new UnsendableRequest(`${what}: ${r.message}`);
    return r.text;
  }

  /** A template, rendered only when it holds template syntax (a plain value is sent as written). */
  async value(code: string, what: string): Promise<string> {
    return code.includes('{') ? this.render(code, what) : code;
  }
}

function checkedValue(name: string, value: string): string {
  if (/[\r\n]/.test(value)) throw new UnsendableRequest(`header ${name}: its rendered value holds a line break`);
  if (!FIELD_VALUE.test(value)) throw new UnsendableRequest(`header ${name}: its rendered value holds a character a header may not`);
  return value;
}

/**
 * NetBox's render_headers, one line at a time: each line of additional_headers is `Name: value`, the
 * name taken as written (a token), the value rendered alone. So data rendered into a value stays in that
 * value: a line break in it fails the delivery instead of adding a header.
 */
async function extraHeaders(template: string, renderer: Renderer): Promise<Array<[string, string]>> {
  const out: Array<[string, string]> = [];
  for (const [i, line] of template.split(/\r?\n/).entries()) {
    if (!line.trim()) continue;
    const at = line.indexOf(':');
    if (at < 0) throw new UnsendableRequest(`additional_headers line ${i + 1}: not a header (Name: Value)`);
    const name = line.slice(0, at).trim();
    if (!TOKEN.test(name)) throw new UnsendableRequest(`additional_headers line ${i + 1}: "${name.slice(0, 100)}" is not a header name`);
    if (FRAMING.has(name.toLowerCase())) throw new UnsendableRequest(`additional_headers line ${i + 1}: ${name} is set by Patchbay`);
    const value = (await renderer.value(line.slice(at + 1), `header ${name}`)).trim();
    out.push([name, checkedValue(name, value)]);
  }
  return out;
}

/** Sets a header, replacing one of the same name whatever its case. */
function put(headers: Array<[string, string]>, name: string, value: string): void {
  const i = headers.findIndex(([n]) => n.toLowerCase() === name.toLowerCase());
  if (i >= 0) headers.splice(i, 1);
  headers.push([name, value]);
}

/** The request NetBox's send_webhook makes: URL, headers and body, rendered and signed. */
export async function buildRequest(hook: WebhookRow, context: EventContext, limits: TemplateLimits): Promise<WebhookRequest> {
  const renderer = new Renderer(context, limits);
  const headers: Array<[string, string]> = [['Content-Type', checkedValue('Content-Type', hook.http_content_type)]];
  for (const [name, value] of await extraHeaders(hook.additional_headers, renderer)) put(headers, name, value);
  const body = Buffer.from(hook.body_template.trim() ? await renderer.render(hook.body_template, 'body_template') : JSON.stringify(context), 'utf8');
  if (hook.secret) put(headers, 'X-Hook-Signature', signature(body, hook.secret));
  if (!headers.some(([n]) => n.toLowerCase() === 'user-agent')) headers.push(['User-Agent', 'Patchbay webhook']);
  headers.push(['Content-Length', String(body.length)]);
  const url = (await renderer.value(hook.payload_url, 'payload_url')).trim();
  return { url, headers, body };
}
