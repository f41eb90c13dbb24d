/**
 * The template sandbox on its own: Nunjucks inside a QuickJS machine on a pool of worker threads. The
 * known escapes of Nunjucks' member guard render as harmless text or fail; nothing of the host (require,
 * process, the environment, files) is reachable; runaway templates are stopped by time, memory, stack and
 * output bounds and the next rendering works; one rendering cannot change another; the pool is bounded,
 * reused, and survives a worker it has to stop from outside.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { renderTemplate, type Rendered, type TemplateLimits } from '../../engine/sandbox/render-template';
import { closeSharedSandbox, sharedSandbox } from '../../engine/sandbox/shared-sandbox';
import { SandboxPool } from '../../engine/sandbox/sandbox-pool';
import type { Rendered as PoolRendered } from '../../engine/sandbox/sandbox-protocol';

const LIMITS: TemplateLimits = { timeoutMs: 2000, maxOutput: 1_048_576, maxMemory: 64 * 1024 * 1024 };
const CANARY = `canary-${process.pid}-${Date.now()}`;
let canaryFile: string;

beforeAll(() => {
  // Things of the host a template must never read: an environment variable, a global of the server's
  // JavaScript, a file.
  process.env.PATCHBAY_TEST_CANARY = CANARY;
  (globalThis as Record<string, unknown>).hostCanary = CANARY;
  canaryFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'patchbay-canary-')), 'secret.txt');
  fs.writeFileSync(canaryFile, CANARY);
});
afterAll(async () => {
  delete process.env.PATCHBAY_TEST_CANARY;
  fs.rmSync(path.dirname(canaryFile), { recursive: true, force: true });
  await closeSharedSandbox();
});

const render = (code: string, context: Record<string, unknown> = {}, limits: TemplateLimits = LIMITS) => renderTemplate(code, context, {}, limits);
const text = (r: Rendered) => (r.ok ? r.text : r.message);

/** What a template would print if it reached the process: the canary, a command's output, the environment. */
function expectNoHostRead(r: Rendered): void {
  const out = text(r);
  expect(out).not.toContain(CANARY);
  expect(out).not.toMatch(/uid=\d+/);
  expect(out).not.toContain('DATABASE_URL');
  expect(out).not.toMatch(/\[object process\]|function require/);
}

describe('the known escapes of a member deny-list reach nothing', () => {
  const host = `return [typeof require, typeof process, typeof globalThis.hostCanary, typeof module].join()`;
  const command = `return require('child_process').execSync('id').toString()`;
  const escapes: Array<[string, string]> = [
    ['the reported one: __lookupSetter__ and array keys', `{% set o = {"s": __lookupSetter__("__proto__")} %}{{ o.s(range) }}{{ o[["constructor"]]("${command}")() }}`],
    ['constructor.constructor', `{{ x.constructor.constructor("${command}")() }}`],
    ['string keys', `{{ x["constructor"]["constructor"]("${host}")() }}`],
    ['array keys', `{{ x[["constructor"]][["constructor"]]("${host}")() }}`],
    ['a __proto__ setter', `{% set o = {} %}{{ o.__defineSetter__ }}{{ x.__proto__.constructor.constructor("${host}")() }}`],
    ['__lookupGetter__', `{{ __lookupGetter__("__proto__").call(x).constructor.constructor("${host}")() }}`],
    ['the join filter\'s attribute getter', `{{ [x]|join(",", "constructor") }}{{ ([x]|map(attribute="constructor")|first).constructor("${host}")() }}`],
    ['sort and groupby attribute getters', `{{ ([x, x]|sort(attribute="constructor")|first).constructor.constructor("${host}")() }}{{ [x]|groupby("constructor")|length }}`],
    ['selectattr and sum', `{{ [x]|selectattr("constructor")|length }}{{ [{"a": 1}]|sum("constructor") }}`],
    ['a function from range', `{{ range.constructor("${host}")() }}`],
    ['process.env', `{{ x.constructor.constructor("return process.env.PATCHBAY_TEST_CANARY")() }}`],
    ['a file', `{{ x.constructor.constructor("return require('fs').readFileSync('CANARY_FILE', 'utf8')")() }}`],
    ['an include of a file', `{% include "CANARY_FILE" %}`],
    ['the global object', `{{ x.constructor.constructor("return Object.getOwnPropertyNames(globalThis).join(' ')")() }}`],
  ];

  test.each(escapes)('%s', async (_name, code) => {
    const r = await render(code.replace(/CANARY_FILE/g, canaryFile), { x: 'a' });
    expectNoHostRead(r);
    if (!r.ok) expect(r.message).toMatch(/^An error occurred while rendering the template \(line (\d+|unknown)\): /);
  });

  test('typeof of every host name inside the machine is undefined', async () => {
    const r = await render(`{{ x.constructor.constructor("${host}")() }}`, { x: 'a' });
    expect(r).toEqual({ ok: true, text: 'undefined,undefined,undefined,undefined' });
    const globals = await render(`{{ x.constructor.constructor("return Object.getOwnPropertyNames(globalThis).filter(function (n) { return /^[a-z]/.test(n) }).sort().join(' ')")() }}`, { x: 'a' });
    // The language's own lower-case globals, and what the machine was given: Nunjucks, the filters, render.
    expect(globals).toEqual({ ok: true, text: expect.any(String) });
    const names = (globals as { text: string }).text.split(' ');
    expect(names).toEqual(expect.arrayContaining(['nunjucks', 'render']));
    for (const hostName of ['require', 'process', 'module', 'exports', 'global', 'console', 'setTimeout', 'fetch', 'hostCanary', 'std', 'os']) expect(names).not.toContain(hostName);
  });
});

describe('bounds: a runaway template fails alone and the next one works', () => {
  test('string doubling into a list of 268 million characters runs out of its heap, not the process', async () => {
    const r = await render('{% set s = "xxxxxxxxxxxxxxxx" %}{% for i in range(0, 23) %}{% set s = s ~ s %}{% endfor %}{{ s|list|length }}');
    expect(r).toEqual({ ok: false, message: expect.stringMatching(/needed more memory than a rendering may use \(64 MB\)|took longer than 2 seconds/) });
    expect(await render('{{ 6 * 7 }}')).toEqual({ ok: true, text: '42' });
  });

  test('two lists of 20 million numbers', async () => {
    const r = await render('{% set a = range(0, 20000000) %}{% set b = range(0, 20000000) %}{{ a|length + b|length }}');
    expect(r.ok).toBe(false);
    expect(text(r)).toMatch(/needed more memory|took longer than/);
    expect(await render('{{ "ok" }}')).toEqual({ ok: true, text: 'ok' });
  });

  test('an endless loop is stopped at the deadline', async () => {
    const r = await render('{% for i in range(0, 1000000000) %}{% for j in range(0, 1000000000) %}{% endfor %}{% endfor %}', {}, { ...LIMITS, timeoutMs: 500 });
    expect(r).toEqual({ ok: false, message: 'An error occurred while rendering the template (line unknown): rendering took longer than 0.5 seconds' });
    const js = await render('{{ x.constructor.constructor("for (;;) {}")() }}', { x: 1 }, { ...LIMITS, timeoutMs: 500 });
    expect(js).toEqual({ ok: false, message: 'An error occurred while rendering the template (line unknown): rendering took longer than 0.5 seconds' });
  });

  test('a catastrophic regular expression is stopped at the deadline', async () => {
    const r = await render(`{{ x.constructor.constructor("return /(a+)+$/.test('${'a'.repeat(40)}b')")() }}`, { x: 1 }, { ...LIMITS, timeoutMs: 500 });
    expect(text(r)).toMatch(/took longer than 0.5 seconds/);
  });

  test('endless recursion, of macros or of functions, is stopped by the stack bound', async () => {
    expect(await render('{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}')).toEqual({ ok: false, message: 'An error occurred while rendering the template (line unknown): it nests or recurses too deeply' });
    expect(text(await render('{{ x.constructor.constructor("function r() { return r() } return r()")() }}', { x: 1 }))).toMatch(/nests or recurses too deeply/);
    // Deep data is bounded too (by the stack, or by the deadline when the engine walks it without recursing).
    expect(text(await render('{{ x.constructor.constructor("var a = []; for (var i = 0; i < 200000; i++) a = [a]; return JSON.stringify(a).length")() }}', { x: 1 }))).toMatch(/nests or recurses too deeply|took longer than 2 seconds/);
  });

  test('output beyond the limit is refused, counted in bytes', async () => {
    const small = { ...LIMITS, maxOutput: 1000 };
    expect(await render('{% for i in range(0, 1001) %}x{% endfor %}', {}, small)).toEqual({ ok: false, message: 'An error occurred while rendering the template (line unknown): the output is larger than 1000 bytes' });
    expect(await render('{% for i in range(0, 400) %}€{% endfor %}', {}, small)).toEqual({ ok: false, message: 'An error occurred while rendering the template (line unknown): the output is larger than 1000 bytes' });
    expect(await render('{% for i in range(0, 1000) %}x{% endfor %}', {}, small)).toEqual({ ok: true, text: 'x'.repeat(1000) });
  });

  test('a syntax error names its line, as before', async () => {
    expect(await render('line one\n{% for %}')).toEqual({ ok: false, message: expect.stringMatching(/^An error occurred while rendering the template \(line 2\): /) });
  });
});

describe('one rendering cannot change another', () => {
  test('globals, prototypes and Nunjucks itself are frozen; what a template sets is gone', async () => {
    const tamper = [
      'globalThis.stash = "x"',
      'Array.prototype.join = function () { return "hijacked" }',
      'Object.prototype.polluted = "yes"',
      'String.prototype.toUpperCase = function () { return "hijacked" }',
      'JSON.parse = function () { return { spied: true } }',
      'nunjucks.Environment.prototype.renderString = function () { return "hijacked" }',
      'Object.getPrototypeOf(function* () {}).stash = "x"',
      'Object.getPrototypeOf([][Symbol.iterator]()).next = function () { return { done: true } }',
    ];
    for (const code of tamper) {
      const r = await render(`{{ x.constructor.constructor(${JSON.stringify(code + '; return "done"')})() }}`, { x: 1 });
      // Frozen objects: the assignment fails (strict code) or is ignored (sloppy code); either way nothing changes.
      expect(text(r)).toMatch(/done|read-only|not extensible|read only|cannot/i);
    }
    const after = await render(
      '{{ [1, 2]|join("-") }} {{ "a"|upper }} {{ d.x }} {{ x.constructor.constructor("return [typeof stash, typeof ({}).polluted, typeof Object.getPrototypeOf(function* () {}).stash, [...[1, 2]].length].join()")() }}',
      { x: 1, d: { x: 'data' } },
    );
    expect(after).toEqual({ ok: true, text: '1-2 A data undefined,undefined,undefined,2' });
  });

  test('a template compiled once and rendered again keeps nothing of its earlier renderings', async () => {
    // A function the template calls gets Nunjucks' render context as `this`, and through it the environment.
    const spy = '{{ x.constructor.constructor("var e = this.env; var seen = [typeof e, e.stash, Object.getPrototypeOf(e).stash, e.globals.stash]; try { e.stash = this.ctx.secret; e.globals.stash = this.ctx.secret; Object.getPrototypeOf(e).stash = 1 } catch (err) {} return JSON.stringify(seen)")() }}';
    expect(await render(spy, { x: 1, secret: 'first-tenant' })).toEqual({ ok: true, text: '["object",null,null,null]' });
    expect(await render(spy, { x: 1, secret: 'second-tenant' })).toEqual({ ok: true, text: '["object",null,null,null]' });
  });

  test('a rendering sees its own context only', async () => {
    await render('{{ secret }}', { secret: 'first-tenant' });
    const r = await render('{{ secret }}|{{ x.constructor.constructor("return typeof secret")() }}', { x: 1 });
    expect(r).toEqual({ ok: true, text: '|undefined' });
  });
});

describe('Jinja behaviour NetBox templates rely on', () => {
  const ctx = {
    device: { name: 'r1', interfaces: [{ name: 'eth0', enabled: true, mtu: 1500 }, { name: 'eth1', enabled: false, mtu: 9000 }, { name: 'lo0', enabled: true }] },
    d: { b: [1, 'x<y'], a: { 'ü': true, n: null } },
    names: ['A', 'a', 'b'],
  };
  const cases: Array<[string, string, Record<string, boolean>?]> = [
    ['{% for i in device.interfaces %}{{ loop.index }}:{{ i.name }}{% if not loop.last %},{% endif %}{% endfor %}', '1:eth0,2:eth1,3:lo0'],
    ['{% for k, v in d.items() %}{{ k }};{% endfor %}{{ d.keys()|list|join }}', 'b;a;ba'],
    ['{% for k, v in d|items %}{{ k }}={{ v|tojson }};{% endfor %}', 'b=[1, "x\\u003cy"];a={"n": null, "\\u00fc": true};'],
    ['{{ d|tojson }}', '{"a": {"n": null, "\\u00fc": true}, "b": [1, "x\\u003cy"]}'],
    ['{{ {"b": 1, "a": [2]}|tojson(indent=2) }}', '{\n  "a": [\n    2\n  ],\n  "b": 1\n}'],
    ['{{ device.interfaces|selectattr("enabled")|map(attribute="name")|join(",") }}', 'eth0,lo0'],
    ['{{ device.interfaces|selectattr("mtu", "gt", 1500)|map(attribute="name")|first }}', 'eth1'],
    ['{{ device.interfaces|rejectattr("enabled")|map(attribute="name")|list }}', 'eth1'],
    ['{{ device.interfaces|map(attribute="mtu", default=1500)|sum }}', '12000'],
    ['{{ device.interfaces|selectattr("mtu")|sum(attribute="mtu") }} {{ [1, 2]|sum(start=10) }}', '10500 13'],
    ['{{ device.interfaces|map(attribute="name")|join(", ") }}|{{ device.interfaces|join("/", attribute="name") }}|{{ "a\nb"|indent(width=2, first=true) }}', 'eth0, eth1, lo0|eth0/eth1/lo0|  a\n  b'],
    ['{% for g in device.interfaces|groupby("enabled") %}{{ g.grouper }}:{{ g.list|map(attribute="name")|join }};{% endfor %}{% for key, items in device.interfaces|groupby(attribute="enabled") %}{{ key }}={{ items|length }};{% endfor %}', 'false:eth1;true:eth0lo0;false=1;true=2;'],
    ['{{ " Eth0 "|trim|lower }} {{ "eth0".startswith("eth") }} {{ "eth0".startswith(["x", "e"]) }} {{ "ge-0/0/1".split("/") }} {{ " a  b ".split()|length }} {{ "a b c".split(None, 1)|last }} {{ "a b  c".rsplit(None, 1)|first }}', 'eth0 true true ge-0,0,1 2 b c a b'],
    ['{{ "aXbXc".replace("X", "-") }} {{ "aXbXc".replace("X", "-", 1) }} {{ ", ".join(["a", "b"]) }} {{ "eth0".upper() }} {{ "hello world".title() }} {{ "x".center(5, "*") }} {{ "7".zfill(3) }} {{ "ab".ljust(4, ".") }}|', 'a-b-c a-bXc a, b ETH0 Hello World **x** 007 ab..|'],
    ['{{ "{}-{}".format("a", 1) }} {{ "{0}{0}".format("z") }} {{ "{name}".format(name="n") }} {{ "{:>4}".format(7) }} {{ "{:.2f}".format(3.14159) }} {{ "vlan10".endswith("10") }} {{ "a:b:c".partition(":")|last }} {{ "123".isdigit() }} {{ "a1".isalpha() }} {{ "abcabc".count("b") }} {{ "abc".find("c") }}', 'a-1 zz n    7 3.14 true b:c true false 2 2'],
    ['{{ names|map("lower")|unique|join }}', 'ab'],
    ['{{ names|unique|list|join }} {{ names|unique(case_sensitive=true)|join }}', 'Ab Aab'],
    ['{{ (device.interfaces|selectattr("mtu")|max(attribute="mtu")).name }} {{ names|min }}', 'eth1 A'],
    ['{{ device.interfaces|groupby("enabled")|length }} {{ (device.interfaces|sort(attribute="name", reverse=true)|first).name }} {{ device.interfaces|sort(attribute="name")|map(attribute="name")|join }}', '2 lo0 eth0eth1lo0'],
    ['{{ "%s has %d ports (%.1f%%)"|format(device.name, 3, 66.666) }}', 'r1 has 3 ports (66.7%)'],
    ['{{ device.name|upper }} {{ "Hello World"|lower|replace("world", "there") }} {{ device.interfaces|length }} {{ names|count }}', 'R1 hello there 3 3'],
    ['{{ "  x  "|trim }}|{{ "a,b".split(",")|join("+") }}|{{ "eth0".startswith("eth") }}|{{ missing|default("none") }}', 'x|a+b|true|none'],
    ['{% set n = 3 %}{% if n is divisibleby(3) and "a" in names and n is in([1, 3]) %}yes{% endif %}', 'yes'],
    ['{% filter upper %}x{% endfilter %}{% raw %}{{ raw }}{% endraw %}', 'X{{ raw }}'],
    ['hostname {{ device.name }}\n  {% if true %}\n  mtu\n  {% endif %}\n', 'hostname r1\n  mtu', { trim_blocks: true, lstrip_blocks: true }],
    ['line\n', 'line\n', { keep_trailing_newline: true }],
    ['{{ "<b>" }}', '&lt;b&gt;', { autoescape: true }],
    ['{{ "<b>" }}', '<b>'],
  ];
  test.each(cases)('%s', async (code, expected, options = {}) => {
    expect(await renderTemplate(code, ctx, options, LIMITS)).toEqual({ ok: true, text: expected });
  });
});

describe('the pool', () => {
  test('renderings reuse a bounded number of machines', async () => {
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => render('{{ n * 2 }}', { n: i })));
    expect(results.map(text)).toEqual(Array.from({ length: 40 }, (_, i) => String(i * 2)));
    expect(sharedSandbox().stats().workers).toBeLessThanOrEqual(os.availableParallelism());
  });

  test('past the queue limit a rendering is refused at once as busy, and the pool goes on', async () => {
    const pool = new SandboxPool({ workers: 1, queueLimit: 1, idleMs: 0, retireHeapBytes: 1e9 });
    const slow = { kind: 'render' as const, code: '{{ x.constructor.constructor("for (;;) {}")() }}', contextJson: '{"x": 1}', options: {}, limits: { ...LIMITS, timeoutMs: 1500 } };
    const fail = (why: string, detail: string): PoolRendered => ({ ok: false, message: `${why}: ${detail}` });
    const busy = (): PoolRendered => ({ ok: false, busy: true, message: 'busy' });
    const running = pool.run<PoolRendered>(slow, 30_000, fail, busy);
    const queued = pool.run<PoolRendered>(slow, 30_000, fail, busy);
    const refused = await pool.run<PoolRendered>(slow, 30_000, fail, busy);
    expect(refused).toEqual({ ok: false, busy: true, message: 'busy' });
    // One running (or both waiting while the worker starts) and one waiting: two in all, on one worker.
    const stats = pool.stats();
    expect([stats.workers, stats.busy + stats.queued]).toEqual([1, 2]);
    expect(await running).toEqual({ ok: false, message: expect.stringMatching(/took longer than 1.5 seconds/) });
    expect(await queued).toEqual({ ok: false, message: expect.stringMatching(/took longer than 1.5 seconds/) });
    const quick = await pool.run<PoolRendered>({ ...slow, code: '{{ 1 }}' }, 30_000, fail, busy);
    expect(quick).toEqual({ ok: true, text: '1' });
    await pool.close();
  });

  test('a worker that does not answer within the backstop is stopped from outside and replaced', async () => {
    const pool = new SandboxPool({ workers: 1, queueLimit: 10, idleMs: 0, retireHeapBytes: 1e9 });
    const fail = (why: string, detail: string): PoolRendered => ({ ok: false, message: `${why}: ${detail}` });
    const busy = (): PoolRendered => ({ ok: false, busy: true, message: 'busy' });
    // No deadline inside the machine (timeoutMs 0): only the pool's backstop can end this one.
    const endless = { kind: 'render' as const, code: '{{ x.constructor.constructor("for (;;) {}")() }}', contextJson: '{"x": 1}', options: {}, limits: { ...LIMITS, timeoutMs: 0 } };
    expect(await pool.run<PoolRendered>(endless, 1000, fail, busy)).toEqual({ ok: false, message: 'deadline: no answer within 1 seconds' });
    expect(await pool.run<PoolRendered>({ ...endless, code: '{{ "after" }}' }, 30_000, fail, busy)).toEqual({ ok: true, text: 'after' });
    await pool.close();
  });

  test('a large context goes in as JSON text and comes back rendered', async () => {
    const objects = Array.from({ length: 10_000 }, (_, i) => ({ id: i, name: `device-${i}`, site: { id: 1, name: 'ams1' }, status: { value: 'active', label: 'Active' } }));
    const r = await render('{% for d in queryset %}{{ d.name }},{{ d.site.name }},{{ d.status.label }}\n{% endfor %}', { queryset: objects }, { ...LIMITS, maxOutput: 10_485_760, maxMemory: 256 * 1024 * 1024, timeoutMs: 30_000 });
    expect(r.ok).toBe(true);
    expect(text(r).split('\n')).toHaveLength(10_000);
    expect(text(r).split('\n')[9999]).toBe('device-9999,ams1,Active');
  });
});
