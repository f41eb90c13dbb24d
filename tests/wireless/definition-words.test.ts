/**
 * The words the wireless and L2VPN types needed, as the registry reads them: which types may be journaled,
 * bookmarked, image-attached or contact-assigned comes from each type's own `features`; the checks' at_most
 * cap, displays through relations, or_via, or_link and path_node kind link are refused at load when they
 * name what cannot work.
 */
import path from 'node:path';
import { loadDefinitions, type LoadedDefinition } from '../../engine/definitions/load-definitions';
import { resolveRegistry } from '../../engine/definitions/resolve-registry';
import { pathNodes } from '../../engine/definitions/path-nodes';

const SCHEMA = path.resolve(__dirname, '..', '..', 'schema');
const loaded = loadDefinitions(SCHEMA);
const registry = resolveRegistry(loaded);

function patched(label: string, change: (def: Record<string, any>) => void): LoadedDefinition[] { // eslint-disable-line @typescript-eslint/no-explicit-any
  const all = loaded.map((l) => ({ ...l, def: JSON.parse(JSON.stringify(l.def)) }));
  change(all.find((l) => `${l.def.app}.${l.def.model}` === label)!.def);
  return all;
}
const targets = (label: string, field: string) => registry.models.get(label)!.fields.get(field)!.genericTargets!.map((m) => m.label);

test('a feature relation points at every type offering the feature, in label order', () => {
  const journaled = targets('extras.journalentry', 'assigned_object');
  expect(journaled).toEqual([...journaled].sort());
  expect(journaled).toEqual(expect.arrayContaining(['vpn.l2vpn', 'vpn.l2vpntermination', 'wireless.wirelesslan', 'wireless.wirelesslangroup', 'wireless.wirelesslink', 'dcim.site']));
  expect(targets('extras.bookmark', 'object')).toEqual(expect.arrayContaining(['wireless.wirelesslan', 'vpn.l2vpn']));
  expect(targets('tenancy.contactassignment', 'object')).toContain('vpn.l2vpn');
  expect(targets('tenancy.contactassignment', 'object')).not.toContain('wireless.wirelesslan');
  expect(targets('extras.imageattachment', 'parent')).toEqual(['circuits.circuit', 'dcim.device', 'dcim.devicetype', 'dcim.location', 'dcim.moduletype', 'dcim.powerpanel', 'dcim.rack', 'dcim.site']);
  // A type opts in from its own file.
  const more = resolveRegistry(patched('wireless.wirelesslan', (d) => d.features.push('image_attachments')));
  expect(more.models.get('extras.imageattachment')!.fields.get('parent')!.genericTargets!.map((m) => m.label)).toContain('wireless.wirelesslan');
});

test('a private type offers no feature: refused at load with its file and pointer', () => {
  expect(() => resolveRegistry(patched('users.token', (d) => (d.features = ['bookmarks'])))).toThrow(/schema\/users\/token\.json:\/features: users\.token is private: no generic relation may point at it, so it offers no bookmarks/);
});

test('an at_most cap counts by a stored field; when belongs to a cap', () => {
  expect(() => resolveRegistry(patched('vpn.l2vpntermination', (d) => (d.checks[0].per = 'nothing')))).toThrow(/:\/checks\/0\/per: "nothing" is not a single stored field of vpn.l2vpntermination/);
  expect(() => resolveRegistry(patched('vpn.l2vpntermination', (d) => (d.checks[0].when = { 'l2vpn.type': ['p2p'] })))).toThrow(/:\/checks\/0\/when\/l2vpn.type\/0: "p2p" is not in choice set l2vpn_type/);
  expect(() => resolveRegistry(patched('wireless.wirelesslink', (d) => (d.checks[0].when = { ssid: ['x'] })))).toThrow(/:\/checks\/0\/when: when is the condition of an at_most cap/);
});

test('displays through relations, or_via, or_link and links name what exists', () => {
  expect(() => resolveRegistry(patched('vpn.l2vpntermination', (d) => (d.display = '{assigned_object} <> {l2vpn.nothing}')))).toThrow(/l2vpn-termination\.json:\/display: "{l2vpn.nothing}": vpn.l2vpn has no field "nothing"/);
  expect(() => resolveRegistry(patched('dcim.interface', (d) => (d.fields.wireless_link.or_via = 'tenant')))).toThrow(/:\/fields\/wireless_link\/or_via: "tenant" is not, beside via, a second foreign key of wireless.wirelesslink to dcim.interface/);
  expect(() => resolveRegistry(patched('dcim.interface', (d) => (d.fields.link_peers.or_link = 'dcim.cable')))).toThrow(/:\/fields\/link_peers\/or_link: "dcim.cable" is not a model of path_node kind link whose ends are dcim.interface/);
  // A link whose end is not an endpoint: refused by the interface naming it, and by the path nodes themselves.
  expect(() => resolveRegistry(patched('wireless.wirelesslink', (d) => (d.path_node.b = 'tenant')))).toThrow(/"wireless.wirelesslink" is not a model of path_node kind link whose ends are dcim.interface/);
  const unnamed = patched('wireless.wirelesslink', (d) => (d.path_node.b = 'tenant'));
  const iface = unnamed.find((l) => l.def.app === 'dcim' && l.def.model === 'interface')!.def as unknown as { fields: Record<string, Record<string, unknown>> };
  for (const f of ['link_peers', 'link_peers_type']) delete iface.fields[f]!.or_link;
  expect(() => pathNodes(resolveRegistry(unnamed))).toThrow(/schema\/wireless\/wireless-link\.json:\/path_node\/b: tenancy.tenant is not an endpoint path node/);
});
