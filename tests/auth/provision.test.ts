import crypto from 'node:crypto';
import { startTestApp, type TestApp } from '../support/test-app';
import { apiWith } from '../support/listen';

/**
 * POST /api/users/tokens/provision/ (spec 4.7): a username and password buy a write-enabled token;
 * wrong ones buy a 403 and nothing else; guessing is rate-limited per username and per client
 * address; passwords are kept in Django's pbkdf2_sha256 format, so hashes move to and from NetBox.
 */

let t: TestApp;
let aliceId: number;

const PROVISION = '/api/users/tokens/provision/';
const HEX40 = /^[0-9a-f]{40}$/;
const ALICE = { username: 'alice', password: 'correct horse battery staple' };
/** NetBox's and Django's PBKDF2 work factor (Django 4.2). */
const DJANGO_ITERATIONS = 600000;

/** What Django's make_password(password, salt, 'pbkdf2_sha256') returns, computed independently of the engine. */
function djangoHash(password: string, salt: string, iterations = DJANGO_ITERATIONS): string {
  const hash = crypto.pbkdf2Sync(password, salt, iterations, 32, 'sha256').toString('base64');
  return `pbkdf2_sha256$${iterations}$${salt}$${hash}`;
}

beforeAll(async () => {
  t = await startTestApp();
  const res = await t.api.post('/api/users/users/').set(t.auth).send(ALICE);
  expect(res.status).toBe(201);
  aliceId = res.body.id;
  // Alice may read and add sites, so her provisioned token can be shown to work, reads and writes.
  const perm = await t.api
    .post('/api/users/permissions/')
    .set(t.auth)
    .send({ name: 'alice sites', object_types: ['dcim.site'], actions: ['view', 'add'], users: [aliceId] });
  expect(perm.status).toBe(201);
});
afterAll(async () => {
  await t.close();
});

async function tokensOf(userId: number): Promise<string[]> {
  const r = await t.knex.raw(`SELECT "key" FROM "users_token" WHERE "user_id" = ? ORDER BY "id"`, [userId]);
  return (r.rows as Array<{ key: string }>).map((row) => row.key);
}

async function allTokenCount(): Promise<number> {
  const r = await t.knex.raw(`SELECT count(*)::int AS n FROM "users_token"`);
  return (r.rows as Array<{ n: number }>)[0]!.n;
}

async function passwordOf(userId: number): Promise<string> {
  const r = await t.knex.raw(`SELECT "password" FROM "users_user" WHERE "id" = ?`, [userId]);
  return (r.rows as Array<{ password: string }>)[0]!.password;
}

/** Inserts a user whose password column holds the given hash, as a migration from NetBox would. */
async function insertUser(username: string, hash: string): Promise<number> {
  const r = await t.knex.raw(`INSERT INTO "users_user" ("username", "password", "is_active", "is_superuser", "date_joined") VALUES (?, ?, true, false, now()) RETURNING "id"`, [username, hash]);
  return (r.rows as Array<{ id: number }>)[0]!.id;
}

describe('valid credentials', () => {
  test('201 with the token representation, key included, write enabled, belonging to that user, and it works', async () => {
    const before = await tokensOf(aliceId);
    // No Authorization header at all.
    const res = await t.api.post(PROVISION).send(ALICE);
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(Object.keys(res.body).sort()).toEqual(
      ['allowed_ips', 'created', 'description', 'display', 'expires', 'id', 'key', 'last_updated', 'last_used', 'url', 'user', 'write_enabled'].sort(),
    );
    expect(res.body.key).toMatch(HEX40);
    expect(res.body.write_enabled).toBe(true);
    expect(res.body.expires).toBeNull();
    expect(res.body.user).toEqual({ id: aliceId, url: expect.stringMatching(new RegExp(`/api/users/users/${aliceId}/$`)), display: 'alice', username: 'alice' });
    expect(res.body.url).toMatch(new RegExp(`/api/users/tokens/${res.body.id}/$`));

    // Exactly one new token, Alice's, with that key.
    expect(await tokensOf(aliceId)).toEqual([...before, res.body.key]);

    const h = { Authorization: `Token ${res.body.key}` };
    expect((await t.api.get('/api/dcim/sites/').set(h)).status).toBe(200);
    const created = await t.api.post('/api/dcim/sites/').set(h).send({ name: 'Provisioned', slug: 'provisioned' });
    expect(created.status).toBe(201);
    // It is Alice's token, not a superuser's: what she was not granted stays closed.
    expect((await t.api.get('/api/ipam/prefixes/').set(h)).status).toBe(403);
  });

  test('each call makes a new token with a different key', async () => {
    const a = await t.api.post(PROVISION).send(ALICE);
    const b = await t.api.post(PROVISION).send(ALICE);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.key).not.toBe(b.body.key);
    expect(a.body.id).not.toBe(b.body.id);
  });

  test('pynetbox\'s "application/json;" content type is accepted', async () => {
    const res = await t.api.post(PROVISION).set('Content-Type', 'application/json;').send(JSON.stringify(ALICE));
    expect(res.status).toBe(201);
  });
});

describe('invalid credentials', () => {
  test.each([
    ['a wrong password', { username: 'alice', password: 'Correct horse battery staple' }],
    ['an unknown user', { username: 'nobody-here', password: ALICE.password }],
    ['a username differing in case', { username: 'Alice', password: ALICE.password }],
  ])('%s: 403 with a detail, and no token is created', async (_name, body) => {
    const before = await allTokenCount();
    const res = await t.api.post(PROVISION).send(body);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: expect.any(String) });
    expect(res.body.detail.length).toBeGreaterThan(0);
    expect(await allTokenCount()).toBe(before);
  });

  test('a wrong password and an unknown user get the same answer (no username discovery)', async () => {
    const wrong = await t.api.post(PROVISION).send({ username: 'alice', password: 'nope' });
    const unknown = await t.api.post(PROVISION).send({ username: 'nobody-at-all', password: 'nope' });
    expect(wrong.status).toBe(403);
    expect(unknown.body).toEqual(wrong.body);
  });

  test('an inactive user with the right password: 403, no token', async () => {
    const res = await t.api.post('/api/users/users/').set(t.auth).send({ username: 'carol', password: 'carol-password', is_active: false });
    expect(res.status).toBe(201);
    const before = await allTokenCount();
    const provision = await t.api.post(PROVISION).send({ username: 'carol', password: 'carol-password' });
    expect(provision.status).toBe(403);
    expect(await allTokenCount()).toBe(before);
  });
});

describe('malformed requests', () => {
  test.each([
    ['no body', undefined, ['username', 'password']],
    ['an empty object', {}, ['username', 'password']],
    ['no password', { username: 'alice' }, ['password']],
    ['no username', { password: ALICE.password }, ['username']],
    ['an empty password', { username: 'alice', password: '' }, ['password']],
    ['a number for a password', { username: 'alice', password: 12345 }, ['password']],
    ['an array', [ALICE], ['username', 'password']],
  ])('%s: 400 naming the missing fields, no token', async (_name, body, fields) => {
    const before = await allTokenCount();
    const req = t.api.post(PROVISION);
    const res = await (body === undefined ? req : req.send(body as object));
    expect(res.status).toBe(400);
    expect(Object.keys(res.body).sort()).toEqual([...fields].sort());
    expect(await allTokenCount()).toBe(before);
  });

  test('invalid JSON is a 400, and GET is a 405', async () => {
    const bad = await t.api.post(PROVISION).set('Content-Type', 'application/json').send('{"username": ');
    expect(bad.status).toBe(400);
    expect((await t.api.get(PROVISION)).status).toBe(405);
  });
});

describe('rate limiting', () => {
  test('after 10 failures for a username, even the right password gets 429 until the window passes', async () => {
    const bob = { username: 'bob', password: 'bob-secret-password' };
    expect((await t.api.post('/api/users/users/').set(t.auth).send(bob)).status).toBe(201);
    // Start from a clean window: failures from earlier tests (same client address) are forgotten.
    t.clock.advance(16 * 60_000);
    for (let i = 0; i < 10; i++) {
      const res = await t.api.post(PROVISION).send({ username: 'bob', password: `guess-${i}` });
      expect([i, res.status]).toEqual([i, 403]);
    }
    const before = await allTokenCount();
    const limited = await t.api.post(PROVISION).send(bob);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ detail: expect.any(String) });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(await allTokenCount()).toBe(before);
    // Another username from the same address is not held back by Bob's failures.
    expect((await t.api.post(PROVISION).send(ALICE)).status).toBe(201);
    // Once the window has passed, the right password works again.
    t.clock.advance(16 * 60_000);
    const later = await t.api.post(PROVISION).send(bob);
    expect(later.status).toBe(201);
    expect(later.body.user.username).toBe('bob');
  });

  test('concurrent guesses cannot get past the limit: at most 10 wrong passwords are tried per username', async () => {
    t.clock.advance(16 * 60_000);
    const statuses = await Promise.all(
      Array.from({ length: 25 }, (_, i) => t.api.post(PROVISION).send({ username: 'alice', password: `parallel-guess-${i}` }).then((r) => r.status)),
    );
    const tried = statuses.filter((s) => s === 403).length;
    // Attempts are admitted one at a time under a lock: exactly the limit is tried, the rest refused.
    expect(tried).toBe(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
    expect((await t.api.post(PROVISION).send(ALICE)).status).toBe(429);
    t.clock.advance(16 * 60_000);
    expect((await t.api.post(PROVISION).send(ALICE)).status).toBe(201);
  });

  test('30 failures from one client address (behind a trusted proxy) hold back every username from it, not others', async () => {
    const proxied = apiWith(t, { TRUSTED_PROXIES: '127.0.0.1,::1' });
    t.clock.advance(16 * 60_000);
    const from = (address: string) => ({ 'X-Forwarded-For': address });
    for (let batch = 0; batch < 5; batch++) {
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) => proxied.post(PROVISION).set(from('198.51.100.9')).send({ username: `guess${batch}-${i}`, password: 'x' }).then((r) => r.status)),
      );
      expect(results).toEqual(Array(6).fill(403));
    }
    const limited = await proxied.post(PROVISION).set(from('198.51.100.9')).send(ALICE);
    expect(limited.status).toBe(429);
    expect((await proxied.post(PROVISION).set(from('198.51.100.10')).send(ALICE)).status).toBe(201);
    t.clock.advance(16 * 60_000);
  });
});

describe('password hashes in Django\'s format', () => {
  test('a password set through the API is stored as pbkdf2_sha256$iterations$salt$hash that Django would verify', async () => {
    const stored = await passwordOf(aliceId);
    expect(stored).not.toContain(ALICE.password);
    const m = /^pbkdf2_sha256\$(\d+)\$([^$]+)\$([A-Za-z0-9+/]+={0,2})$/.exec(stored);
    expect(m).not.toBeNull();
    const [, iterations, salt] = m!;
    expect(Number(iterations)).toBeGreaterThanOrEqual(DJANGO_ITERATIONS);
    expect(salt!.length).toBeGreaterThanOrEqual(12);
    expect(Buffer.from(m![3]!, 'base64')).toHaveLength(32);
    expect(djangoHash(ALICE.password, salt!, Number(iterations))).toBe(stored);
    // The API never shows it.
    const user = await t.api.get(`/api/users/users/${aliceId}/`).set(t.auth);
    expect(user.body).not.toHaveProperty('password');
    expect(JSON.stringify(user.body)).not.toContain('pbkdf2');
  });

  test('two users with the same password get different salts', async () => {
    const res = await t.api.post('/api/users/users/').set(t.auth).send({ username: 'alice2', password: ALICE.password });
    expect(res.status).toBe(201);
    expect(await passwordOf(res.body.id)).not.toBe(await passwordOf(aliceId));
  });

  test('a hash made by Django (make_password("patchbay", salt="saltsaltsalt"), 600000 iterations) verifies', async () => {
    const hash = djangoHash('patchbay', 'saltsaltsalt');
    expect(hash.startsWith('pbkdf2_sha256$600000$saltsaltsalt$')).toBe(true);
    const id = await insertUser('from-netbox', hash);
    const ok = await t.api.post(PROVISION).send({ username: 'from-netbox', password: 'patchbay' });
    expect(ok.status).toBe(201);
    expect(ok.body.user.id).toBe(id);
    const wrong = await t.api.post(PROVISION).send({ username: 'from-netbox', password: 'patchbay ' });
    expect(wrong.status).toBe(403);
  });

  test('a hash with another work factor (an older Django) still verifies', async () => {
    await insertUser('older-django', djangoHash('legacy', 'oldsalt1234', 260000));
    expect((await t.api.post(PROVISION).send({ username: 'older-django', password: 'legacy' })).status).toBe(201);
  });

  test('a user without a usable password ("!" as Django marks it) cannot provision', async () => {
    await insertUser('unusable', '!');
    const res = await t.api.post(PROVISION).send({ username: 'unusable', password: '!' });
    expect(res.status).toBe(403);
  });
});
