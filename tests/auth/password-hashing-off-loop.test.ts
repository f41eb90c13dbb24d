import crypto from 'node:crypto';
import type { Response } from 'supertest';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * Hashing a password (PBKDF2, 600,000 iterations: hundreds of milliseconds of CPU) must not stall the
 * process: while a request that sets a password is hashing it, another request is answered.
 *
 * The engine's own calls into node:crypto are watched (the real functions still do the work). When a
 * hash starts, GET /api/status/ is sent; an asynchronous hash's result is held back until that request
 * has been answered, so the order asserted does not depend on how fast either runs. A hash that ran on
 * the event loop (pbkdf2Sync) cannot be held: the status request waits for it, and the order breaks.
 */

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  jest.restoreAllMocks();
  await t.close();
});
afterEach(() => {
  jest.restoreAllMocks();
});

type Pbkdf2Callback = (err: Error | null, key: Buffer) => void;

/** What happened, in order, while `write` ran: hash started/done, the status answer, the write's answer. */
async function orderDuringWrite(write: () => Promise<Response>): Promise<string[]> {
  const events: string[] = [];
  let status: Promise<void> | null = null;
  const askStatus = (): Promise<void> =>
    (status ??= t.api
      .get('/api/status/')
      .set(t.auth)
      .then((r) => {
        events.push(`status answered ${r.status}`);
      }));
  const pbkdf2 = crypto.pbkdf2;
  const pbkdf2Sync = crypto.pbkdf2Sync;
  jest.spyOn(crypto, 'pbkdf2').mockImplementation(((...args: unknown[]) => {
    const done = args.pop() as Pbkdf2Callback;
    events.push('hash started');
    const answered = askStatus();
    (pbkdf2 as (...a: unknown[]) => void)(...args, (err: Error | null, key: Buffer) => {
      void answered.then(() => {
        events.push('hash done');
        done(err, key);
      });
    });
  }) as typeof crypto.pbkdf2);
  jest.spyOn(crypto, 'pbkdf2Sync').mockImplementation(((...args: Parameters<typeof crypto.pbkdf2Sync>) => {
    events.push('hash started');
    void askStatus();
    const key = pbkdf2Sync(...args);
    events.push('hash done');
    return key;
  }) as typeof crypto.pbkdf2Sync);
  try {
    const res = await write();
    events.push(`write answered ${res.status}`);
    await status;
    return events;
  } finally {
    jest.restoreAllMocks();
  }
}

/**
 * The status request was answered while the first hash was under way, and the write after every hash. A
 * write to users moves the auth version on, so a transactional one made with cached credentials is run
 * again after a fresh lookup (engine/auth/credential-cache.ts), hashing again: hence "every hash".
 */
function expectAnsweredWhileHashing(events: string[], code: number): void {
  expect(events.slice(0, 3)).toEqual(['hash started', 'status answered 200', 'hash done']);
  expect(events.slice(-2)).toEqual(['hash done', `write answered ${code}`]);
}

test('creating a user with a password: another request is answered while the password is hashed', async () => {
  const events = await orderDuringWrite(() => t.api.post('/api/users/users/').set(t.auth).send({ username: 'hashed-create', password: 'a long enough password' }));
  expectAnsweredWhileHashing(events, 201);
});

test('changing a password: another request is answered while it is hashed', async () => {
  const made = await t.api.post('/api/users/users/').set(t.auth).send({ username: 'hashed-patch', password: 'first password' });
  expect(made.status).toBe(201);
  const events = await orderDuringWrite(() => t.api.patch(`/api/users/users/${made.body.id}/`).set(t.auth).send({ password: 'second password' }));
  expectAnsweredWhileHashing(events, 200);
});

test('a bulk create of users, written in one transaction: each password is hashed off the loop', async () => {
  const group = await t.api.post('/api/users/groups/').set(t.auth).send({ name: 'hashers' });
  expect(group.status).toBe(201);
  const events = await orderDuringWrite(() =>
    t.api.post('/api/users/users/').set(t.auth).send([{ username: 'hashed-bulk-1', password: 'one password', groups: [group.body.id] }]),
  );
  expectAnsweredWhileHashing(events, 201);
});

test('the passwords written verify: a token is provisioned with each', async () => {
  for (const [username, password] of [['hashed-create', 'a long enough password'], ['hashed-patch', 'second password'], ['hashed-bulk-1', 'one password']]) {
    const res = await t.api.post('/api/users/tokens/provision/').send({ username, password });
    expect([username, res.status]).toEqual([username, 201]);
  }
  const wrong = await t.api.post('/api/users/tokens/provision/').send({ username: 'hashed-patch', password: 'first password' });
  expect(wrong.status).toBe(403);
});

test('logging in with a password: another request is answered while it is checked, known user or not', async () => {
  for (const username of ['hashed-create', 'no-such-user']) {
    const events = await orderDuringWrite(() => t.api.post('/api/users/tokens/provision/').send({ username, password: 'a long enough password' }));
    expectAnsweredWhileHashing(events, username === 'no-such-user' ? 403 : 201);
  }
});
