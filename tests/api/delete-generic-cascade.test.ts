import { startTestApp, type TestApp } from '../support/test-app';

/**
 * Generic relations have no foreign key, so the engine follows them itself when an object goes, also
 * for the rows the database cascades to. A tree's cascade to its own child rows counts too: deleting a
 * region deletes its child regions, and the VLAN groups scoped to those (scope: on_delete cascade) go with them.
 */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

async function post(path: string, body: Record<string, unknown>): Promise<number> {
  const res = await t.api.post(path).set(t.auth).send(body);
  expect([path, res.status]).toEqual([path, 201]);
  return (res.body as { id: number }).id;
}

it('deleting a region takes along the VLAN groups scoped to it and to its descendant regions', async () => {
  const top = await post('/api/dcim/regions/', { name: 'Top', slug: 'top' });
  const middle = await post('/api/dcim/regions/', { name: 'Middle', slug: 'middle', parent: top });
  const bottom = await post('/api/dcim/regions/', { name: 'Bottom', slug: 'bottom', parent: middle });
  const groups = [];
  for (const [i, region] of [top, middle, bottom].entries()) {
    groups.push(await post('/api/ipam/vlan-groups/', { name: `Group ${i}`, slug: `group-${i}`, scope_type: 'dcim.region', scope_id: region }));
  }
  const res = await t.api.delete(`/api/dcim/regions/${top}/`).set(t.auth);
  expect(res.status).toBe(204);
  const left = await t.knex.raw(`SELECT "id", "scope_id" FROM "ipam_vlangroup" WHERE "id" = ANY(?)`, [groups]);
  expect(left.rows).toEqual([]);
});
