import type { SeedClient } from './seed-client';
import type { SeedIds } from './seed-ids';

/**
 * Tags and custom fields first: later parts put them on objects. The custom fields cover the kinds an
 * importer must carry differently (plain values, a selection from a choice set, references to other
 * objects by id, one and many), on sites and devices.
 */
export async function seedTagsAndFields(c: SeedClient, ids: SeedIds): Promise<void> {
  ids.tags = {
    core: await c.post('extras/tags', { name: 'Core', slug: 'core', color: 'ff5722', description: 'Core network' }),
    monitored: await c.post('extras/tags', { name: 'Monitored', slug: 'monitored', color: '4caf50' }),
    // A tag limited to some types (NetBox's object_types).
    legacy: await c.post('extras/tags', { name: 'Legacy', slug: 'legacy', object_types: ['dcim.device', 'ipam.prefix'] }),
  };
  const tiers = await c.post('extras/custom-field-choice-sets', { name: 'Service tiers', extra_choices: [['gold', 'Gold'], ['silver', 'Silver'], ['bronze', 'Bronze']], description: 'Support levels' });
  const on = ['dcim.site', 'dcim.device'];
  await c.post('extras/custom-fields', { name: 'asset_owner', label: 'Asset owner', type: 'text', content_types: on, group_name: 'Ownership', validation_regex: '^[A-Za-z ]+$' });
  await c.post('extras/custom-fields', { name: 'floor_count', type: 'integer', content_types: ['dcim.site'], validation_minimum: 0, validation_maximum: 200, default: 1 });
  await c.post('extras/custom-fields', { name: 'monitored', type: 'boolean', content_types: on, default: false });
  await c.post('extras/custom-fields', { name: 'service_tier', type: 'select', content_types: on, choice_set: tiers.id, weight: 50 });
  await c.post('extras/custom-fields', { name: 'owner_tenant', type: 'object', object_type: 'tenancy.tenant', content_types: on });
  await c.post('extras/custom-fields', { name: 'served_vlans', type: 'multiobject', object_type: 'ipam.vlan', content_types: ['dcim.site'] });
  await c.post('extras/custom-fields', { name: 'commissioned', type: 'date', content_types: ['dcim.device'], ui_visible: 'if-set' });
}
