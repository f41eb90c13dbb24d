import type { ResolvedField, ResolvedModel } from '../../../engine/definitions/registry-types';
import { nested, Obj, Raw, type Json } from './json-text';
import type { Prng } from './prng';

/**
 * Values that are wrong, odd or at the edge, for JSON bodies and for query strings. JSON values are
 * chosen by the field's kind (a field's own hostile values first, then the ones every field gets);
 * query values are percent-encoded text, so bytes that are not UTF-8 can be sent.
 */

export const TWO_TO_70 = '1180591620717411303424';

/** What a value generator may point at: objects that exist, and the names of every type. */
export interface Vocabulary {
  /** Ids of existing objects of a type (by label). */
  idsOf(label: string): number[];
  /** Every type label of the registry, private ones included. */
  typeLabels: string[];
  /** Custom fields made for the run: name -> type. */
  customFields: Array<{ name: string; type: string }>;
}

const STRINGS_ODD = [
  '',
  ' ',
  'a\u0000b',
  '\u0000',
  '\ud800',
  'x\udfff',
  '\udc00\ud800',
  '\ufeff',
  '\u202e',
  '%00',
  '😀',
  "'; DROP TABLE x; --",
  '\\',
  '"',
  '$user',
  '__proto__',
  'null',
  'NaN',
  'Infinity',
];

const NUMBERS_ODD = [
  new Raw(TWO_TO_70),
  new Raw(`-${TWO_TO_70}`),
  new Raw('1e400'),
  new Raw('-1e400'),
  new Raw('1e-400'),
  new Raw('-0'),
  new Raw('0.0'),
  new Raw('1.0'),
  new Raw('9007199254740993'),
  new Raw('2147483648'),
  new Raw('-2147483649'),
  new Raw('9223372036854775808'),
  new Raw('1.5'),
  new Raw('123456789012345678901234567890.123456789'),
  0,
  -1,
];

/** Values every field gets now and then, whatever its kind. */
export function anyHostile(rng: Prng): Json {
  return rng.weighted<() => Json>([
    [3, () => rng.pick(STRINGS_ODD)],
    [3, () => rng.pick(NUMBERS_ODD)],
    [1, () => null],
    [1, () => rng.pick([true, false])],
    [1, () => []],
    [1, () => new Obj()],
    [1, () => [[[]]]],
    [1, () => [null, 1, 'a', new Obj()]],
    [1, () => new Obj([['id', new Raw(TWO_TO_70)]])],
    [1, () => new Obj([['__proto__', new Obj([['x', 1]])], ['constructor', 1]])],
    [1, () => new Obj([['a\u0000', 1], ['\ud800', 2]])],
    [1, () => nested(rng.between(20, 99), '[', '1', ']')],
    [1, () => nested(rng.between(20, 99), '{"a":', '"\\u0000"', '}')],
    [1, () => nested(rng.between(101, 3000), '[', '', ']')],
    [1, () => 'x'.repeat(rng.pick([101, 256, 1001, 65536, 300_000]))],
    [1, () => Array.from({ length: rng.pick([50, 1001]) }, (_, i) => i)],
  ])();
}

/** A related object written by attributes: one of the target's own fields, with a value wrong for its kind (or right). */
function attributesLike(rng: Prng, target: ResolvedModel | undefined, vocab: Vocabulary): Json {
  const fields = target?.fieldList.filter((f) => f.column && !f.writeOnly) ?? [];
  if (!fields.length) return new Obj([['name', rng.pick(STRINGS_ODD)]]);
  // Columns of a type other than text are where a wrong value can become a database error: asked about more often.
  const typed = fields.filter((f) => !['string', 'text', 'slug'].includes(f.kind));
  const f = typed.length && rng.chance(0.7) ? rng.pick(typed) : rng.pick(fields);
  // Depth-limited: an attribute that is itself a relation gets an id-like value, not another attribute object.
  const value = f.kind === 'fk' ? rng.pick<Json>([1, 'x', new Raw(TWO_TO_70)]) : hostileFor(f, rng, vocab);
  const out = new Obj([[f.name, value]]);
  if (rng.chance(0.2)) out.set(rng.pick(fields).name, rng.pick(STRINGS_ODD));
  return out;
}

function idLike(rng: Prng, ids: number[], target?: ResolvedModel, vocab?: Vocabulary): Json {
  return rng.weighted<() => Json>([
    [4, () => (ids.length ? rng.pick(ids) : 1)],
    [3, () => (vocab ? attributesLike(rng, target, vocab) : new Obj())],
    [1, () => 0],
    [1, () => -1],
    [1, () => 2147483647],
    [1, () => 2147483648],
    [1, () => new Raw(TWO_TO_70)],
    [1, () => new Raw('1e400')],
    [1, () => new Raw('1e20')],
    [1, () => new Raw('1.0')],
    [1, () => String(ids[0] ?? 1)],
    [1, () => ` ${ids[0] ?? 1} `],
    [1, () => '0x1'],
    [1, () => '1e3'],
    [1, () => new Obj([['id', ids[0] ?? 1]])],
    [1, () => new Obj([['id', 'abc']])],
    [1, () => new Obj([['name', rng.pick(STRINGS_ODD)]])],
    [1, () => new Obj([['slug', 'no-such-slug']])],
    [1, () => new Obj([['name__ic', 'x'], ['__proto__', 1]])],
    [1, () => new Obj()],
    [1, () => [ids[0] ?? 1]],
  ])();
}

/** A type label for a generic relation or a type-naming field: a real one, a private one, or junk. */
export function typeLabelLike(rng: Prng, vocab: Vocabulary, good: string[]): Json {
  return rng.weighted<() => Json>([
    [3, () => (good.length ? rng.pick(good) : 'dcim.site')],
    [3, () => rng.pick(vocab.typeLabels)],
    [2, () => rng.pick(['users.token', 'users.user', 'users.session', 'users.loginfailure', 'users.objectpermission'])],
    [1, () => rng.pick(['dcim.nothing', 'nothing', '', '.', 'dcim.', '.site', 'DCIM.SITE', 'dcim.site ', 'dcim.site\u0000', 'dcim.\ud800', 'a.b.c'])],
    [1, () => rng.pick([5, null, true, new Obj([['app_label', 'dcim'], ['model', 'site']]), ['dcim.site']])],
  ])();
}

function dateLike(rng: Prng, time: boolean): Json {
  const dates = ['2024-02-30', '0000-01-01', '0001-01-01', '9999-12-31', '10000-01-01', '275760-09-13', '+275760-09-13', '-001000-01-01', '2024-1-1', '2024-13-01', '20240101', 'today', 'infinity', '-infinity', 'epoch', 'allballs'];
  const times = ['2024-01-01T25:00:00Z', '2024-01-01T00:00:00+99:99', '2024-01-01T00:00:00+16:00', '2024-01-01T00:00:00-15:59', '0000-01-01T00:00:00Z', '0001-01-01T00:00:00+01:00', '2024-01-01T00:00:60Z', '2024-12-31T23:59:60Z', '2024-01-01T00:00:00.1234567Z', '2024-01-01 00:00', '2024-01-01T00:00:00 PST', '1970-01-01T00:00:00Z', 'now'];
  return rng.pick(time ? [...dates, ...times] : dates);
}

function addressLike(rng: Prng, network: boolean): Json {
  const common = ['10.0.0.0/33', '300.1.1.1/24', '1.2.3', '1.2.3.4/-1', '1.2.3.4/ 24', '::1::2', 'fe80::1%eth0', '::ffff:1.2.3.4/129', '0.0.0.0/0', '::/0', '255.255.255.255/32', '10.0.0.1/8', '2001:db8::/200', `10.0.0.0/${'9'.repeat(60)}`, '1.2.3.4\u0000', '\ud800/8', '010.000.000.001/24', '0x0a.0.0.1/24'];
  return rng.pick(network ? [...common, '10.0.0.0/8', '10.0.0.1/24', 'fd00::/7'] : [...common, '10.0.0.1', '10.0.0.1/24', 'fd00::1/64']);
}

/** A wrong or odd value for one field, by its kind. */
export function hostileFor(f: ResolvedField, rng: Prng, vocab: Vocabulary): Json {
  if (rng.chance(0.25)) return anyHostile(rng);
  if (f.namesType) return f.array ? rng.pick([[typeLabelLike(rng, vocab, [])], typeLabelLike(rng, vocab, [])]) : typeLabelLike(rng, vocab, []);
  const one = (): Json => {
    switch (f.kind) {
      case 'fk':
        return idLike(rng, vocab.idsOf(f.target!.label), f.target, vocab);
      case 'm2m':
      case 'tags': {
        const ids = vocab.idsOf(f.target!.label);
        return rng.pick<Json>([
          [idLike(rng, ids)],
          [idLike(rng, ids), idLike(rng, ids)],
          idLike(rng, ids),
          [new Obj([['name', 'no such']])],
          [new Obj([['slug', rng.pick(STRINGS_ODD)]])],
          [[ids[0] ?? 1]],
          [null],
          Array.from({ length: 1001 }, () => ids[0] ?? 1),
        ]);
      }
      case 'integer':
      case 'positive_integer':
        return rng.pick<Json>([...NUMBERS_ODD, '12', ' 12 ', '0x10', '1e3', '+5', '-', '١٢', f.def.max !== undefined ? f.def.max + 1 : 1, f.def.min !== undefined ? f.def.min - 1 : -1]);
      case 'decimal':
      case 'float':
        return rng.pick<Json>([...NUMBERS_ODD, '1.5', 'NaN', 'Infinity', '1e400', '0.' + '1'.repeat(40), new Raw('0.0000000000000000000001')]);
      case 'boolean':
        return rng.pick<Json>(['true', 'True', 'yes', 'on', '1', 'maybe', 1, 0, 2, null]);
      case 'date':
        return dateLike(rng, false);
      case 'datetime':
        return dateLike(rng, true);
      case 'choice': {
        const entries = f.choices?.entries ?? [];
        const e = entries.length ? rng.pick(entries) : { value: 'x', label: 'X' };
        return rng.pick<Json>([e.value, e.label, String(e.value).toUpperCase(), ` ${String(e.value)}`, new Obj([['value', e.value], ['label', e.label]]), new Obj([['value', 'nope']]), [e.value], 'not-a-choice']);
      }
      case 'cidr':
        return addressLike(rng, true);
      case 'inet':
        return addressLike(rng, false);
      case 'mac':
        return rng.pick(['00:11:22:33:44', '00:11:22:33:44:55:66', 'zz:zz:zz:zz:zz:zz', '0011.2233.4455', '00-11-22-33-44-55', '001122334455', 'ff:ff:ff:ff:ff:ff:ff:ff']);
      case 'slug':
        return rng.pick(['Not A Slug', 'a/b', 'ünï', '-', '_', 'x'.repeat(101), 'a\u0000']);
      case 'json':
        return rng.pick<Json>([new Obj([['k', 'a\u0000b']]), ['\ud800'], nested(90, '{"a":', '1', '}'), new Raw('{"a":1,"a":2}'), new Raw(TWO_TO_70)]);
      case 'custom_fields':
        return customFieldsLike(rng, vocab);
      default:
        return anyHostile(rng);
    }
  };
  if (f.array && f.kind !== 'm2m' && f.kind !== 'tags') return rng.pick<Json>([[one()], [one(), one()], one(), []]);
  return one();
}

/** A custom_fields object naming the run's custom fields, with values of the wrong type (or right ones). */
function customFieldsLike(rng: Prng, vocab: Vocabulary): Json {
  const out = new Obj();
  for (const cf of rng.some(vocab.customFields, rng.between(1, 3))) {
    out.set(cf.name, rng.weighted<() => Json>([
      [3, () => anyHostile(rng)],
      [1, () => rng.pick(['2024-02-30', 'not a url', 'javascript:alert(1)', 'choice-x', '1.5', '12'])],
      [1, () => idLike(rng, vocab.idsOf('dcim.site'))],
      [1, () => [idLike(rng, vocab.idsOf('dcim.site'))]],
    ])());
  }
  if (rng.chance(0.3)) out.set(rng.pick(['no_such_field', '__proto__', 'constructor', 'a\u0000', '']), 1);
  return rng.chance(0.1) ? rng.pick<Json>(['abc', [1], 5, nested(150, '{"a":', '1', '}')]) : out;
}

// ---------------------------------------------------------------------------------------------------
// Query strings: values are percent-encoded text (encodeURIComponent cannot say a lone surrogate)

/** UTF-8 percent-encoding; a lone surrogate becomes its three (invalid) UTF-8 bytes, as a careless client sends it. */
export function percentEncode(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (/[A-Za-z0-9\-_.~]/.test(s[i]!)) {
      out += s[i];
      continue;
    }
    let cp = c;
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
      }
    }
    out += utf8Bytes(cp).map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  }
  return out;
}

function utf8Bytes(cp: number): number[] {
  if (cp < 0x80) return [cp];
  if (cp < 0x800) return [0xc0 | (cp >> 6), 0x80 | (cp & 63)];
  if (cp < 0x10000) return [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63)];
  return [0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63)];
}

/** Encoded junk that no encoder makes: stray and broken escapes, bytes that are not UTF-8, separators. */
const ENCODED_JUNK = ['%', '%zz', '%4', '%FF', '%C0%80', '%ED%A0%80', '%F4%90%80%80', '%00', '+', '%2B', '%26', '%3D', '%23', ';', '%EF%BB%BF', '%0D%0A', '..%2F..%2F', '%25'];

/** An encoded query value: plausible for the kind, or junk. */
export function queryValue(rng: Prng, kind: string, vocab: Vocabulary, choices: readonly string[] = []): string {
  return rng.weighted<() => string>([
    [3, () => percentEncode(plausibleQueryText(rng, kind, vocab, choices))],
    [2, () => percentEncode(String(rng.pick<unknown>([...STRINGS_ODD, '1e400', TWO_TO_70, `-${TWO_TO_70}`, '-0', '1.5', '9223372036854775808', 'true', 'null', '[1]', '{"a":1}'])))],
    [2, () => rng.pick(ENCODED_JUNK)],
    [1, () => `${rng.pick(ENCODED_JUNK)}${percentEncode(plausibleQueryText(rng, kind, vocab, choices))}`],
    [1, () => 'x'.repeat(rng.pick([1000, 5000]))],
  ])();
}

function plausibleQueryText(rng: Prng, kind: string, vocab: Vocabulary, choices: readonly string[]): string {
  switch (kind) {
    case 'integer':
    case 'number':
      return rng.pick(['1', '0', '-1', '2147483648', '1.5', ' 2 ', '+3', '1e3']);
    case 'boolean':
      return rng.pick(['true', 'false', 'True', '1', '0', 'yes', 'maybe']);
    case 'date':
    case 'datetime':
      return String(dateLike(rng, kind === 'datetime'));
    case 'inet':
    case 'cidr':
      return String(addressLike(rng, kind === 'cidr'));
    case 'mac':
      return rng.pick(['00:11:22:33:44:55', '00:11', 'zz']);
    case 'choice':
      return choices.length ? rng.pick(choices) : 'x';
    case 'relation':
    case 'fk':
      return rng.pick(['1', 'null', 'abc', String(rng.pick(vocab.typeLabels)), '0']);
    default:
      return rng.pick(['a', 'v1', 'x y', 'S', '%', '_', '*', '.*', '(?i)x']);
  }
}
