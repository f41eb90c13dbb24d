import type { SeedClient } from './seed-client';
import type { SeedIds } from './seed-ids';

/**
 * What extras add around the inventory: config contexts scoped by region, site and tag (so a device's
 * rendered config_context merges several), a config template the device renders, journal entries, image
 * attachments with real PNG bytes, and the automation objects (export template, saved filter, custom link,
 * a webhook behind a disabled event rule: nothing is sent while the tests run).
 */
export async function seedContextsAndRecords(c: SeedClient, ids: SeedIds): Promise<void> {
  await c.post('extras/config-contexts', { name: 'global', weight: 1000, data: { ntp_servers: ['192.0.2.123', '192.0.2.124'], syslog: { level: 'info' } } });
  await c.post('extras/config-contexts', { name: 'europe dns', weight: 2000, regions: [ids.regions.europe.id], data: { dns_servers: ['192.0.2.53'] }, description: 'Resolvers for Europe' });
  await c.post('extras/config-contexts', { name: 'fra1 core', weight: 3000, sites: [ids.sites.fra1.id], tags: ['core'], roles: [ids.roles.leaf.id], data: { syslog: { level: 'debug', host: '10.1.1.250' } } });
  await c.post('extras/config-contexts', { name: 'inactive', is_active: false, data: { never: 'applied' } });
  ids.configTemplate = await c.post('extras/config-templates', { name: 'junos base', template_code: 'system { host-name {{ device.name }}; }\n{% for s in ntp_servers %}ntp server {{ s }};\n{% endfor %}', environment_params: { trim_blocks: true } });
  await c.patch('dcim/devices', ids.devices.leafA.id, { config_template: ids.configTemplate.id });
  await c.patch('dcim/platforms', ids.platform.id, { config_template: ids.configTemplate.id });

  await c.post('extras/journal-entries', { assigned_object_type: 'dcim.device', assigned_object_id: ids.devices.leafA.id, kind: 'warning', comments: 'Replaced optic in et-0/0/0', created_by: ids.admin.id });
  await c.post('extras/journal-entries', { assigned_object_type: 'dcim.site', assigned_object_id: ids.sites.fra1.id, kind: 'info', comments: 'Site audit **passed**', tags: [ids.tags.monitored.id] });
  await c.post('extras/journal-entries', { assigned_object_type: 'circuits.circuit', assigned_object_id: ids.circuit.id, kind: 'danger', comments: 'Outage 2024-02-01 02:00-03:15' });

  await c.upload('extras/image-attachments', { content_type: 'dcim.site', object_id: ids.sites.fra1.id, name: 'Entrance' }, 'image', [9, 6], 'entrance.png');
  ids.rackImage = await c.upload('extras/image-attachments', { content_type: 'dcim.rack', object_id: ids.racks.r1.id, name: 'R1 front' }, 'image', [4, 16], 'r1-front.png');

  await c.post('extras/export-templates', { name: 'Device CSV', content_types: ['dcim.device'], template_code: '{% for d in queryset %}{{ d.name }},{{ d.serial }}\n{% endfor %}', mime_type: 'text/csv', file_extension: 'csv', as_attachment: true });
  await c.post('extras/saved-filters', { name: 'Active FRA1 devices', slug: 'active-fra1', content_types: ['dcim.device'], parameters: { site: ['fra1'], status: ['active'] }, shared: true, user: ids.admin.id });
  await c.post('extras/custom-links', { name: 'Monitoring', content_types: ['dcim.device'], link_text: 'Graphs', link_url: 'https://monitoring.example.net/d/{{ object.name }}', new_window: true, button_class: 'blue' });
  const hook = await c.post('extras/webhooks', { name: 'CMDB sync', payload_url: 'https://cmdb.example.net/hook', http_method: 'POST', additional_headers: 'X-Source: patchbay', ssl_verification: true });
  await c.post('extras/event-rules', { name: 'Devices to CMDB', content_types: ['dcim.device'], type_create: true, type_update: true, enabled: false, action_type: 'webhook', action_object_type: 'extras.webhook', action_object_id: hook.id, conditions: { and: [{ attr: 'status.value', value: 'active' }] } });
  await c.post('extras/bookmarks', { object_type: 'dcim.device', object_id: ids.devices.leafA.id, user: ids.admin.id });
}
