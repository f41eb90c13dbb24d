import path from 'node:path';
import type { Response } from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { startTestApp, type TestApp } from '../support/test-app';
import { sendObject } from '../support/send-object';
import { apiWith } from '../support/listen';
import { loadRegistry } from '../../engine/boot';
import type { ResolvedField, ResolvedModel } from '../../engine/definitions/registry-types';
import { genericKeys, intRange, listUrl, servedModels, creatableModels, validObjects } from '../support/valid-objects';
import { rawModels, rawWritable } from '../support/raw-definitions';
import { catalogueDescribe, describeEach, onlySelected } from '../support/selected-types';

/**
 * "Bad input gets a clear 4xx JSON error naming the field; a 500 is a bug. Nothing is half-written."
 * (DESIGN.md, rules every part keeps.) Every case below is generated from the model definitions: the
 * registry is walked model by model and field by field, so a new schema file brings its own cases.
 *
 * Each model gets: a valid body built from its definition (to prove the generator and to give every
 * probe a background in which only the probed field is wrong), whole-body probes (malformed JSON,
 * 5000-deep nesting, non-objects, NUL and lone surrogates, unknown names, wrong content types),
 * per-field probes derived from the field's kind (POST and PATCH), impossible ids on bulk and detail
 * endpoints, hostile query strings, and finally a count of every table: nothing may have been written.
 *
 * Which fields a write may set, and each one's kind, nullability and limits, are read from the files
 * themselves (tests/support/raw-definitions.ts), not from the engine's reading of them: a field or a limit
 * the engine drops still gets its probes, which then fail.
 */

const ROOT = path.resolve(__dirname, '..', '..');
// Tests are generated while jest collects them, before the app starts: read the same schema directory
// startTestApp() serves. Inside each test the model is taken from t.registry.
const DEFINITIONS = loadRegistry(path.join(ROOT, 'schema'));
const MODELS = onlySelected(creatableModels(DEFINITIONS));
const RAW = rawModels(path.join(ROOT, 'schema'));

/** The names of the fields a write may set, as the model's file defines them. */
function writableNames(m: ResolvedModel): string[] {
  const file = RAW.get(m.label);
  if (!file) throw new Error(`${m.label}: no schema file defines it`);
  return Object.entries(file.fields).filter(([, f]) => rawWritable(f)).map(([name]) => name);
}

/**
 * A field to probe as its file defines it (kind, null, array and every limit); the engine's field only
 * carries what running a probe needs (its model, relation targets, generic keys, choice set).
 */
function asWritten(m: ResolvedModel, name: string): ResolvedField {
  const written = RAW.get(m.label)!.fields[name]!;
  const f = m.fields.get(name);
  if (!f) throw new Error(`${m.label}: the file defines ${name}, the engine has no such field`);
  return { ...f, kind: written.type, nullable: written.null === true, array: written.array === true, def: written } as unknown as ResolvedField;
}

let t: TestApp;
/** The same app refusing unknown names in write bodies (PATCHBAY_REJECT_UNKNOWN_FIELDS), as a strict deployment runs it. */
let strict: TestAgent;
const { validBody, genericTargets } = validObjects(() => t);
beforeAll(async () => {
  t = await startTestApp();
  strict = apiWith(t, { PATCHBAY_REJECT_UNKNOWN_FIELDS: 'true' });
});
afterAll(async () => {
  await t.close();
});

// ---------------------------------------------------------------------------------------------------
// Sending and judging

type Headers = Record<string, string>;
const BIG = '1180591620717411303424'; // 2**70
const HUGE = '1e400'; // Infinity to JSON.parse
const NOWHERE = '987654321';

const model = (label: string): ResolvedModel => t.registry.models.get(label)!;

function sendRaw(method: 'post' | 'put' | 'patch' | 'delete', url: string, raw: string | Buffer | undefined, headers: Headers = {}, agent: TestAgent = t.api) {
  let req = agent[method](url).set(t.auth);
  if (raw !== undefined) req = req.set('Content-Type', 'application/json');
  req = req.set(headers);
  if (Buffer.isBuffer(raw)) req = req.serialize((b: unknown) => b as string); // the bytes as they are
  return raw === undefined ? req : req.send(raw as string);
}

/** A body text: the base object without `field`, then `"field": <raw JSON text>` appended verbatim. */
function rawWith(base: Record<string, unknown>, field: string, rawValue: string): string {
  const rest = { ...base };
  delete rest[field];
  const head = JSON.stringify(rest).slice(0, -1);
  return `${head}${head.length > 1 ? ',' : ''}${JSON.stringify(field)}:${rawValue}}`;
}

/**
 * Problems with a response to bad input: not a 4xx, not JSON, or (when a field is named) an error
 * object whose keys are not exactly that field with a list of messages. Returns [] when all is well.
 */
/**
 * `besides`: fields whose own error may stand beside the named one, with the message given: a JSON create
 * of a type with an image field cannot carry the file, and is told so on that field as well.
 */
function judge(what: string, res: Response, want: { status?: number | number[]; field?: string; aligned?: number; besides?: Record<string, string> } = {}): string[] {
  const problems: string[] = [];
  const text = (res.text ?? '').slice(0, 240);
  const tell = (p: string) => problems.push(`${what}: ${p} (got ${res.status} ${text})`);
  if (res.status < 400 || res.status >= 500) tell('expected a 4xx');
  const wanted = want.status === undefined ? null : Array.isArray(want.status) ? want.status : [want.status];
  if (wanted && !wanted.includes(res.status)) tell(`expected status ${wanted.join(' or ')}`);
  if (!/^application\/json/.test(String(res.headers['content-type'] ?? ''))) tell('expected a JSON body');
  else if (res.body === null || typeof res.body !== 'object') tell('expected a JSON object or list');
  if (want.field !== undefined && res.status === 400) {
    const body = want.aligned !== undefined && Array.isArray(res.body) ? res.body[want.aligned] : res.body;
    const besides = want.besides ?? {};
    const keys = body && typeof body === 'object' && !Array.isArray(body)
      ? Object.keys(body).filter((k) => k === want.field || !(k in besides) || JSON.stringify(body[k]) !== JSON.stringify([besides[k]]))
      : null;
    if (!keys || keys.length !== 1 || keys[0] !== want.field) tell(`expected the error keyed by "${want.field}"`);
    else if (!Array.isArray(body[want.field]) || !body[want.field].every((m: unknown) => typeof m === 'string')) tell('expected a list of messages');
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------------
// Wrong values, derived from the field kinds (raw JSON text, so 1e400 and 2**70 arrive as sent)

const OBJ = '{"a":1}';
const ARR = '[1,2]';
const deep = (n: number, open: string, close: string, inner = '1') => `${open.repeat(n)}${inner}${close.repeat(n)}`;

/** Values that are wrong for a scalar of this field's kind (not arrays of them). */
function wrongScalars(f: ResolvedField): string[] {
  const nul = ['"a\\u0000b"', '"\\ud800"', '"x\\udc00"'];
  switch (f.kind) {
    case 'string':
    case 'text':
    case 'slug':
    case 'password': {
      const out = [OBJ, ARR, 'true', ...nul];
      const max = f.kind === 'slug' ? (f.def.max_length ?? 100) : f.def.max_length;
      if (max) out.push(JSON.stringify('x'.repeat(max + 1)));
      if (!f.def.blank && !f.def.default_fn) out.push('""');
      if (f.kind === 'slug' || f.def.pattern) out.push('"not valid! "');
      return out;
    }
    case 'integer':
    case 'positive_integer': {
      const { min, max } = intRange(f);
      return ['"abc"', '"12abc"', OBJ, ARR, 'true', '1.5', BIG, `-${BIG}`, HUGE, `-${HUGE}`, String(min - 1), String(max + 1)];
    }
    case 'boolean':
      return ['"maybe"', '2', OBJ, ARR, ...nul];
    case 'decimal':
    case 'float': {
      const out = ['"abc"', OBJ, ARR, 'true', HUGE, `-${HUGE}`, ...nul];
      if (f.def.max !== undefined || f.def.max_digits !== undefined) out.push(BIG);
      if (f.def.max !== undefined) out.push(String(f.def.max + 1));
      if (f.def.min !== undefined) out.push(String(f.def.min - 1));
      if (f.def.decimal_places !== undefined) out.push(`0.${'1'.repeat(f.def.decimal_places + 1)}`);
      return out;
    }
    case 'date':
      return ['"not-a-date"', '"2024-13-45"', '"2024-02-30"', '"0000-01-01"', '5', OBJ, ARR, ...nul];
    case 'datetime':
      // Year 0 and an offset past 15:59 have the shape of a date-time, but PostgreSQL holds neither.
      return ['"yesterday"', '"2024-01-01T25:61:00Z"', '"0000-01-01T00:00:00Z"', '"2024-01-01T00:00:00+16:00"', '5', OBJ, ARR, ...nul];
    case 'choice':
      return ['"not-a-choice"', '"ACTIVE "', OBJ, ARR, 'true', HUGE, ...nul];
    case 'cidr':
      return ['"not-an-ip"', '"10.0.0.0/33"', '"300.1.1.0/24"', '"10.0.0.0/-1"', '"10.0.0.0/24/8"', '"::g/64"', '"1.2.3.4/ 24"', '"10.0.0.0/8\\u0000"', '"\\ud800/8"', '""', '5', OBJ, ARR, JSON.stringify(`10.0.0.0/${'9'.repeat(100)}`)];
    case 'inet':
      return ['"not-an-ip"', '"10.0.0.1/33"', '"1.2.3.256"', '"1.2.3"', '"::1::2"', '"10.0.0.1/8\\u0000"', '"\\ud800"', '""', '5', OBJ, ARR];
    case 'mac':
      return ['"zz:zz:zz:zz:zz:zz"', '"00:11:22:33:44"', '5', OBJ, ...nul];
    case 'json':
      return ['{"k":"a\\u0000b"}', '["\\ud800"]', deep(80, '{"a":', '}', '"\\u0000"')];
    case 'custom_fields':
      return ['"abc"', ARR, '5', 'true', '{"k":"a\\u0000b"}', '{"k":"\\ud800"}', '{"a\\u0000":1}', deep(80, '{"a":', '}', '"\\u0000"'), deep(80, '{"a":', '}', '"\\udfff"'), deep(5000, '{"a":', '}')];
    default:
      return [];
  }
}

/** Text columns compare with any scalar; the rest can be handed a value their SQL type cannot hold. */
const TEXTUAL = new Set(['string', 'text', 'slug', 'password']);

/**
 * Attribute lookups a related object may be written as, each wrong for its target: malformed lookups, and
 * for every column that is not plain text the values its SQL type cannot hold (text, a number past
 * int4/bigint, an impossible date, infinity). `full` false: the malformed lookups only (the model has
 * another foreign key to the same target, probed in full already).
 */
function wrongAttributes(target: ResolvedModel, full: boolean): string[] {
  const out = ['{"no_such_attribute":1}', '{"id":"x"}', `{"id":${BIG}}`, `{"id":${HUGE}}`, '{"id":[1]}', deep(80, '{"id":', '}'), deep(5000, '[', ']')];
  if (!full) return out;
  const columns = target.fieldList.filter((f) => f.column && !f.writeOnly);
  if (columns[0]) out.push(`{${JSON.stringify(columns[0].name)}:{"x":{"y":1}}}`, `{${JSON.stringify(columns[0].name)}:[1,2]}`);
  for (const f of columns) {
    if ((TEXTUAL.has(f.kind) || (f.kind === 'choice' && !f.choices?.numeric)) && !f.array) continue;
    const name = JSON.stringify(f.name);
    out.push(`{${name}:"garbage \\u00e9"}`, `{${name}:${Number.MAX_SAFE_INTEGER}}`, `{${name}:"2024-02-30"}`, `{${name}:${HUGE}}`);
    if (f.kind === 'fk') out.push(`{${name}:{"no_such_attribute":1}}`);
  }
  return out;
}

/**
 * A wrong value for one key: the raw JSON text, any other keys it needs beside it, and whether the answer
 * must name the key (a document nested past json-body's depth limit is refused as a whole, before any field).
 */
interface WrongValue {
  key: string;
  raw: string;
  with?: Record<string, unknown>;
  named: boolean;
  /** Sent on POST only (attribute lookups: PATCH resolves relations through the same code). */
  postOnly?: boolean;
}

const tooDeep = (raw: string) => raw.length > 2000 && /^(\[{5000}|(\{"a":){5000}|(\{"id":){5000})/.test(raw);

function wrongValues(f: ResolvedField): WrongValue[] {
  const k = (raw: string): WrongValue => ({ key: f.name, raw, named: !tooDeep(raw) });
  const out: WrongValue[] = [];
  switch (f.kind) {
    case 'fk': {
      out.push(...['"abc"', '"1 OR 1=1"', '1.5', 'true', ARR, BIG, HUGE, '-1', '0', NOWHERE, String(Number.MAX_SAFE_INTEGER), `"${BIG}"`, '"\\u0000"'].map(k));
      const first = f.model.fieldList.find((g) => g.kind === 'fk' && g.target === f.target)?.name === f.name;
      out.push(...wrongAttributes(f.target!, first).map((raw) => ({ ...k(raw), postOnly: true })));
      break;
    }
    case 'tags':
    case 'm2m':
      out.push(...[OBJ, '"abc"', '5', `[${NOWHERE}]`, '[{"no_such_attribute":1}]', '[[1]]', `[${HUGE}]`, `[${BIG}]`, '[-1]', '[null]', '[{"name":"a\\u0000"}]', '["\\ud800"]'].map(k));
      break;
    case 'generic_fk': {
      const { typeKey, idKey } = genericKeys(f);
      const allowed = new Set((f.genericTargets ?? []).map((m) => m.label));
      const notAllowed = [...t.registry.models.keys()].find((l) => !allowed.has(l));
      for (const raw of ['5', '"no.such"', '"\\u0000"', OBJ, ...(notAllowed ? [JSON.stringify(notAllowed)] : [])]) out.push({ key: typeKey, raw, with: { [idKey]: 1 }, named: true });
      // With a type the relation may point at (when one is defined), so only the id is wrong.
      const okType = genericTargets(f)[0]?.label;
      const idWrong = ['"abc"', BIG, HUGE, '-1', '1.5', OBJ, ...(okType ? [NOWHERE, '0', String(Number.MAX_SAFE_INTEGER)] : [])];
      for (const raw of idWrong) out.push({ key: idKey, raw, with: okType ? { [typeKey]: okType } : {}, named: true });
      break;
    }
    default:
      if (f.array) {
        out.push(...['"10.0.0.0/8"', OBJ, '5', ...wrongScalars(f).map((v) => `[${v}]`)].map(k));
      } else {
        out.push(...wrongScalars(f).map(k));
      }
  }
  if (!f.nullable && !f.array && f.kind !== 'generic_fk') out.push(k('null'));
  return out;
}

/** Row counts of every table the definitions make (model tables and join tables). */
async function tableCounts(): Promise<Record<string, number>> {
  const tables = new Set<string>();
  for (const m of t.registry.models.values()) {
    tables.add(m.table);
    for (const f of m.fieldList) if (f.joinTable) tables.add(f.joinTable);
  }
  // One statement for all of them: a statement per table was a few hundred round trips per model.
  const sorted = [...tables].sort();
  const r = await t.knex.raw(`SELECT ${sorted.map((table, i) => `(SELECT count(*)::int FROM "${table}") AS "n${i}"`).join(', ')}`);
  const row = (r.rows as Array<Record<string, number>>)[0]!;
  return Object.fromEntries(sorted.map((table, i) => [table, row[`n${i}`]!]));
}

/**
 * Runs the probes `width` at a time and returns their problems in the probes' order. Every probe is refused
 * (nothing is written, the final test checks it), so they cannot disturb one another; the test app's pool
 * serves several at once, and each request's wait on the database no longer leaves the process idle.
 */
async function probeAll(probes: Array<() => Promise<string[]>>, width = 4): Promise<string[]> {
  const out: string[][] = new Array(probes.length);
  let next = 0;
  const worker = async () => {
    while (next < probes.length) {
      const i = next++;
      out[i] = await probes[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, probes.length) }, worker));
  return out.flat();
}

// URLs without their host (supertest picks a port per request): /api/... and /media/... alike.
const norm = (v: unknown) => JSON.parse(JSON.stringify(v).replace(/https?:\/\/[^/"]+\//g, '/')) as unknown;

// ---------------------------------------------------------------------------------------------------
// The generated cases

describeEach(MODELS.map((m) => [m.label, m] as const))('%s', (label, defModel) => {
  let base: Record<string, unknown> = {};
  let existing = 0;
  let existingRep: unknown;
  let counts: Record<string, number> = {};
  const url = listUrl(defModel);
  const writable = writableNames(defModel).map((name) => asWritten(defModel, name));

  test('a body generated from the definition is created (201)', async () => {
    base = await validBody(model(label));
    const res = await sendObject(t, 'post', url, model(label), base);
    expect([res.status, res.text.slice(0, 300)]).toEqual([201, expect.any(String)]);
    existing = res.body.id;
    existingRep = norm((await t.api.get(`${url}${existing}/`).set(t.auth)).body);
    base = await validBody(model(label)); // fresh unique values for the probes' background
    counts = await tableCounts();
  });

  test('malformed, absurdly deep and non-object bodies are 400', async () => {
    const probes: Array<[string, string]> = [
      ['truncated', '{"a": '],
      ['junk', '}{'],
      ['single quotes', "{'name': 'x'}"],
      ['trailing comma', '{"a":1,}'],
      ['bare word', 'nul'],
      ['byte order mark', '\uFEFF{}'],
      ['arrays 5000 deep', deep(5000, '[', ']')],
      ['objects 5000 deep', deep(5000, '{"a":', '}')],
      ['5000 deep inside a field', rawWith(base, writable[0]?.name ?? 'x', deep(5000, '{"a":', '}'))],
      ['a list of lists', '[[1]]'],
      ['a list of numbers', '[1,2]'],
      ['a list with null', '[null]'],
      ['an empty list', '[]'],
      ['a string', '"str"'],
      ['a number', '5'],
      ['infinity', HUGE],
      ['2**70', BIG],
      ['null', 'null'],
      ['true', 'true'],
      ['NUL in a key', '{"a\\u0000b":1}'],
      ['NUL in name', '{"name":"a\\u0000b"}'],
      ['lone surrogate in name', '{"name":"\\ud800"}'],
      ['lone surrogate in a key', '{"\\udc00":1}'],
    ];
    const problems: string[] = [];
    // Keys with bad characters are refused by a strict deployment; by default a key the model does not
    // have is ignored (NetBox's behaviour), so a model without the key would take the body: send those strictly.
    const strictly = (what: string) => / in a key| in name/.test(what) && !model(label).fields.has('name');
    for (const [what, raw] of probes) problems.push(...judge(`POST ${what}`, await sendRaw('post', url, raw, {}, strictly(what) ? strict : t.api), { status: 400 }));
    // Bytes that are not UTF-8 (a surrogate encoded directly, an overlong NUL, a stray 0xFF) are refused, not replaced.
    // In the valid body's first free-text field, so nothing else is wrong with it.
    const text = writable.find((f) => (f.kind === 'string' || f.kind === 'text') && !f.def.pattern && !f.def.default_fn);
    if (text) {
      for (const bytes of [[0xed, 0xa0, 0x80], [0xc0, 0x80], [0xff]]) {
        const [head, tail] = rawWith(base, text.name, '"a@@BYTES@@b"').split('@@BYTES@@');
        const raw = Buffer.concat([Buffer.from(head!), Buffer.from(bytes), Buffer.from(tail!)]);
        problems.push(...judge(`POST ${text.name} with raw bytes ${Buffer.from(bytes).toString('hex')}`, await sendRaw('post', url, raw), { status: 400 }));
      }
    }
    problems.push(...judge('POST with no body', await sendRaw('post', url, undefined), { status: 400 }));
    problems.push(...judge('POST with an empty JSON body', await sendRaw('post', url, ''), { status: 400 }));
    // Bodies that are lists of bad objects are answered with aligned errors.
    const list = await sendRaw('post', url, `[${JSON.stringify(base)},${rawWith(base, 'no_such_field', '1')}]`, {}, strict);
    problems.push(...judge('POST [valid, unknown field] (strict)', list, { status: 400, field: 'no_such_field', aligned: 1 }));
    expect(problems).toEqual([]);
  });

  test('with PATCHBAY_REJECT_UNKNOWN_FIELDS, unknown field names are 400 naming them', async () => {
    const problems: string[] = [];
    for (const name of ['no_such_field', '__proto__', 'constructor', 'NAME', 'tags__in', 'id; DROP TABLE x', '']) {
      problems.push(...judge(`POST unknown ${JSON.stringify(name)}`, await sendRaw('post', url, rawWith(base, name, '{"x":1}'), {}, strict), { status: 400, field: name }));
      problems.push(...judge(`PATCH unknown ${JSON.stringify(name)}`, await sendRaw('patch', `${url}${existing}/`, rawWith({}, name, '1'), {}, strict), { status: 400, field: name }));
    }
    expect(problems).toEqual([]);
  });

  test('a body that is not JSON by its content type is 415', async () => {
    const problems: string[] = [];
    for (const type of ['text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'application/jsonx', 'text/json']) {
      for (const method of ['post', 'patch'] as const) {
        const target = method === 'post' ? url : `${url}${existing}/`;
        const res = await t.api[method](target).set(t.auth).set('Content-Type', type).send(JSON.stringify(base));
        problems.push(...judge(`${method.toUpperCase()} as ${type}`, res, { status: 415 }));
      }
    }
    expect(problems).toEqual([]);
  });

  test('detail writes: non-object bodies are 400', async () => {
    const problems: string[] = [];
    for (const method of ['put', 'patch'] as const) {
      for (const raw of ['[]', `[${JSON.stringify(base)}]`, '"str"', '5', 'null', 'true', deep(5000, '[', ']'), '{"a":']) {
        problems.push(...judge(`${method.toUpperCase()} detail ${raw.slice(0, 20)}`, await sendRaw(method, `${url}${existing}/`, raw), { status: 400 }));
      }
    }
    expect(problems).toEqual([]);
  });

  describe.each(writable.map((f) => [f.name, f.kind, f] as const))('field %s (%s)', (_name, _kind, defField) => {
    test('wrong values are 400 naming the field, on POST and on PATCH', async () => {
      const f = asWritten(model(label), defField.name);
      const values = wrongValues(f);
      // JSON cannot carry a file: a create of a type with image fields is also told it lacks one.
      const besides = Object.fromEntries(model(label).fieldList.filter((x) => x.kind === 'image').map((x) => [x.name, 'No file was submitted.']));
      const probes: Array<() => Promise<string[]>> = [];
      for (let i = 0; i < values.length; i++) {
        const w = values[i]!;
        const expected = { status: 400, ...(w.named ? { field: w.key } : {}) };
        probes.push(async () => judge(`POST ${w.key}=${w.raw.slice(0, 60)}`, await sendRaw('post', url, rawWith({ ...base, ...w.with }, w.key, w.raw)), { ...expected, besides }));
        // PATCH (the partial-update path) for every other value: each kind of wrongness still meets it.
        if (w.postOnly || (i % 2 === 1 && w.raw !== 'null')) continue;
        probes.push(async () => judge(`PATCH ${w.key}=${w.raw.slice(0, 60)}`, await sendRaw('patch', `${url}${existing}/`, rawWith({ ...w.with }, w.key, w.raw)), expected));
      }
      expect(await probeAll(probes)).toEqual([]);
    });
  });

  test('bulk updates and deletes with impossible ids are 400, aligned with the elements', async () => {
    const problems: string[] = [];
    const bad = [BIG, HUGE, '-1', '0', '1.5', '"1; DROP TABLE x"', 'null', OBJ, ARR, `"${BIG}"`, '"\\u0000"'];
    const methods = ['put', 'patch', 'delete'] as const;
    // Each impossible id and each malformed body meets one method in turn; every method meets a missing id.
    for (let i = 0; i < bad.length; i++) {
      const method = methods[i % 3]!;
      const res = await sendRaw(method, url, `[{"id":${existing}},{"id":${bad[i]!}}]`);
      problems.push(...judge(`bulk ${method.toUpperCase()} id=${bad[i]!}`, res, { status: 400, field: 'id', aligned: 1 }));
    }
    for (const method of methods) {
      problems.push(...judge(`bulk ${method.toUpperCase()} id that does not exist`, await sendRaw(method, url, `[{"id":${existing}},{"id":${NOWHERE}}]`), { status: 400, field: 'id', aligned: 1 }));
    }
    const malformed = ['{}', OBJ, '"str"', '[5]', '[null]', deep(5000, '[', ']'), '{"id":'];
    for (let i = 0; i < malformed.length; i++) {
      const method = methods[i % 3]!;
      problems.push(...judge(`bulk ${method.toUpperCase()} ${malformed[i]!.slice(0, 20)}`, await sendRaw(method, url, malformed[i]!), { status: 400 }));
    }
    expect(problems).toEqual([]);
  });

  test('detail URLs with impossible ids are 404', async () => {
    const problems: string[] = [];
    const ids = [BIG, '-1', '1e3', '0x10', '0', '00', '1.5', 'abc', '%00', '1%00', '%ED%A0%80', "1'%20OR%201=1%20--", '9'.repeat(400), NOWHERE];
    const writes = ['patch', 'put', 'delete'] as const;
    for (let i = 0; i < ids.length; i++) {
      // GET for every id; one of the writing methods for each, in turn.
      for (const method of ['get', writes[i % 3]!] as const) {
        let req = t.api[method](`${url}${ids[i]!}/`).set(t.auth);
        if (method === 'patch' || method === 'put') req = req.send(base);
        problems.push(...judge(`${method.toUpperCase()} ${url}${ids[i]!}/`, await req, { status: 404 }));
      }
    }
    expect(problems).toEqual([]);
  });

  test('hostile query strings are never a 5xx (400 names the parameter at fault)', async () => {
    const values = ["'", '%22', "'%20OR%201=1%20--", '%27%20OR%20%271%27=%271', '%00', 'a%00b', '%ED%A0%80', '%C0%80', '%FF', '1e400', BIG, '-1', '%5B%5D', '%7B%7D', 'x'.repeat(6000)];
    // Every value for the names every list understands; for the names derived from each field (its filter
    // and its lookups) a rotating few of them, so each value meets each kind without a request per pair.
    const everyValue = ['q'];
    const rotating: Array<[string, number]> = [['id', 5], ['tag', 5], ['ordering', 5], ['brief', 2], ['id__n', 2], ['id__gte', 2], ['exclude', 2], ['fields', 2], ['cf_x', 2]];
    model(label).fieldList.forEach((f, i) => {
      const lookups = [`${f.name}__n`, ['string', 'text', 'slug'].includes(f.kind) ? `${f.name}__ic` : `${f.name}__gte`, `${f.name}__empty`];
      rotating.push([f.kind === 'fk' ? `${f.name}_id` : f.name, 2], [lookups[i % 3]!, 1]);
      if (f.kind === 'fk') rotating.push([f.name, 1]);
    });
    const probes: Array<() => Promise<string[]>> = [];
    const tryGet = (qs: string, param?: string) => probes.push(async () => {
      const res = await t.api.get(`${url}?${qs}`).set(t.auth);
      const what = `GET ?${qs.slice(0, 80)}`;
      if (res.status !== 200) return judge(what, res, { status: 400, ...(param ? { field: param } : {}) });
      return Array.isArray(res.body?.results) ? [] : [`${what}: 200 without a list`];
    });
    for (const name of everyValue) for (const v of values) tryGet(`${name}=${v}`);
    let turn = 0;
    for (const [name, n] of rotating) {
      for (let j = 0; j < n; j++) tryGet(`${name}=${values[turn++ % values.length]!}`);
    }
    // Paging parameters NetBox cannot read fall back to its defaults (a 200), as NetBox's paginator does.
    for (const v of values) for (const p of ['limit', 'offset']) tryGet(`${p}=${v}`);
    for (const qs of ['limit=-1', `limit=${BIG}`, 'offset=-1', `offset=${BIG}`, 'limit=1e3', 'limit=0x10', 'limit=1.5']) tryGet(qs);
    tryGet(Array.from({ length: 2000 }, () => 'id=1').join('&'));
    tryGet(Array.from({ length: 1200 }, (_, i) => `tag=t${i}`).join('&'));
    tryGet(Array.from({ length: 1000 }, (_, i) => `p${i}=%00`).join('&'));
    tryGet('limit=1&limit=2&limit=abc');
    expect(await probeAll(probes)).toEqual([]);
  });

  test('afterwards nothing was half-written: every table has the rows it had, the object is unchanged', async () => {
    expect(await tableCounts()).toEqual(counts);
    expect(norm((await t.api.get(`${url}${existing}/`).set(t.auth)).body)).toEqual(existingRep);
  });
});

// ---------------------------------------------------------------------------------------------------
// Once, not per model

catalogueDescribe('content types and sizes', () => {
  test("application/json with parameters, pynetbox's trailing semicolon and any case are JSON", async () => {
    let i = 0;
    for (const type of ['application/json', 'application/json;', 'application/json; charset=utf-8', 'Application/JSON', 'application/json ; charset=UTF-8']) {
      i++;
      const res = await t.api.post('/api/dcim/sites/').set(t.auth).set('Content-Type', type).send(JSON.stringify({ name: `CT ${i}`, slug: `ct-${i}` }));
      expect([type, res.status]).toEqual([type, 201]);
    }
  });

  test('a 30 MB body is refused with a 4xx JSON answer, nothing is written, and the server carries on', async () => {
    const before = await tableCounts();
    const raw = `{"name":"${'x'.repeat(30 * 1024 * 1024)}","slug":"big"}`;
    const res = await sendRaw('post', '/api/dcim/sites/', raw);
    expect(judge('POST 30 MB', res, { status: 413 })).toEqual([]);
    expect(await tableCounts()).toEqual(before);
    expect((await t.api.get('/api/dcim/sites/').set(t.auth)).status).toBe(200);
  });

  test('a body just under the limit but with one huge string is a 400 naming the field', async () => {
    const raw = JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024), slug: 'big-string' });
    const res = await sendRaw('post', '/api/dcim/sites/', raw);
    expect(judge('POST 2 MB name', res, { status: 400, field: 'name' })).toEqual([]);
  });

  test('a bulk create of 8000 bad elements answers with 8000 aligned errors and writes nothing', async () => {
    const before = await tableCounts();
    const body = Array.from({ length: 8000 }, (_, i) => (i === 7999 ? { slug: 'no-name' } : { name: `Many ${i}`, slug: `many-${i}`, status: 'bogus' }));
    const res = await t.api.post('/api/dcim/sites/').set(t.auth).send(body);
    expect(res.status).toBe(400);
    expect(res.body).toHaveLength(8000);
    expect(Object.keys(res.body[0])).toEqual(['status']);
    expect(Object.keys(res.body[7999])).toEqual(['name']);
    expect(await tableCounts()).toEqual(before);
  });

  test('a bulk request naming more objects than PATCHBAY_BULK_MAX_OBJECTS is a 400 before any is written', async () => {
    const before = await tableCounts();
    const body = Array.from({ length: 10_001 }, (_, i) => ({ name: `Over ${i}`, slug: `over-${i}` }));
    const res = await t.api.post('/api/dcim/sites/').set(t.auth).send(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ non_field_errors: ['A bulk request may name at most 10000 objects; this one names 10001.'] });
    expect(await tableCounts()).toEqual(before);
  });
});
