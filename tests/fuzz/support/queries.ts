import type { Prng } from './prng';
import { percentEncode, queryValue } from './hostile-values';
import type { Endpoint, World } from './world';

/**
 * Query strings for list and detail requests: the endpoint's own filters and lookups (from its filter
 * table) with values of the wrong kind, the paging and shaping parameters with junk, custom field
 * filters, names that are properties of every JavaScript object, and parameters repeated.
 */

const BOGUS_LOOKUPS = ['regex', 'iregex', 'in', 'range', 'isnull', 'contains', 'n__n', '', '__', 'exact', 'EXACT', 'gte\u0000'];
const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'hasOwnProperty', 'toString', 'valueOf', 'prototype', '__defineGetter__'];
const RESERVED = ['limit', 'offset', 'ordering', 'brief', 'exclude', 'format', 'fields', 'include', 'q'];

function reservedValue(rng: Prng, name: string, ep: Endpoint, world: World): string {
  const fieldName = () => (ep.fields.length ? rng.pick(ep.fields).name : 'id');
  switch (name) {
    case 'limit':
    case 'offset':
      return percentEncode(rng.pick(['0', '1', '-1', '1000', '1001', ' 5 ', '+3', '1e400', '1180591620717411303424', '9007199254740993', 'abc', '', '1.5', '0x10', '١']));
    case 'ordering':
      return percentEncode(
        Array.from({ length: rng.between(1, 3) }, () => rng.pick(['-', '', '--', '+']) + rng.pick([fieldName(), 'id', 'created', '__proto__', 'nonexistent', 'a\u0000', '\ud800', 'user.username', 'key'])).join(rng.pick([',', ', ', ',,'])),
      );
    case 'brief':
      return percentEncode(rng.pick(['1', 'true', 'True', '0', 'false', 'yes', 'junk', '']));
    case 'exclude':
    case 'fields':
    case 'include':
      return percentEncode(Array.from({ length: rng.between(1, 3) }, () => rng.pick([fieldName(), 'config_context', 'id', 'url', '__proto__', '\u0000'])).join(','));
    case 'format':
      return percentEncode(rng.pick(['json', 'api', 'yaml', 'xml', 'JSON', '', 'csv']));
    default:
      return queryValue(rng, 'string', world.vocab);
  }
}

function oneParam(rng: Prng, ep: Endpoint, world: World): Array<[string, string]> {
  const kind = rng.weighted<string>([
    [8, 'filter'],
    [2, 'bogus-lookup'],
    [3, 'reserved'],
    [1, 'custom-field'],
    [1, 'prototype'],
    [1, 'junk-name'],
  ]);
  let name: string;
  let value: () => string;
  switch (kind) {
    case 'filter':
    case 'bogus-lookup': {
      const f = ep.filters.length ? rng.pick(ep.filters) : { name: 'id', params: ['id'], kind: 'integer', choices: [] };
      name = kind === 'filter' ? rng.pick(f.params) : `${f.name}__${rng.pick(BOGUS_LOOKUPS)}`;
      value = () => queryValue(rng, f.kind, world.vocab, f.choices);
      break;
    }
    case 'reserved':
      name = rng.pick(RESERVED);
      value = () => reservedValue(rng, name, ep, world);
      break;
    case 'custom-field': {
      const cf = world.vocab.customFields.length ? rng.pick(world.vocab.customFields) : { name: 'none', type: 'text' };
      name = `cf_${cf.name}${rng.pick(['', '', '__n', '__ic', '__lt', '__gte', '__empty', '__isw', '__bogus'])}`;
      value = () => queryValue(rng, cf.type === 'integer' || cf.type === 'decimal' ? 'number' : cf.type === 'boolean' ? 'boolean' : cf.type === 'date' || cf.type === 'datetime' ? cf.type : 'string', world.vocab, ['a', 'b']);
      break;
    }
    case 'prototype':
      name = rng.pick(PROTOTYPE_NAMES) + rng.pick(['', '', '__n', '__gte']);
      value = () => queryValue(rng, 'string', world.vocab);
      break;
    default:
      name = rng.pick(['', '%00', '%ED%A0%80', 'a%FF', 'id%00', 'x'.repeat(3000), '%', 'id__', '__', '[]', 'id[]', 'id[0]', 'a.b']);
      value = () => queryValue(rng, 'string', world.vocab);
  }
  const encodedName = /%|^$/.test(name) ? name : percentEncode(name);
  const repeats = rng.weighted<number>([[12, 1], [4, rng.between(2, 5)], [1, rng.pick([50, 1001])]]);
  const out: Array<[string, string]> = [];
  for (let i = 0; i < repeats; i++) out.push([encodedName, value()]);
  return out;
}

/** A list's query string: one to four parameters (and now and then none, or pieces without '='). */
export function listQuery(rng: Prng, ep: Endpoint, world: World): string {
  if (rng.chance(0.08)) return '';
  const pairs: Array<[string, string]> = [];
  const n = rng.between(1, 4);
  for (let i = 0; i < n; i++) pairs.push(...oneParam(rng, ep, world));
  const parts = pairs.map(([k, v]) => (rng.chance(0.03) ? k : `${k}=${v}`));
  if (rng.chance(0.05)) parts.push(rng.pick(['&', '=', '==', '&&', 'a=b=c', '#frag']));
  return `?${parts.join('&')}`;
}

/** A detail's query string: the shaping parameters mostly (filters mean nothing there, and must still be harmless). */
export function detailQuery(rng: Prng, ep: Endpoint, world: World): string {
  if (rng.chance(0.5)) return '';
  const pairs: Array<[string, string]> = [];
  for (let i = rng.between(1, 2); i > 0; i--) {
    if (rng.chance(0.7)) {
      const name = rng.pick(['brief', 'exclude', 'format', 'fields', 'limit', 'ordering']);
      pairs.push([name, reservedValue(rng, name, ep, world)]);
    } else pairs.push(...oneParam(rng, ep, world));
  }
  return `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`;
}
