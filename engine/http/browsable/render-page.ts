import { STATUS_CODES } from 'node:http';
import type { EndpointInfo } from './endpoint-info';
import { filterForm } from './filter-form';
import { escapeHtml, isLinkable, link } from './html';
import { jsonToHtml } from './json-html';
import { PAGE_STYLE } from './page-style';

export interface PageInput {
  info: EndpointInfo;
  method: string;
  /** Absolute origin, e.g. http://localhost:8000 */
  origin: string;
  /** The request's path and query, as sent. */
  url: string;
  status: number;
  body: unknown;
  /** Whether the request carried credentials (token header or cookie). */
  authenticated: boolean;
  /** The user of the browser session, if one is logged in. */
  user?: string;
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function titleOf(p: PageInput): string {
  const { info, body } = p;
  switch (info.kind) {
    case 'root': return 'API Root';
    case 'status': return 'Status';
    case 'app': return info.crumbs[1]!.label;
    case 'list': return `${capital(info.model!.verboseNamePlural)}`;
    case 'detail': {
      const display = isObject(body) && typeof body.display === 'string' ? body.display : info.crumbs[info.crumbs.length - 1]!.label;
      return `${capital(info.model!.verboseName)}: ${display}`;
    }
    case 'action': return `${capital(info.model!.verboseName)} ${info.crumbs[info.crumbs.length - 1]!.label}`;
    default: return p.status === 404 ? 'Not found' : STATUS_CODES[p.status] ?? `HTTP ${p.status}`;
  }
}

/** The URL with one query parameter set (or removed with null). */
function withParam(url: string, name: string, value: string | null): string {
  const u = new URL(url, 'http://x');
  if (value === null) u.searchParams.delete(name);
  else u.searchParams.set(name, value);
  return `${u.pathname}${u.search}`;
}

function pagination(p: PageInput): string {
  const b = p.body;
  if (!isObject(b) || typeof b.count !== 'number' || !Array.isArray(b.results)) return '';
  const offset = Number(new URL(p.url, 'http://x').searchParams.get('offset') ?? 0) || 0;
  const shown = b.results.length;
  const range = shown ? `${offset + 1}–${offset + shown}` : 'none';
  const prev = typeof b.previous === 'string' ? link(b.previous, '« Previous', p.origin, ' rel="prev"') : '<span aria-disabled="true">« Previous</span>';
  const next = typeof b.next === 'string' ? link(b.next, 'Next »', p.origin, ' rel="next"') : '<span aria-disabled="true">Next »</span>';
  return `<nav aria-label="Pagination" class="pages">${prev} <span class="range">Showing ${range} of ${b.count}</span> ${next}</nav>`;
}

/** A flat object of URLs (the API root, an application's root) is also shown as a list of links. */
function linkList(p: PageInput): string {
  const b = p.body;
  if (!isObject(b) || (p.info.kind !== 'root' && p.info.kind !== 'app')) return '';
  const entries = Object.entries(b).filter(([, v]) => typeof v === 'string' && isLinkable(v));
  if (!entries.length) return '<p>No object types yet.</p>';
  const heading = p.info.kind === 'root' ? 'Applications' : 'Object types';
  return `<section aria-labelledby="links-h"><h2 id="links-h">${heading}</h2><ul class="links">${entries.map(([k, v]) => `<li>${link(String(v), k, p.origin)}</li>`).join('')}</ul></section>`;
}

/** Log in (coming back to this page), or the session's user with their profile and a way out. */
function account(p: PageInput): string {
  if (p.user) {
    return `<span class="account">Logged in as <a href="/user/profile/">${escapeHtml(p.user)}</a> · <a href="/logout/">Log out</a></span>`;
  }
  return `<a href="${escapeHtml(`/login/?next=${encodeURIComponent(p.url)}`)}">Log in</a>`;
}

function authHint(p: PageInput): string {
  if (p.status !== 403 && p.status !== 401) return '';
  const how = p.authenticated
    ? 'The credentials sent were refused, or do not allow this.'
    : 'This needs credentials: send the header <code>Authorization: Token &lt;key&gt;</code> (a browser extension can add it), or log in.';
  return `<p class="hint" role="note">${how} Tokens can be created with <code>POST /api/users/tokens/provision/</code>.</p>`;
}

/**
 * The browsable API's page around one JSON response: where it is (breadcrumbs), what the endpoint
 * allows, the response status, pagination links, the JSON itself with every URL a link, and for a
 * list its filter parameters. Plain HTML and a few lines of CSS; readable without JavaScript.
 */
export function renderPage(p: PageInput): string {
  const { info } = p;
  const title = titleOf(p);
  const crumbs = info.crumbs.map((c, i) => {
    const last = i === info.crumbs.length - 1;
    return `<li>${last ? `<a href="${escapeHtml(c.href)}" aria-current="page">${escapeHtml(c.label)}</a>` : `<a href="${escapeHtml(c.href)}">${escapeHtml(c.label)}</a>`}</li>`;
  });
  const docsHref = `${info.base}/docs/${info.docsAnchor ? `#/${info.docsAnchor}` : ''}`;
  const description = info.model?.def.description ? `<p class="description">${escapeHtml(info.model.def.description)}</p>` : '';
  const statusText = `HTTP ${p.status} ${STATUS_CODES[p.status] ?? ''}`.trim();
  const formats = [
    `<a href="${escapeHtml(withParam(p.url, 'format', 'json'))}">json</a>`,
    `<a href="${escapeHtml(docsHref)}">API documentation</a>`,
    `<a href="${escapeHtml(`${info.base}/schema/`)}">OpenAPI schema</a>`,
  ].join(' · ');
  const list = info.kind === 'list' && info.model && p.status < 400 ? filterForm(info.model, new URL(p.url, 'http://x').searchParams, docsHref) : '';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)} – Patchbay REST API</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<header class="bar">
<a class="brand" href="${escapeHtml(`${info.base}/`)}">Patchbay REST API</a>
<nav aria-label="Tools"><a href="${escapeHtml(`${info.base}/docs/`)}">API documentation</a> <a href="${escapeHtml(`${info.base}/schema/`)}">OpenAPI schema</a> ${account(p)}</nav>
</header>
<nav aria-label="Breadcrumb" class="crumbs"><ol>${crumbs.join('')}</ol></nav>
<main>
<h1>${escapeHtml(title)}</h1>
${description}
<dl class="meta">
<dt>Request</dt><dd><code>${escapeHtml(p.method)} ${escapeHtml(p.url)}</code></dd>
<dt>Status</dt><dd class="status status-${Math.floor(p.status / 100)}xx">${escapeHtml(statusText)}</dd>
<dt>Allow</dt><dd id="allow">${escapeHtml(info.allow.join(', '))}</dd>
<dt>Formats</dt><dd>${formats}</dd>
</dl>
${authHint(p)}
${linkList(p)}
${list}
${pagination(p)}
<section aria-labelledby="response-h">
<h2 id="response-h">Response</h2>
<pre class="json" id="response" tabindex="0">${jsonToHtml(p.body, p.origin)}</pre>
</section>
</main>
</body>
</html>
`;
}
