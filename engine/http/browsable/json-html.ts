import { escapeHtml, isLinkable, link } from './html';

const INDENT = '    ';

/**
 * JSON pretty-printed as HTML, character for character what `JSON.stringify(value, null, 4)` prints,
 * with every URL string a link (the quotes stay outside the link). Keys and values are escaped.
 */
export function jsonToHtml(value: unknown, origin: string): string {
  // Round-trip first, so the printout is exactly what the JSON API sends (toJSON, undefined members...).
  const text = JSON.stringify(value);
  if (text === undefined) return '';
  return print(JSON.parse(text) as unknown, '', origin);
}

function print(v: unknown, indent: string, origin: string): string {
  if (v === null || typeof v !== 'object') {
    if (typeof v === 'string') {
      const quoted = escapeHtml(JSON.stringify(v));
      if (!isLinkable(v)) return `<span class="s">${quoted}</span>`;
      return `<span class="s">"${link(v, JSON.stringify(v).slice(1, -1), origin)}"</span>`;
    }
    const cls = typeof v === 'number' ? 'n' : typeof v === 'boolean' ? 'b' : 'z';
    return `<span class="${cls}">${escapeHtml(JSON.stringify(v))}</span>`;
  }
  const inner = indent + INDENT;
  if (Array.isArray(v)) {
    if (!v.length) return '[]';
    return `[\n${v.map((item) => inner + print(item, inner, origin)).join(',\n')}\n${indent}]`;
  }
  const entries = Object.entries(v as Record<string, unknown>);
  if (!entries.length) return '{}';
  const lines = entries.map(([k, item]) => `${inner}<span class="k">${escapeHtml(JSON.stringify(k))}</span>: ${print(item, inner, origin)}`);
  return `{\n${lines.join(',\n')}\n${indent}}`;
}
