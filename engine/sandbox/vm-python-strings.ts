/**
 * Python's str methods on template strings (`name.startswith("eth")`, `line.split()`, `", ".join(names)`),
 * as Jinja templates call them and NetBox's templates rely on; Nunjucks' Jinja compatibility covers lists
 * and dicts only. Plain JavaScript evaluated inside the QuickJS machine after Nunjucks and before the
 * machine is locked: it wraps Nunjucks' member lookup so a string's member named like a Python method is
 * that method, with Python's semantics (split() on whitespace, replace() of every occurrence).
 */
export const VM_PYTHON_STRINGS = String.raw`
(function () {
  'use strict';
  var runtime = globalThis.nunjucks.runtime;

  function toList(v) {
    if (Array.isArray(v)) return v;
    if (v === null || v === undefined) return [];
    if (typeof v === 'object') return Object.keys(v);
    return String(v).split('');
  }
  function stripSet(chars) {
    return chars === undefined || chars === null ? /\s/ : { test: function (c) { return String(chars).indexOf(c) >= 0; } };
  }
  function lstrip(s, chars) {
    var set = stripSet(chars);
    var i = 0;
    while (i < s.length && set.test(s[i])) i++;
    return s.slice(i);
  }
  function rstrip(s, chars) {
    var set = stripSet(chars);
    var i = s.length;
    while (i > 0 && set.test(s[i - 1])) i--;
    return s.slice(0, i);
  }
  function split(s, sep, maxsplit) {
    var max = maxsplit === undefined || maxsplit === null || maxsplit < 0 ? Infinity : maxsplit;
    if (sep === undefined || sep === null) {
      var words = [];
      var rest = lstrip(s);
      while (rest.length) {
        if (words.length >= max) { words.push(rstrip(rest)); break; }
        var m = /\s+/.exec(rest);
        if (!m) { words.push(rest); break; }
        words.push(rest.slice(0, m.index));
        rest = rest.slice(m.index + m[0].length);
      }
      return words;
    }
    if (sep === '') throw new Error('ValueError: empty separator');
    var parts = [];
    var from = 0;
    while (parts.length < max) {
      var at = s.indexOf(sep, from);
      if (at < 0) break;
      parts.push(s.slice(from, at));
      from = at + sep.length;
    }
    parts.push(s.slice(from));
    return parts;
  }
  function rsplit(s, sep, maxsplit) {
    if (maxsplit === undefined || maxsplit === null || maxsplit < 0) return split(s, sep);
    if (sep === undefined || sep === null) {
      var words = [];
      var head = rstrip(s);
      while (words.length < maxsplit) {
        var m = /\s+(\S*)$/.exec(head);
        if (!m) break;
        words.unshift(m[1]);
        head = head.slice(0, m.index);
      }
      return lstrip(head).length ? [head].concat(words) : words;
    }
    var parts = [];
    var end = s.length;
    while (parts.length < maxsplit) {
      var at = s.lastIndexOf(sep, end - sep.length);
      if (at < 0 || end - sep.length < 0) break;
      parts.unshift(s.slice(at + sep.length, end));
      end = at;
    }
    parts.unshift(s.slice(0, end));
    return parts;
  }
  function affix(test) {
    return function (s, fix, start, end) {
      var part = s.slice(start || 0, end === undefined || end === null ? s.length : end);
      var fixes = Array.isArray(fix) ? fix : [fix];
      return fixes.some(function (f) { return test(part, String(f)); });
    };
  }
  function pad(s, width, fill, where) {
    var f = fill === undefined ? ' ' : String(fill);
    var n = Math.max(0, Number(width) - s.length);
    if (where === 'left') return f.repeat(n) + s;
    if (where === 'right') return s + f.repeat(n);
    var left = Math.floor(n / 2) + (n % 2 && Number(width) % 2 ? 1 : 0);
    return f.repeat(left) + s + f.repeat(n - left);
  }
  function every(re) {
    return function (s) { return s.length > 0 && re.test(s); };
  }
  function formatString(s) {
    var args = Array.prototype.slice.call(arguments, 1);
    var last = args[args.length - 1];
    var named = last && typeof last === 'object' && last.__keywords === true ? args.pop() : {};
    var next = 0;
    return s.replace(/\{\{|\}\}|\{([^{}:!]*)(?:![rsa])?(?::([^{}]*))?\}/g, function (m, field, spec) {
      if (m === '{{') return '{';
      if (m === '}}') return '}';
      var path = field.split('.');
      var head = path.shift();
      var v = head === '' ? args[next++] : /^\d+$/.test(head) ? args[Number(head)] : named[head];
      for (var i = 0; i < path.length; i++) v = v === null || v === undefined ? v : v[path[i]];
      var text = v === null || v === undefined ? 'None' : v === true ? 'True' : v === false ? 'False' : String(v);
      var sm = /^(.?[<>^])?(\d+)?(?:\.(\d+))?([fds])?$/.exec(spec || '');
      if (sm) {
        if (sm[4] === 'f' || (sm[3] !== undefined && typeof v === 'number')) text = Number(v).toFixed(sm[3] === undefined ? 6 : Number(sm[3]));
        if (sm[2]) {
          var align = sm[1] ? sm[1].slice(-1) : typeof v === 'number' ? '>' : '<';
          var fill = sm[1] && sm[1].length === 2 ? sm[1][0] : ' ';
          text = pad(text, Number(sm[2]), fill, align === '<' ? 'right' : align === '>' ? 'left' : 'center');
        }
      }
      return text;
    });
  }

  var METHODS = {
    upper: function (s) { return s.toUpperCase(); },
    lower: function (s) { return s.toLowerCase(); },
    casefold: function (s) { return s.toLowerCase(); },
    swapcase: function (s) { return s.replace(/[a-zA-Z]/g, function (c) { return c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase(); }); },
    title: function (s) { return s.replace(/[A-Za-z]+/g, function (w) { return w[0].toUpperCase() + w.slice(1).toLowerCase(); }); },
    capitalize: function (s) { return s.length ? s[0].toUpperCase() + s.slice(1).toLowerCase() : s; },
    strip: function (s, chars) { return rstrip(lstrip(s, chars), chars); },
    lstrip: lstrip,
    rstrip: rstrip,
    split: split,
    rsplit: rsplit,
    splitlines: function (s) { return s.split(/\r\n|\r|\n/).filter(function (l, i, all) { return i < all.length - 1 || l !== ''; }); },
    startswith: affix(function (s, f) { return s.startsWith(f); }),
    endswith: affix(function (s, f) { return s.endsWith(f); }),
    replace: function (s, old, replacement, count) {
      var max = count === undefined || count === null || count < 0 ? Infinity : count;
      return split(s, String(old) === '' ? null : String(old), max === Infinity ? -1 : max).join(String(replacement));
    },
    find: function (s, sub) { return s.indexOf(String(sub)); },
    rfind: function (s, sub) { return s.lastIndexOf(String(sub)); },
    index: function (s, sub) { var i = s.indexOf(String(sub)); if (i < 0) throw new Error('ValueError: substring not found'); return i; },
    rindex: function (s, sub) { var i = s.lastIndexOf(String(sub)); if (i < 0) throw new Error('ValueError: substring not found'); return i; },
    count: function (s, sub) { return String(sub) === '' ? s.length + 1 : s.split(String(sub)).length - 1; },
    join: function (s, items) { return toList(items).map(String).join(s); },
    isdigit: every(/^[0-9]+$/),
    isdecimal: every(/^[0-9]+$/),
    isnumeric: every(/^[0-9]+$/),
    isalpha: every(/^[A-Za-z]+$/),
    isalnum: every(/^[A-Za-z0-9]+$/),
    isspace: every(/^\s+$/),
    islower: function (s) { return /[a-z]/.test(s) && s === s.toLowerCase(); },
    isupper: function (s) { return /[A-Z]/.test(s) && s === s.toUpperCase(); },
    zfill: function (s, width) { var sign = /^[+-]/.test(s) ? s[0] : ''; var body = sign ? s.slice(1) : s; return sign + pad(body, Number(width) - sign.length, '0', 'left'); },
    ljust: function (s, width, fill) { return pad(s, width, fill, 'right'); },
    rjust: function (s, width, fill) { return pad(s, width, fill, 'left'); },
    center: function (s, width, fill) { return pad(s, width, fill, 'center'); },
    partition: function (s, sep) { var i = s.indexOf(sep); return i < 0 ? [s, '', ''] : [s.slice(0, i), sep, s.slice(i + sep.length)]; },
    rpartition: function (s, sep) { var i = s.lastIndexOf(sep); return i < 0 ? ['', '', s] : [s.slice(0, i), sep, s.slice(i + sep.length)]; },
    format: formatString,
  };

  var lookup = runtime.memberLookup;
  runtime.memberLookup = function memberLookup(obj, val) {
    if (arguments.length <= 3 && (typeof obj === 'string' || obj instanceof runtime.SafeString) && Object.prototype.hasOwnProperty.call(METHODS, val)) {
      var s = String(obj);
      var method = METHODS[val];
      return function () { return method.apply(null, [s].concat(Array.prototype.slice.call(arguments))); };
    }
    return lookup.apply(this, arguments);
  };
})();
`;
