import type { SeedClient } from './seed-client';
import type { SeedIds } from './seed-ids';

/**
 * People and what they did: a group, two users (passwords an importer cannot read back: it must mark
 * them unusable), a constrained object permission, a token; then changes after creation and deletions, so
 * the change log holds create, update and delete entries.
 */
export async function seedUsersAndHistory(c: SeedClient, ids: SeedIds): Promise<void> {
  ids.group = await c.post('users/groups', { name: 'NOC' });
  ids.users = {
    alice: await c.post('users/users', { username: 'alice', password: 'correct horse battery', first_name: 'Alice', last_name: 'Ng', email: 'alice@example.net', groups: [ids.group.id], is_staff: true }),
    bob: await c.post('users/users', { username: 'bob', password: 'tr0ub4dor&3', email: 'bob@example.net' }),
  };
  ids.permission = await c.post('users/permissions', {
    name: 'NOC: active sites and their devices', description: 'Read active sites, change devices at FRA1',
    object_types: ['dcim.site', 'dcim.device'], actions: ['view', 'change'], constraints: { status: 'active' },
    groups: [ids.group.id], users: [ids.users.bob.id],
  });
  await c.post('users/tokens', { user: ids.users.alice.id, description: 'automation', write_enabled: false, expires: '2099-01-01T00:00:00Z' });

  // Updates after creation.
  await c.patch('dcim/sites', ids.sites.fra1.id, { description: 'Frankfurt primary', comments: 'Cage 12, racks R1-R2' });
  await c.patch('dcim/devices', ids.devices.leafB.id, { status: 'staged', description: 'awaiting turn-up' });
  await c.patch('dcim/devices', ids.devices.leafB.id, { status: 'active' });
  await c.patch('users/users', ids.users.bob.id, { first_name: 'Bob' });
  // Deletions: objects that existed and are gone (their ids are never reused).
  const gone = await c.post('dcim/sites', { name: 'Closed site', slug: 'closed' });
  await c.post('dcim/locations', { name: 'Old cage', slug: 'old-cage', site: gone.id });
  await c.delete('dcim/sites', gone.id);
  const oldTag = await c.post('extras/tags', { name: 'Obsolete', slug: 'obsolete' });
  await c.delete('extras/tags', oldTag.id);
}
