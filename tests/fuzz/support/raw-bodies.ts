import type { Prng } from './prng';
import { Obj, Raw, toJsonText, type Json } from './json-text';

/**
 * Bodies as bytes, for what JSON text cannot say: invalid UTF-8, truncated documents, a byte order
 * mark, nothing at all, form encoding, many megabytes, and Content-Types that do not match.
 */

export interface RawBody {
  bytes: Buffer;
  /** undefined: no Content-Type header at all. */
  contentType: string | undefined;
}

export const JSON_TYPES = ['application/json', 'application/json;', 'application/json; charset=utf-8', 'Application/JSON', 'application/json; charset=latin1', 'application/json ; q=1'];
export const OTHER_TYPES = ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json-patch+json', 'application/jsonx', 'application/xml', '', ';', 'application/json,text/plain', '*/*'];

/** A JSON-ish type most of the time, sometimes another or none. */
export function contentTypeFor(rng: Prng): string | undefined {
  return rng.weighted<() => string | undefined>([
    [12, () => 'application/json'],
    [2, () => rng.pick(JSON_TYPES)],
    [1, () => rng.pick(OTHER_TYPES)],
    [1, () => undefined],
  ])();
}

const utf8 = (s: string) => Buffer.from(s, 'utf8');

/** Bytes that are not UTF-8, placed inside a string value of the document. */
const BAD_UTF8 = [[0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82], [0x80], [0xfe, 0xff]];

export function rawBody(rng: Prng, valid: Json): RawBody {
  const text = toJsonText(valid);
  const kind = rng.weighted<string>([
    [3, 'bad-utf8'],
    [3, 'truncated'],
    [1, 'bom'],
    [2, 'empty'],
    [2, 'form'],
    [2, 'wrong-type'],
    [2, 'not-json'],
    [1, 'deep'],
    [1, 'huge'],
    [1, 'many-keys'],
  ]);
  switch (kind) {
    case 'bad-utf8': {
      const at = text.indexOf('"', 1) + 1 || 1;
      const bytes = Buffer.concat([utf8(text.slice(0, at)), Buffer.from(rng.pick(BAD_UTF8)), utf8(text.slice(at))]);
      return { bytes, contentType: 'application/json' };
    }
    case 'truncated':
      return { bytes: utf8(text.slice(0, rng.int(Math.max(1, text.length)))), contentType: 'application/json' };
    case 'bom':
      return { bytes: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8(text)]), contentType: 'application/json' };
    case 'empty':
      return { bytes: Buffer.alloc(0), contentType: rng.pick(['application/json', undefined, 'text/plain']) };
    case 'form':
      return { bytes: utf8(rng.pick(['name=x&slug=y', 'a=1&a=2', '%00=%ED%A0%80', 'json={}', ''])), contentType: rng.pick(['application/x-www-form-urlencoded', 'application/json']) };
    case 'wrong-type':
      return { bytes: utf8(text), contentType: rng.pick([...OTHER_TYPES, undefined]) };
    case 'not-json':
      return { bytes: utf8(rng.pick(['{}x', '{}{}', '[1,]', '{"a":1,}', 'NaN', '{"a":NaN}', '{"a":Infinity}', "{'a':1}", '/* c */{}', '{"a":"\\u12"}', '{"a":"\\x41"}', '"\\ud800"', 'nul', '\u0000', '{"a"}', ']', '}'])), contentType: 'application/json' };
    case 'deep': {
      const n = rng.pick([99, 100, 101, 5000, 100_000]);
      const open = rng.pick(['[', '{"a":']);
      return { bytes: utf8(`${open.repeat(n)}1${(open === '[' ? ']' : '}').repeat(n)}`), contentType: 'application/json' };
    }
    case 'huge': {
      // Past the 2.5 MB limit (refused as it streams, or by its Content-Length), or just under it.
      const size = rng.pick([2_600_000, 4_000_000, 2_000_000]);
      return { bytes: utf8(`{"description":"${'x'.repeat(size)}"}`), contentType: rng.pick(['application/json', 'text/plain']) };
    }
    default: {
      const n = rng.pick([1000, 20_000]);
      const keys = Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',');
      return { bytes: utf8(`{${keys}}`), contentType: 'application/json' };
    }
  }
}

/** A tiny real PNG, and bytes that only claim to be one. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC', 'base64');
const NOT_IMAGES = [Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>1</script></svg>'), Buffer.from('<html></html>'), PNG.subarray(0, 20), Buffer.alloc(0), Buffer.from([0xff, 0xd8, 0xff, 0xd9]), Buffer.from('RIFF\u0000\u0000\u0000\u0000WEBPVP8 ')];

/**
 * A multipart/form-data body for a type with file fields: the valid body's scalar values as form fields
 * (some mutated), and a file part that is an image, not one, empty, doubled, named oddly, cut short, past
 * the size limit, or under an unknown name; sometimes with a broken boundary or none.
 */
export function multipartBody(rng: Prng, valid: Json, fileFields: string[]): RawBody {
  const boundary = `----fz${rng.int(1_000_000)}`;
  const crlf = '\r\n';
  const parts: Buffer[] = [];
  const field = (name: string, value: Buffer | string) => parts.push(Buffer.concat([utf8(`--${boundary}${crlf}Content-Disposition: form-data; name="${name}"${crlf}${crlf}`), Buffer.isBuffer(value) ? value : utf8(value), utf8(crlf)]));
  const file = (name: string, filename: string, bytes: Buffer, type = 'image/png') =>
    parts.push(Buffer.concat([utf8(`--${boundary}${crlf}Content-Disposition: form-data; name="${name}"; filename="${filename}"${crlf}Content-Type: ${type}${crlf}${crlf}`), bytes, utf8(crlf)]));
  if (valid instanceof Obj) {
    for (const [k, v] of valid.entries) {
      if (v === null || v instanceof Obj || Array.isArray(v)) continue;
      field(k, rng.chance(0.15) ? rng.pick(['', '\u0000', '1e400', '-1', 'x'.repeat(300), Buffer.from([0xff, 0xfe]).toString('latin1')]) : String(v instanceof Raw ? v.text : v));
    }
  }
  const name = rng.chance(0.9) ? rng.pick(fileFields) : rng.pick(['picture', '', '__proto__']);
  const kind = rng.weighted<string>([[4, 'image'], [3, 'not-image'], [1, 'twice'], [1, 'odd-name'], [1, 'cut'], [1, 'huge'], [1, 'no-boundary'], [1, 'no-file']]);
  switch (kind) {
    case 'image':
      file(name, 'fuzz.png', PNG);
      break;
    case 'not-image':
      file(name, rng.pick(['x.png', 'x.svg', 'x.jpg']), rng.pick(NOT_IMAGES), rng.pick(['image/png', 'image/svg+xml', 'text/html']));
      break;
    case 'twice':
      file(name, 'a.png', PNG);
      file(name, 'b.png', PNG);
      break;
    case 'odd-name':
      file(name, rng.pick(['../../etc/passwd', '.htaccess', '\u0000.png', 'é'.repeat(200), '', 'a"b.png']), PNG);
      break;
    case 'huge':
      // Past the default 10 MiB image limit: refused as it streams, naming the field.
      file(name, 'big.png', Buffer.concat([PNG, Buffer.alloc(10_600_000, 1)]));
      break;
    case 'no-file':
      break;
    default:
      file(name, 'cut.png', PNG);
  }
  let bytes = Buffer.concat([...parts, utf8(`--${boundary}--${crlf}`)]);
  if (kind === 'cut') bytes = bytes.subarray(0, rng.int(bytes.length));
  const contentType = kind === 'no-boundary' ? rng.pick(['multipart/form-data', 'multipart/form-data; boundary=', `multipart/form-data; boundary="${boundary}x"`]) : `multipart/form-data; boundary=${boundary}`;
  return { bytes, contentType };
}
