import YAML from 'yaml';
import type { FuzzRequest } from './fuzz-request';
import type { Answer } from './send';

/**
 * The oracle: an answer arrives, its status is below 500, and its body is well formed for its
 * Content-Type (JSON parses; YAML parses; HTML only for a page or a request that asks for HTML;
 * plain text only on a redirect). Returns the problems, none when all is well.
 */

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Types the documentation pages serve as files (Swagger UI's assets). */
const ASSET_TYPES = /^(text\/css|text\/javascript|application\/javascript|image\/png)\b/;

function header(a: Answer, name: string): string {
  const v = a.headers[name];
  return Array.isArray(v) ? v.join(', ') : (v ?? '');
}

export function judge(r: FuzzRequest, a: Answer): string[] {
  if (a.error) return [`no answer: ${a.error}`];
  const problems: string[] = [];
  if (a.status >= 500) problems.push(`status ${a.status}`);
  const type = header(a, 'content-type').toLowerCase();
  if (r.method === 'HEAD' || a.body.length === 0) return problems;
  let text: string;
  try {
    text = UTF8.decode(a.body);
  } catch {
    if (!ASSET_TYPES.test(type)) problems.push(`a ${type || 'untyped'} body that is not UTF-8`);
    return problems;
  }
  if (/^application\/(json|vnd\.oai\.openapi\+json)\b/.test(type)) {
    try {
      JSON.parse(text);
    } catch (e) {
      problems.push(`a JSON body that does not parse: ${(e as Error).message}`);
    }
  } else if (/^text\/html\b/.test(type)) {
    if (!r.htmlOk) problems.push('HTML for a request that did not ask for it');
    else if (a.status < 300 || a.status >= 400) {
      if (!/^<!doctype html>/i.test(text.trimStart()) || !/<\/html>\s*$/i.test(text)) problems.push('an HTML body that is not a whole page');
    }
  } else if (/^(application\/yaml|text\/yaml|application\/vnd\.oai\.openapi)\b/.test(type)) {
    if (!r.path.startsWith('/api/schema/')) problems.push(`YAML outside /api/schema/`);
    try {
      YAML.parse(text);
    } catch (e) {
      problems.push(`a YAML body that does not parse: ${(e as Error).message}`);
    }
  } else if (/^text\/plain\b/.test(type)) {
    // Express says plain text in two places: a redirect's body, and its automatic OPTIONS answer (the allowed methods).
    const allowList = r.method === 'OPTIONS' && a.status === 200 && /^[A-Z-]+(, [A-Z-]+)*$/.test(text);
    if ((a.status < 300 || a.status >= 400) && !allowList) problems.push(`a text/plain ${a.status} body (only redirects and OPTIONS answers say plain text)`);
  } else if (!ASSET_TYPES.test(type) || !r.path.startsWith('/api/')) {
    problems.push(`a body of type "${type}"`);
  }
  return problems;
}
