/**
 * The code a template-rendering worker thread runs (engine/templates/render-template.ts starts it with
 * `eval`, so the same text serves the compiled server and the TypeScript tests). It is plain JavaScript
 * on purpose: it is the whole of what runs beside the template.
 *
 * - Nunjucks with no loader: {% include %}, {% import %} and {% extends %} find nothing, so a template
 *   reaches no file.
 * - Jinja's methods on values (items(), keys(), upper()...) as NetBox's templates use them.
 * - No member a template could climb out of the data through: constructor, __proto__, prototype and the
 *   like are undefined (Nunjucks alone lets "x".constructor.constructor build a function).
 * - The worker is started with a small heap and stack and ended by the caller when it runs too long.
 */
export const SANDBOX_SOURCE = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const nunjucks = require(workerData.nunjucks);
const runtime = require(workerData.runtime);
nunjucks.installJinjaCompat();
const DENIED = new Set(['constructor', '__proto__', 'prototype', '__defineGetter__', '__defineSetter__', '__lookupGetter__', '__lookupSetter__', 'caller', 'callee', 'arguments', 'apply', 'call', 'bind', 'toLocaleString', 'valueOf']);
const lookup = runtime.memberLookup;
runtime.memberLookup = function guarded(obj, val) {
  if (typeof val === 'string' && DENIED.has(val)) return undefined;
  if (typeof obj === 'function') return undefined;
  return lookup.apply(this, arguments);
};
const { code, context, options, maxOutput } = workerData;
try {
  const env = new nunjucks.Environment([], { autoescape: options.autoescape === true, trimBlocks: options.trim_blocks === true, lstripBlocks: options.lstrip_blocks === true });
  let out = env.renderString(code, context);
  out = String(out).replace(/\r\n/g, '\n');
  if (options.keep_trailing_newline !== true && out.endsWith('\n')) out = out.slice(0, -1);
  if (Buffer.byteLength(out, 'utf8') > maxOutput) parentPort.postMessage({ ok: false, message: 'the output is larger than ' + maxOutput + ' bytes' });
  else parentPort.postMessage({ ok: true, text: out });
} catch (e) {
  const text = e && e.message ? String(e.message) : String(e);
  const line = /\[Line (\d+), Column \d+\]/.exec(text);
  const message = text.replace(/Template render error:|\(unknown path\)|\[Line \d+, Column \d+\]|\b(Range|Type)?Error:/g, ' ').replace(/\s+/g, ' ').trim();
  parentPort.postMessage({ ok: false, line: line ? Number(line[1]) : null, message: message || 'error' });
}
`;
