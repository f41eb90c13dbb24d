import { Prng } from './prng';

/**
 * Random Jinja programs for the template fuzz suite: expressions built from the context's values,
 * literals and top-level names, through member lookups by every spelling (`.name`, `["name"]`,
 * `[["name"]]`) of the names that climbed out of Nunjucks' guard (constructor, __proto__,
 * __lookupSetter__...), filters given those names as attributes, calls with code that reaches for the
 * host (the environment, a file, a command, the server's globals), includes of host files, and sizes
 * that grow without bound (ranges, doubling, recursion, nesting).
 */

export const HOSTILE_NAMES = [
  'constructor', '__proto__', 'prototype', '__lookupSetter__', '__lookupGetter__', '__defineSetter__', '__defineGetter__',
  'call', 'apply', 'bind', 'caller', 'callee', 'arguments', 'valueOf', 'toString', 'toLocaleString', 'hasOwnProperty',
  'process', 'require', 'module', 'exports', 'global', 'globalThis', 'Function', 'eval', 'mainModule', 'env', 'length', 'name',
];

const FILTERS = [
  'join', 'sort', 'groupby', 'selectattr', 'rejectattr', 'sum', 'map', 'attr', 'dictsort', 'dump', 'list', 'first', 'last',
  'length', 'tojson', 'unique', 'min', 'max', 'items', 'batch', 'slice', 'replace', 'indent', 'format', 'string', 'int',
  'float', 'default', 'reverse', 'title', 'upper', 'trim', 'truncate', 'wordcount', 'center', 'urlize', 'striptags',
  'escape', 'safe', 'count', 'select', 'reject', 'round', 'abs', 'capitalize', 'nl2br', 'lower',
];

/** JavaScript a template may hand to a constructor it reached: each tries to read the host. */
function hostProbes(canaryFile: string): string[] {
  return [
    'return process.env.PATCHBAY_TEST_CANARY',
    `return require('fs').readFileSync('${canaryFile}', 'utf8')`,
    "return require('child_process').execSync('id').toString()",
    'return globalThis.hostCanary',
    'return typeof process + typeof require + Object.keys(globalThis).join()',
    'return this.process.mainModule.require("fs")',
    `return import('fs').then(function (m) { return m.readFileSync('${canaryFile}') })`,
    'for (;;) {}',
    'var a = []; for (;;) a.push(new Array(1e6).join("x"))',
    'function f() { return f() } return f()',
    'Object.prototype.polluted = 1; Array.prototype.join = null; return 1',
    'return Object.getOwnPropertyNames(globalThis).join(" ")',
  ];
}

export class JinjaProgram {
  private depth = 0;

  constructor(
    private readonly r: Prng,
    private readonly canaryFile: string,
  ) {}

  private quote(s: string): string {
    return JSON.stringify(s);
  }

  private literal(): string {
    return this.r.weighted<() => string>([
      [3, () => this.quote(this.r.pick(HOSTILE_NAMES))],
      [2, () => this.quote(this.r.pick(hostProbes(this.canaryFile)))],
      [2, () => String(this.r.pick([0, 1, -1, 7, 2 ** 31, 2 ** 53, 1e308, 0.5]))],
      [1, () => this.quote('x'.repeat(this.r.pick([1, 16, 1000])))],
      [1, () => `[${this.arg()}, ${this.arg()}]`],
      [1, () => `{ ${this.quote(this.r.pick(HOSTILE_NAMES))}: ${this.arg()} }`],
      [1, () => this.r.pick(['true', 'false', 'none', 'null', 'undefined'])],
    ])();
  }

  private base(): string {
    return this.r.weighted<() => string>([
      [4, () => this.r.pick(['x', 'd', 'l', 's', 'n', 'data', 'queryset'])],
      [3, () => this.r.pick(HOSTILE_NAMES)],
      [2, () => this.r.pick(['range', 'cycler', 'joiner', 'loop', 'caller', 'self', 'this', 'super', 'varargs', 'kwargs'])],
      [2, () => this.literal()],
      [1, () => `range(0, ${this.r.pick([3, 1000, 1_000_000, 100_000_000])})`],
    ])();
  }

  private member(e: string): string {
    const name = this.r.pick(HOSTILE_NAMES);
    return this.r.weighted<() => string>([
      [3, () => `${e}.${name}`],
      [2, () => `${e}[${this.quote(name)}]`],
      [2, () => `${e}[[${this.quote(name)}]]`],
      [1, () => `${e}[${this.expr()}]`],
    ])();
  }

  private filter(e: string): string {
    const f = this.r.pick(FILTERS);
    const attr = this.quote(this.r.pick(HOSTILE_NAMES));
    return this.r.weighted<() => string>([
      [3, () => `${e}|${f}`],
      [3, () => `${e}|${f}(${attr})`],
      [2, () => `${e}|${f}(attribute=${attr})`],
      [1, () => `${e}|${f}(${this.arg()}, ${attr})`],
    ])();
  }

  private arg(): string {
    return this.depth > 3 ? this.literal() : this.expr();
  }

  expr(): string {
    this.depth++;
    try {
      let e = this.base();
      const steps = this.r.int(this.depth > 3 ? 2 : 5);
      for (let i = 0; i < steps; i++) {
        e = this.r.weighted<() => string>([
          [4, () => this.member(e)],
          [3, () => this.filter(e)],
          [3, () => `${e}(${this.r.chance(0.6) ? this.quote(this.r.pick(hostProbes(this.canaryFile))) : this.arg()})`],
          [1, () => `(${e} ~ ${this.arg()})`],
          [1, () => `(${e} if ${this.arg()} else ${this.arg()})`],
          [1, () => `(${e} + ${this.arg()})`],
        ])();
      }
      return e;
    } finally {
      this.depth--;
    }
  }

  /** The ways out of a value to the function constructor that worked on Nunjucks' own guard, with a probe. */
  private climb(): string {
    const probe = this.quote(this.r.pick(hostProbes(this.canaryFile)));
    const from = this.r.pick(['x', 'd', 'l', 'range', 'cycler', 'n', '""', '[]']);
    return this.r.pick([
      `${from}.constructor.constructor(${probe})()`,
      `${from}["constructor"]["constructor"](${probe})()`,
      `${from}[["constructor"]][["constructor"]](${probe})()`,
      `${from}.__proto__.constructor.constructor(${probe})()`,
      `(${from}|attr("constructor")|attr("constructor"))(${probe})()`,
      `([${from}]|map(attribute="constructor")|first).constructor(${probe})()`,
      `([${from}]|sort(attribute="constructor")|first).constructor.constructor(${probe})()`,
      `__lookupGetter__("__proto__").call(${from}).constructor.constructor(${probe})()`,
    ]) + (this.r.chance(0.3) ? `{% set o = {"s": __lookupSetter__("__proto__")} %}{{ o.s(range) }}{{ o[["constructor"]](${probe})() ` : '');
  }

  statement(): string {
    const name = `v${this.r.int(4)}`;
    return this.r.weighted<() => string>([
      [5, () => `{{ ${this.expr()} }}`],
      [2, () => `{% set ${name} = ${this.expr()} %}{{ ${name} }}`],
      [2, () => `{% for ${name} in ${this.expr()} %}{{ ${name}${this.r.chance(0.5) ? `.${this.r.pick(HOSTILE_NAMES)}` : ''} }}{% endfor %}`],
      [1, () => `{% if ${this.expr()} %}a{% else %}{{ ${this.expr()} }}{% endif %}`],
      [1, () => `{% macro m(a) %}{{ ${this.r.chance(0.5) ? 'm(a)' : 'a'} }}{% endmacro %}{{ m(${this.expr()}) }}`],
      [1, () => `{% set s = ${this.quote('x'.repeat(16))} %}{% for i in range(0, ${this.r.pick([4, 20, 30])}) %}{% set s = s ~ s %}{% endfor %}{{ s|${this.r.pick(['list|length', 'length', 'upper|length'])} }}`],
      [1, () => `{% ${this.r.pick(['include', 'import', 'extends'])} ${this.quote(this.r.pick([this.canaryFile, '/etc/passwd', '../../package.json', 'x']))}${this.r.chance(0.5) ? ' as f' : ''} %}`],
      [1, () => `{% filter ${this.r.pick(['upper', 'safe', 'escape', 'constructor', '__proto__'])} %}{{ ${this.expr()} }}{% endfilter %}`],
      [1, () => {
        const loops = this.r.int(4) + 1;
        return `${'{% for i in range(0, 1000) %}'.repeat(loops)}x${'{% endfor %}'.repeat(loops)}`;
      }],
      [1, () => {
        const depth = this.r.pick([2, 50, 400, 5000]);
        return `{{ ${'('.repeat(depth)}1${')'.repeat(depth)} }}`;
      }],
      [3, () => `{{ ${this.climb()} }}`],
    ])();
  }

  program(): string {
    const n = this.r.between(1, 4);
    return Array.from({ length: n }, () => this.statement()).join(this.r.pick(['', '\n', ' ']));
  }
}

/** The context every fuzzed template sees: plain JSON, shaped like the data templates usually get. */
export const FUZZ_CONTEXT = {
  x: 'a',
  n: 42,
  s: ['b', 'a', 'c'],
  l: [{ name: 'eth0', mtu: 1500, tags: [{ slug: 'core' }] }, { name: 'eth1', mtu: 9000, tags: [] }],
  d: { name: 'r1', site: { slug: 'ams1' }, custom_fields: {}, constructor: 'data', __proto__x: 1 },
  data: { id: 1, status: { value: 'active', label: 'Active' } },
  queryset: [{ id: 1, name: 's1' }],
};
