import { and, column, ident, join, keyword, or, sql, SqlParam } from '../../engine/sql/fragment';
import { startTestApp, type TestApp } from '../support/test-app';

/** SQL fragments carry their own values: composing them never needs a placeholder counted by hand. */

test('values are bound, fragments spliced with their values in order', () => {
  const inner = sql`${ident('t')}.${ident('vid')} BETWEEN ${10} AND ${20}`;
  const outer = sql`SELECT ${'x'} WHERE ${inner} AND ${column('t', 'name')} = ${"O'Brien"}`;
  expect(outer.toPositional()).toEqual({ text: 'SELECT $1 WHERE "t"."vid" BETWEEN $2 AND $3 AND "t"."name" = $4', values: ['x', 10, 20, "O'Brien"] });
});

test('and / or / join', () => {
  expect(and([]).toPositional().text).toBe('TRUE');
  expect(or([]).toPositional().text).toBe('FALSE');
  expect(and([sql`a = ${1}`, sql`b = ${2}`]).toPositional()).toEqual({ text: '(a = $1) AND (b = $2)', values: [1, 2] });
  expect(or([sql`a = ${1}`, and([sql`b = ${2}`, sql`c`])]).toPositional()).toEqual({ text: '(a = $1) OR ((b = $2) AND (c))', values: [1, 2] });
  expect(join([sql`${1}`, sql`${2}`, sql`${3}`]).toPositional()).toEqual({ text: '$1, $2, $3', values: [1, 2, 3] });
});

test('identifiers and keywords refuse anything that could carry SQL of its own', () => {
  for (const bad of ['a"b', 'a b', '1a', '', 'x;drop', 'a'.repeat(64)]) expect(() => ident(bad)).toThrow();
  for (const bad of ["'", '"', '?', '$1', ';', '--', '/*']) expect(() => keyword(`a ${bad}`)).toThrow();
  expect(keyword(' AND ').toPositional().text).toBe(' AND ');
});

test('a ? in the engine\'s own text is plain text, not a hole', () => {
  expect(sql`SELECT '{}'::jsonb ? ${'k'}`.toPositional()).toEqual({ text: "SELECT '{}'::jsonb ? $1", values: ['k'] });
});

test('a named hole is filled when the fragment is used, and a hole left empty is refused', () => {
  const origin = new SqlParam('origin');
  const kept = sql`SELECT concat(${origin}::text, ${'/api/'}::text), ${1}`;
  expect(kept.bindParams({ origin: 'http://a' }).toPositional()).toEqual({ text: 'SELECT concat($1::text, $2::text), $3', values: ['http://a', '/api/', 1] });
  expect(kept.bindParams({ origin: 'http://b' }).toPositional().values).toEqual(['http://b', '/api/', 1]);
  expect(() => kept.toPositional()).toThrow('no value for SQL parameter origin');
  expect(() => kept.bindParams({})).toThrow('no value for SQL parameter origin');
});

describe('against the database', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  test('a composed statement runs with its values bound, whatever they hold', async () => {
    const hostile = "x'); DROP TABLE users_user; --";
    const r = await t.knex.run(sql`SELECT ${hostile}::text AS a, ${sql`${2}::int + ${3}::int`} AS b`.toPositional());
    expect(r.rows[0]).toEqual({ a: hostile, b: 5 });
  });

  test('a ? of the engine\'s own text reaches PostgreSQL as the jsonb operator', async () => {
    const r = await t.knex.run(sql`SELECT '{"k": 1}'::jsonb ? ${'k'} AS "has", '{"k": 1}'::jsonb ? ${'j'} AS "lacks"`.toPositional());
    expect(r.rows[0]).toEqual({ has: true, lacks: false });
  });
});
