/**
 * The JavaScript that runs inside the QuickJS virtual machine beside Nunjucks' browser bundle
 * (template-vm.ts evaluates it once per machine). It is plain JavaScript on purpose: it is all that runs
 * with the template, and nothing of the host is in that machine for it to reach.
 *
 * - `render(code, contextJson, optionsJson, maxChars)`: one rendering with a new Nunjucks Environment
 *   (no loader: include, import and extends find nothing) and Jinja's filters (vm-jinja-filters.ts),
 *   answered as a JSON string.
 * - Then every object reachable from the global object, and the intrinsics that are not (generator and
 *   iterator prototypes...), is frozen: a template can still build functions (Nunjucks compiles templates
 *   with `new Function`, so the constructor is there) but cannot change anything a later rendering uses,
 *   so one rendering can neither spy on another nor change its output. Writable data properties become
 *   accessors first, so code that assigns an instance property named like one of its prototype's (an
 *   event emitter's _events) still defines its own property instead of failing on the frozen prototype.
 */
export const VM_PROGRAM = String.raw`
(function () {
  'use strict';
  var nunjucks = globalThis.nunjucks;
  var installJinjaFilters = globalThis.installJinjaFilters;
  nunjucks.installJinjaCompat();

  function failure(e) {
    var text = e && e.message ? String(e.message) : String(e);
    var line = /\[Line (\d+), Column \d+\]/.exec(text);
    var message = text.replace(/Template render error:|\(unknown path\)|\[Line \d+, Column \d+\]|\b(Range|Type|Internal|Syntax|Reference)?Error:/g, ' ').replace(/\s+/g, ' ').trim();
    return { ok: false, line: line ? Number(line[1]) : null, message: message || 'error' };
  }

  // Compiled templates, by options and code: compiling is most of a rendering's cost. What is kept is
  // the compiled functions only, frozen; each rendering still gets a new Environment and Template around
  // them, so a template that reaches its own environment (it can: a function it calls gets the render
  // context as this) changes nothing a later rendering uses.
  var compiled = new Map();
  var compiledChars = 0;
  var CACHE_ENTRIES = 256;
  var CACHE_CHARS = 4 * 1024 * 1024;

  function freezeAll(props) {
    Object.freeze(props);
    Object.keys(props).forEach(function (k) {
      var f = props[k];
      if (typeof f === 'function') {
        Object.freeze(f);
        if (f.prototype) Object.freeze(f.prototype);
      }
    });
    return props;
  }

  function compile(code, env, key) {
    var props = compiled.get(key);
    if (props) return props;
    try {
      var source = nunjucks.compiler.compile(code, env.asyncFilters, env.extensionsList, undefined, env.opts);
      props = freezeAll(new Function(source)());
    } catch (e) {
      // Compiled again the usual way, to throw the error as Nunjucks words it (with its line).
      new nunjucks.Template(code, env, undefined, true);
      throw e;
    }
    while (compiled.size >= CACHE_ENTRIES || (compiled.size && compiledChars + key.length > CACHE_CHARS)) {
      var oldest = compiled.keys().next().value;
      compiledChars -= oldest.length;
      compiled.delete(oldest);
    }
    if (key.length <= CACHE_CHARS) {
      compiled.set(key, props);
      compiledChars += key.length;
    }
    return props;
  }

  function render(code, contextJson, optionsJson, maxChars) {
    var answer;
    try {
      var options = JSON.parse(optionsJson);
      var env = new nunjucks.Environment([], { autoescape: options.autoescape === true, trimBlocks: options.trim_blocks === true, lstripBlocks: options.lstrip_blocks === true });
      installJinjaFilters(env);
      var props = compile(String(code), env, optionsJson + '\n' + String(code));
      var template = new nunjucks.Template({ type: 'code', obj: props }, env, undefined, true);
      var out = String(template.render(JSON.parse(contextJson))).replace(/\r\n/g, '\n');
      if (options.keep_trailing_newline !== true && out.endsWith('\n')) out = out.slice(0, -1);
      answer = out.length > maxChars ? { ok: false, line: null, message: 'output', output: true } : { ok: true, text: out };
    } catch (e) {
      answer = failure(e);
    }
    return JSON.stringify(answer);
  }
  Object.defineProperty(globalThis, 'render', { value: render, writable: false, enumerable: false, configurable: false });

  var roots = [
    globalThis,
    function* () {}, async function () {}, async function* () {}, (function* () {})(), (async function* () {})(),
    [][Symbol.iterator](), new Map()[Symbol.iterator](), new Set()[Symbol.iterator](), ''[Symbol.iterator](), /x/[Symbol.matchAll](''),
    Object.getPrototypeOf(Int8Array),
    Object.getOwnPropertyDescriptor(Function.prototype, 'caller') ? Object.getOwnPropertyDescriptor(Function.prototype, 'caller').get : null,
  ];
  var reachable = new Set();
  var todo = roots.slice();
  while (todo.length) {
    var v = todo.pop();
    if ((typeof v !== 'object' && typeof v !== 'function') || v === null || reachable.has(v)) continue;
    reachable.add(v);
    todo.push(Object.getPrototypeOf(v));
    var keys = Reflect.ownKeys(v);
    for (var i = 0; i < keys.length; i++) {
      var d = Object.getOwnPropertyDescriptor(v, keys[i]);
      if (!d) continue;
      if ('value' in d) todo.push(d.value);
      else todo.push(d.get, d.set);
    }
  }

  function accessor(holder, key, value) {
    return {
      get: () => value,
      set: function (next) {
        if (this === holder) throw new TypeError("'" + String(key) + "' is read-only");
        Object.defineProperty(this, key, { value: next, writable: true, enumerable: true, configurable: true });
      },
    };
  }
  var accessors = [];
  reachable.forEach(function (obj) {
    var keys = Reflect.ownKeys(obj);
    for (var i = 0; i < keys.length; i++) {
      var d = Object.getOwnPropertyDescriptor(obj, keys[i]);
      if (!d || !('value' in d) || !d.writable || !d.configurable) continue;
      var a = accessor(obj, keys[i], d.value);
      accessors.push(a.get, a.set);
      Object.defineProperty(obj, keys[i], { get: a.get, set: a.set, enumerable: d.enumerable, configurable: false });
    }
  });
  reachable.forEach(function (obj) { Object.freeze(obj); });
  accessors.forEach(function (f) { Object.freeze(f); if (f.prototype) Object.freeze(f.prototype); });
})();
`;
