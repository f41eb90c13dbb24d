import { and, column, ident, join, keyword, or, sql, SqlParam } from '../../engine/sql/fragment';
import { startTestApp, type TestApp } from '../support/test-app';

/** SQL fragments carry their own values: composing them never needs a placeholder counted by hand. */

test('values are bound, fragments spliced with their values in order', () => {
  const inner = sql`${ident('t')}.${ident('vid')} BETWEEN ${10} AND ${20}`;
  const outer = sql`SELECT ${'x'} WHERE ${inner} AND ${column('t', 'name')} = ${"O'Brien"}`;
  expect(outer.toKnex()).toEqual({ sql: 'SELECT ? WHERE "t"."vid" BETWEEN ? AND ? AND "t"."name" = ?', bindings: ['x', 10, 20, "O'Brien"] });
  expect(outer.toPositional()).toEqual({ text: 'SELECT $1 WHERE "t"."vid" BETWEEN $2 AND $3 AND "t"."name" = $4', values: ['x', 10, 20, "O'Brien"] });
});

test('and / or / join', () => {
  expect(and([]).toKnex().sql).toBe('TRUE');
  expect(or([]).toKnex().sql).toBe('FALSE');
  expect(and([sql`a = ${1}`, sql`b = ${2}`]).toKnex()).toEqual({ sql: '(a = ?) AND (b = ?)', bindings: [1, 2] });
  expect(or([sql`a = ${1}`, and([sql`b = ${2}`, sql`c`])]).toKnex()).toEqual({ sql: '(a = ?) OR ((b = ?) AND (c))', bindings: [1, 2] });
  expect(join([sql`${1}`, sql`${2}`, sql`${3}`]).toKnex()).toEqual({ sql: '?, ?, ?', bindings: [1, 2, 3] });
});

test('identifiers and keywords refuse anything that could carry SQL of its own', () => {
  for (const bad of ['a"b', 'a b', '1a', '', 'x;drop', 'a'.repeat(64)]) expect(() => ident(bad)).toThrow();
  for (const bad of ["'", '"', '?', '$1', ';', '--', '/*']) expect(() => keyword(`a ${bad}`)).toThrow();
  expect(keyword(' AND ').toKnex().sql).toBe(' AND ');
});

test('a ? in the engine\'s own text is not taken for a hole by knex', () => {
  expect(sql`SELECT '{}'::jsonb ? ${'k'}`.toKnex().sql).toBe("SELECT '{}'::jsonb \\? ?");
});

test('a named hole is filled when the fragment is used, and a hole left empty is refused', () => {
  const origin = new SqlParam('origin');
  const kept = sql`SELECT concat(${origin}::text, ${'/api/'}::text), ${1}`;
  expect(kept.bindParams({ origin: 'http://a' }).toKnex()).toEqual({ sql: 'SELECT concat(?::text, ?::text), ?', bindings: ['http://a', '/api/', 1] });
  expect(kept.bindParams({ origin: 'http://b' }).toPositional().values).toEqual(['http://b', '/api/', 1]);
  expect(() => kept.toKnex()).toThrow('no value for SQL parameter origin');
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
    const q = sql`SELECT ${hostile}::text AS a, ${sql`${2}::int + ${3}::int`} AS b`.toKnex();
    const r = await t.knex.raw(q.sql, q.bindings as never);
    expect(r.rows[0]).toEqual({ a: hostile, b: 5 });
  });
});
