/**
 * Finding 2: with ALLOW_TOKEN_RETRIEVAL=false, `?key__isw=<prefix>` (count 1 vs 0) recovered a whole key
 * in ~330 requests, and `?ordering=key` leaked order. A secret now has one filter, exact match of the
 * whole value (NetBox's `key`), and no other lookup, no ordering, no search: every probe below answers
 * the same whatever the key is.
 */
import { startTestApp, type TestApp } from '../support/test-app';
import { apiWith } from '../support/listen';
import type TestAgent from 'supertest/lib/agent';
import { newUser, type User } from './support';
import { constraintCondition, ConstraintError } from '../../engine/auth/constraints';

let t: TestApp;
let u: User;
let api: TestAgent;
const TOKENS = '/api/users/tokens/';

beforeAll(async () => {
  t = await startTestApp();
  u = await newUser(t);
  api = apiWith(t, { ALLOW_TOKEN_RETRIEVAL: 'false' });
  // Three more tokens of the user's own, so that order and counts could tell something.
  for (const description of ['b', 'c', 'd']) expect((await api.post(TOKENS).set(u.h).send({ description })).status).toBe(201);
});
afterAll(async () => {
  await t.close();
});

async function ids(query: string): Promise<number[]> {
  const res = await api.get(`${TOKENS}?${query}`).set(u.h);
  expect([query, res.status]).toEqual([query, 200]);
  return (res.body.results as Array<{ id: number }>).map((r) => r.id);
}

test('the key is not shown in lists once created (ALLOW_TOKEN_RETRIEVAL=false)', async () => {
  const res = await api.get(TOKENS).set(u.h);
  expect(res.body.results.every((r: Record<string, unknown>) => !('key' in r))).toBe(true);
});

test('no lookup on the key tells a prefix, a suffix, a substring, a range or emptiness: each answers as if absent', async () => {
  const all = await ids('');
  const key = u.key;
  const wrong = key.startsWith('0') ? '1' : '0';
  for (const lookup of ['isw', 'nisw', 'ic', 'nic', 'iew', 'niew', 'ie', 'nie', 'n', 'empty', 'gt', 'gte', 'lt', 'lte', 'regex', 'iregex']) {
    for (const value of [key.slice(0, 1), wrong, key.slice(0, 20), key, 'true']) {
      expect([lookup, value, await ids(`key__${lookup}=${value}`)]).toEqual([lookup, value, all]);
    }
  }
});

test('exact match of the whole key is the one filter, as NetBox has it', async () => {
  expect((await ids(`key=${u.key}`)).length).toBe(1);
  expect(await ids(`key=${u.key.slice(0, 39)}`)).toEqual([]);
});

test('ordering by the key is ignored (the default order), and q does not search it', async () => {
  const all = await ids('');
  expect(await ids('ordering=key')).toEqual(all);
  expect(await ids('ordering=-key')).toEqual(all);
  expect(await ids(`q=${u.key.slice(4, 16)}`)).toEqual([]);
});

test('the OpenAPI document offers the same: key without lookups, no ordering by key', async () => {
  const doc = (await api.get('/api/schema/?format=json').set(u.h)).body;
  const params = (doc.paths['/api/users/tokens/'].get.parameters as Array<{ name?: string; $ref?: string; description?: string }>).map((p) => p.name ?? p.$ref ?? '');
  expect(params).toContain('key');
  expect(params.filter((p) => p.startsWith('key__'))).toEqual([]);
  const ordering = (doc.paths['/api/users/tokens/'].get.parameters as Array<{ name?: string; description?: string }>).find((p) => p.name === 'ordering');
  expect(ordering?.description ?? '').not.toMatch(/\bkey\b/);
});

test('a permission constraint reaches a secret by exact match only', () => {
  const token = t.registry.models.get('users.token')!;
  expect(() => constraintCondition(token, { key__startswith: 'a' }, 1)).toThrow(ConstraintError);
  expect(() => constraintCondition(token, { key__icontains: 'a' }, 1)).toThrow(ConstraintError);
  const exact = constraintCondition(token, { key: 'a'.repeat(40) }, 1)!.toPositional();
  expect(exact.values).toEqual(['a'.repeat(40)]);
  expect(exact.text).toContain('"t"."key" = $1');
});
