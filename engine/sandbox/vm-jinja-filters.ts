/**
 * Jinja2 filters and tests NetBox's templates use that Nunjucks lacks or has in a narrower form, written
 * to behave as Jinja 3.1's do. Plain JavaScript evaluated inside the QuickJS machine before it is locked
 * (template-vm.ts), so these run with the template and reach nothing else either. It defines
 * `installJinjaFilters(env)`, which vm-program.ts calls on each rendering's environment.
 *
 * - tojson: Python's json.dumps (sorted keys, ", " and ": " separators, ASCII only, indent) made
 *   HTML-safe as Jinja does (<, >, & and ' as \u escapes), marked safe.
 * - map(attribute=..., default=...) and map('filter', args...); selectattr/rejectattr(attr, test, value);
 *   unique, min, max (case-insensitive by default, attribute=...); items; attr; count; format (Python's %);
 *   groupby as Jinja's (sorted (grouper, list) pairs); the `in` test.
 * - Keyword arguments (`sort(attribute="name")`, `join(", ", attribute="name")`, `indent(width=2)`) for
 *   Nunjucks' own filters, which take their arguments by position only: each keyword is put at the
 *   position of the Jinja parameter of that name.
 */
export const VM_JINJA_FILTERS = String.raw`
(function () {
  'use strict';
  var nunjucks = globalThis.nunjucks;
  var markSafe = nunjucks.runtime.markSafe;

  function split(args) {
    var last = args[args.length - 1];
    if (last && typeof last === 'object' && last.__keywords === true) return { positional: args.slice(0, -1), keywords: last };
    return { positional: args, keywords: {} };
  }

  // Jinja's attribute getter: dotted paths, integer parts index lists.
  function getter(path) {
    var parts = String(path).split('.');
    return function (item) {
      var v = item;
      for (var i = 0; i < parts.length; i++) {
        if (v === null || v === undefined) return undefined;
        var p = parts[i];
        v = Array.isArray(v) && /^-?\d+$/.test(p) ? v[Number(p)] : v[p];
      }
      return v;
    };
  }

  function toList(value) {
    if (value === null || value === undefined) return [];
    if (Array.isArray(value)) return value;
    if (typeof value === 'string') return value.split('');
    if (typeof value === 'object') return Object.keys(value);
    return [value];
  }

  function pyString(s) {
    var out = '"';
    for (var i = 0; i < s.length; i++) {
      var c = s.charCodeAt(i);
      var ch = s[i];
      if (ch === '"') out += '\\"';
      else if (ch === '\\') out += '\\\\';
      else if (ch === '\n') out += '\\n';
      else if (ch === '\r') out += '\\r';
      else if (ch === '\t') out += '\\t';
      else if (ch === '\b') out += '\\b';
      else if (ch === '\f') out += '\\f';
      else if (c < 0x20 || c > 0x7e) out += '\\u' + ('0000' + c.toString(16)).slice(-4);
      else out += ch;
    }
    return out + '"';
  }

  function pyNumber(n) {
    if (Number.isInteger(n)) return String(n);
    if (!isFinite(n)) return n !== n ? 'NaN' : n > 0 ? 'Infinity' : '-Infinity';
    return String(n);
  }

  // json.dumps(value, sort_keys=True, indent=indent): Python's separators and escapes.
  function pyJson(value, indent, depth) {
    if (value === null || value === undefined) return 'null';
    if (value === true) return 'true';
    if (value === false) return 'false';
    if (typeof value === 'number') return pyNumber(value);
    if (typeof value === 'string' || value instanceof String) return pyString(String(value));
    var inner = indent === null ? '' : '\n' + ' '.repeat(indent * (depth + 1));
    var outer = indent === null ? '' : '\n' + ' '.repeat(indent * depth);
    var sep = indent === null ? ', ' : ',';
    if (Array.isArray(value)) {
      if (!value.length) return '[]';
      return '[' + inner + value.map(function (v) { return pyJson(v, indent, depth + 1); }).join(sep + inner) + outer + ']';
    }
    if (typeof value === 'object') {
      var keys = Object.keys(value).sort();
      if (!keys.length) return '{}';
      return '{' + inner + keys.map(function (k) { return pyString(k) + ': ' + pyJson(value[k], indent, depth + 1); }).join(sep + inner) + outer + '}';
    }
    return pyString(String(value));
  }

  function tojson(value, indent) {
    var a = split(Array.prototype.slice.call(arguments, 1));
    var width = a.keywords.indent !== undefined ? a.keywords.indent : a.positional[0];
    var text = pyJson(value, typeof width === 'number' ? width : null, 0);
    return markSafe(text.replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026').replace(/'/g, '\\u0027'));
  }

  function comparable(v, caseSensitive) {
    return !caseSensitive && typeof v === 'string' ? v.toLowerCase() : v;
  }

  function keyed(value, keywords) {
    var get = keywords.attribute !== undefined ? getter(keywords.attribute) : function (x) { return x; };
    var cs = keywords.case_sensitive === true;
    return toList(value).map(function (item) { return { item: item, key: comparable(get(item), cs) }; });
  }

  function extreme(sign) {
    return function (value) {
      var a = split(Array.prototype.slice.call(arguments, 1));
      var best;
      keyed(value, a.keywords).forEach(function (e) {
        if (best === undefined || (sign > 0 ? e.key > best.key : e.key < best.key)) best = e;
      });
      return best === undefined ? undefined : best.item;
    };
  }

  function unique(value) {
    var a = split(Array.prototype.slice.call(arguments, 1));
    var seen = [];
    var out = [];
    keyed(value, a.keywords).forEach(function (e) {
      var k = JSON.stringify(e.key === undefined ? null : e.key);
      if (seen.indexOf(k) < 0) {
        seen.push(k);
        out.push(e.item);
      }
    });
    return out;
  }

  function map(value) {
    var a = split(Array.prototype.slice.call(arguments, 1));
    var items = toList(value);
    if (a.keywords.attribute !== undefined) {
      var get = getter(a.keywords.attribute);
      return items.map(function (i) { var v = get(i); return v === undefined && 'default' in a.keywords ? a.keywords['default'] : v; });
    }
    if (!a.positional.length) return items;
    var filter = this.env.getFilter(String(a.positional[0]));
    var rest = a.positional.slice(1);
    var context = this;
    return items.map(function (i) { return filter.apply(context, [i].concat(rest)); });
  }

  function selectAttr(keep) {
    return function (value, attribute, testName) {
      var get = getter(attribute);
      var extra = Array.prototype.slice.call(arguments, 3);
      var test = testName === undefined ? null : this.env.getTest(String(testName));
      return toList(value).filter(function (item) {
        var v = get(item);
        var ok = test ? test.apply(null, [v].concat(extra)) : !!v && !(Array.isArray(v) && !v.length);
        return keep ? ok : !ok;
      });
    };
  }

  function items(value) {
    if (value === null || value === undefined) return [];
    if (typeof value !== 'object' || Array.isArray(value)) throw new Error('items: ' + (Array.isArray(value) ? 'list' : typeof value) + ' is not a mapping');
    return Object.keys(value).map(function (k) { return [k, value[k]]; });
  }

  function attr(value, name) {
    return value === null || value === undefined ? undefined : value[name];
  }

  // Python's printf-style formatting: %s %r %d %i %f %e %g %x %o %c %%, flags, width, precision, %(name)s.
  function format(template) {
    var a = split(Array.prototype.slice.call(arguments, 1));
    var args = a.positional.length === 1 && a.positional[0] && typeof a.positional[0] === 'object' && !Array.isArray(a.positional[0]) ? a.positional[0] : null;
    var named = args || a.keywords;
    var position = 0;
    return String(template).replace(/%(?:\(([^)]*)\))?([-+ 0#]*)(\d+|\*)?(?:\.(\d+))?([sridfFeEgGxXoc%])/g, function (m, name, flags, width, precision, conv) {
      if (conv === '%') return '%';
      var v = name !== undefined ? named[name] : a.positional[position++];
      var text;
      var p = precision === undefined ? undefined : Number(precision);
      switch (conv) {
        case 's': text = v === null || v === undefined ? 'None' : v === true ? 'True' : v === false ? 'False' : typeof v === 'object' ? pyJson(v, null, 0) : String(v); break;
        case 'r': text = typeof v === 'string' ? "'" + v + "'" : pyJson(v, null, 0); break;
        case 'd': case 'i': text = String(Math.trunc(Number(v))); break;
        case 'f': case 'F': text = Number(v).toFixed(p === undefined ? 6 : p); break;
        case 'e': case 'E': text = Number(v).toExponential(p === undefined ? 6 : p).replace(/e([+-])(\d)$/, 'e$10$2'); if (conv === 'E') text = text.toUpperCase(); break;
        case 'g': case 'G': text = String(Number(Number(v).toPrecision(p === undefined ? 6 : p || 1))); break;
        case 'x': text = Math.trunc(Number(v)).toString(16); break;
        case 'X': text = Math.trunc(Number(v)).toString(16).toUpperCase(); break;
        case 'o': text = Math.trunc(Number(v)).toString(8); break;
        default: text = typeof v === 'number' ? String.fromCharCode(v) : String(v);
      }
      if (flags.indexOf('+') >= 0 && /[difFeEgG]/.test(conv) && Number(v) >= 0) text = '+' + text;
      var w = width === '*' ? Number(a.positional[position++]) : width === undefined ? 0 : Number(width);
      if (text.length < w) {
        if (flags.indexOf('-') >= 0) text = text + ' '.repeat(w - text.length);
        else if (flags.indexOf('0') >= 0 && /[difFeEgGxXo]/.test(conv)) text = (text[0] === '-' || text[0] === '+' ? text[0] + '0'.repeat(w - text.length) + text.slice(1) : '0'.repeat(w - text.length) + text);
        else text = ' '.repeat(w - text.length) + text;
      }
      return text;
    });
  }

  function within(value, container) {
    if (Array.isArray(container) || typeof container === 'string') return container.indexOf(value) >= 0;
    if (container && typeof container === 'object') return Object.prototype.hasOwnProperty.call(container, value);
    return false;
  }

  // Sorted groups of items sharing an attribute's value, each a [grouper, list] pair with those names too,
  // so both {% for key, items in ... %} and group.grouper / group.list work.
  function groupby(value) {
    var a = split(Array.prototype.slice.call(arguments, 1));
    var attribute = a.keywords.attribute !== undefined ? a.keywords.attribute : a.positional[0];
    var fallback = 'default' in a.keywords ? a.keywords['default'] : a.positional[1];
    var get = getter(attribute);
    var groups = [];
    toList(value).forEach(function (item) {
      var key = get(item);
      if (key === undefined) key = fallback;
      var g = groups.find(function (x) { return JSON.stringify(x.grouper) === JSON.stringify(key); });
      if (!g) groups.push(g = { grouper: key, list: [] });
      g.list.push(item);
    });
    groups.sort(function (x, y) { return x.grouper < y.grouper ? -1 : x.grouper > y.grouper ? 1 : 0; });
    return groups.map(function (g) {
      var pair = [g.grouper, g.list];
      pair.grouper = g.grouper;
      pair.list = g.list;
      return pair;
    });
  }

  // Jinja's parameter names of Nunjucks' positional filters, in Nunjucks' order.
  var PARAMETERS = {
    sort: ['reverse', 'case_sensitive', 'attribute'],
    join: ['d', 'attribute'],
    sum: ['attribute', 'start'],
    indent: ['width', 'first'],
    truncate: ['length', 'killwords', 'end'],
    round: ['precision', 'method'],
    default: ['default_value', 'boolean'],
    d: ['default_value', 'boolean'],
    batch: ['linecount', 'fill_with'],
    slice: ['slices', 'fill_with'],
    center: ['width'],
    replace: ['old', 'new', 'count'],
    dictsort: ['case_sensitive', 'by'],
    int: ['default'],
    float: ['default'],
    urlize: ['trim_url_limit', 'nofollow'],
    wordcount: [],
  };
  function byKeyword(name, filter) {
    var names = PARAMETERS[name];
    return function (value) {
      var a = split(Array.prototype.slice.call(arguments, 1));
      var args = a.positional.slice();
      Object.keys(a.keywords).forEach(function (k) {
        if (k === '__keywords') return;
        var at = names.indexOf(k);
        if (at < 0) throw new Error(name + "() got an unexpected keyword argument '" + k + "'");
        while (args.length < at) args.push(undefined);
        args[at] = a.keywords[k];
      });
      return filter.apply(this, [value].concat(args));
    };
  }

  var FILTERS = { tojson: tojson, map: map, selectattr: selectAttr(true), rejectattr: selectAttr(false), unique: unique, min: extreme(-1), max: extreme(1), items: items, attr: attr, count: function (v) { return toList(v).length; }, format: format, groupby: groupby };
  globalThis.installJinjaFilters = function (env) {
    Object.keys(PARAMETERS).forEach(function (name) { env.addFilter(name, byKeyword(name, env.getFilter(name))); });
    Object.keys(FILTERS).forEach(function (name) { env.addFilter(name, FILTERS[name]); });
    env.addTest('in', within);
  };
})();
`;
