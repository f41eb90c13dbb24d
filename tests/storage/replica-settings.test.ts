import { loadConfig } from '../../engine/config';
import { openReplicas } from '../../engine/database/open-replicas';
import { createApp } from '../../engine/app';
import supertest from 'supertest';
import { startTestApp, type TestApp } from '../support/test-app';

describe('replica settings', () => {
  test('defaults: no standbys, REPLICA_MAX_LAG 5 s, REPLICA_WRITE_LEASE 60 s', () => {
    const c = loadConfig({});
    expect(c.databaseReplicaUrls).toEqual([]);
    expect(c.replicaMaxLagMs).toBe(5000);
    expect(c.replicaWriteLeaseMs).toBe(60000);
  });

  test('DATABASE_REPLICA_URLS is a comma-separated list', () => {
    const c = loadConfig({ DATABASE_REPLICA_URLS: 'postgres://a:5432/x, postgres://b:5432/x,' });
    expect(c.databaseReplicaUrls).toEqual(['postgres://a:5432/x', 'postgres://b:5432/x']);
  });

  test('a lease shorter than 4 x REPLICA_MAX_LAG is refused at start, naming both', () => {
    expect(() => loadConfig({ REPLICA_MAX_LAG: '10', REPLICA_WRITE_LEASE: '39' })).toThrow(/REPLICA_WRITE_LEASE.*4 x REPLICA_MAX_LAG/);
    expect(loadConfig({ REPLICA_MAX_LAG: '10', REPLICA_WRITE_LEASE: '40' }).replicaWriteLeaseMs).toBe(40000);
    expect(() => loadConfig({ REPLICA_MAX_LAG: '0' })).toThrow(/REPLICA_MAX_LAG/);
    expect(() => loadConfig({ REPLICA_MAX_LAG: 'soon' })).toThrow(/REPLICA_MAX_LAG/);
  });
});

describe('without DATABASE_REPLICA_URLS nothing changes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  }, 600_000);
  afterAll(async () => {
    await t?.close();
  });

  test('the embedded database ignores DATABASE_REPLICA_URLS', () => {
    const config = loadConfig({ DATABASE_REPLICA_URLS: 'postgres://127.0.0.1:1/x' });
    const opened = openReplicas(t.knex, config, true);
    expect(opened.knex).toBe(t.knex);
    expect(opened.replicas).toBeUndefined();
  });

  test('writes and reads send no lease or heartbeat statement, and /api/status/ keeps NetBox\'s shape', async () => {
    const opened = openReplicas(t.knex, t.config, t.db.embedded);
    expect(opened.knex).toBe(t.knex);
    expect(opened.replicas).toBeUndefined();
    const api = supertest(createApp({ registry: t.registry, knex: opened.knex, config: t.config, version: 'test', embedded: t.db.embedded, clock: t.clock, replicas: opened.replicas }));
    t.queries.reset();
    const created = await api.post('/api/dcim/sites/').set(t.auth).send({ name: 'no-replicas', slug: 'no-replicas' });
    expect(created.status).toBe(201);
    expect((await api.patch(`/api/dcim/sites/${created.body.id}/`).set(t.auth).send({ description: 'x' })).status).toBe(200);
    expect((await api.get(`/api/dcim/sites/${created.body.id}/`).set(t.auth)).status).toBe(200);
    expect((await api.get('/api/dcim/sites/?slug=no-replicas').set(t.auth)).body.count).toBe(1);
    const status = await api.get('/api/status/').set(t.auth);
    expect(status.status).toBe(200);
    expect(status.body.patchbay).toBeUndefined();
    expect(t.queries.count).toBeGreaterThan(0);
    expect(t.queries.log.filter((q) => /patchbay_write_leases|patchbay_replica_heartbeat/.test(q))).toEqual([]);
  });
});
