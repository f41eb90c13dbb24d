import path from 'node:path';
import { loadRegistry } from '../../engine/boot';
import { representationOf } from '../../engine/reads/compiled-representations';
import { SEES_EVERYTHING } from '../../engine/reads/reader-access';

/**
 * Compiled representations are kept per shape (model, form, exclude set). The exclude set is canonical:
 * its order, repeated names, and names the form does not show do not make another shape, so every way of
 * writing one exclude= shares one compilation (tens of milliseconds for an interface) and one statement text.
 */

const registry = loadRegistry(path.resolve(__dirname, '..', '..', 'schema'));
const json = { revealSecrets: false, access: SEES_EVERYTHING };
const of = (label: string, form: 'full' | 'brief', omit: string[]) => representationOf(registry, registry.models.get(label)!, form, new Set(omit), json);

test('permutations of one exclude set share one compilation', () => {
  const first = of('dcim.interface', 'full', ['link_peers', 'connected_endpoints', 'tags']);
  expect(of('dcim.interface', 'full', ['tags', 'connected_endpoints', 'link_peers'])).toBe(first);
  expect(of('dcim.interface', 'full', ['connected_endpoints', 'link_peers', 'tags', 'no_such_field'])).toBe(first);
});

test('names the form does not show change nothing: brief with exclude=comments is brief', () => {
  expect(of('dcim.site', 'brief', ['comments', 'tags'])).toBe(of('dcim.site', 'brief', []));
  expect(of('dcim.site', 'brief', ['slug', 'comments'])).toBe(of('dcim.site', 'brief', ['slug']));
});

test('names shown without a field of their own (created, last_updated, a generic relation\'s columns) are excluded like fields', () => {
  const text = (omit: string[]) => of('dcim.site', 'full', omit).texts.join('$?');
  expect(text([])).toContain('AS "created"');
  expect(text(['created', 'last_updated'])).not.toContain('AS "created"');
  expect(text(['created', 'last_updated'])).not.toContain('AS "last_updated"');
  const address = (omit: string[]) => of('ipam.ipaddress', 'full', omit).texts.join('$?');
  expect(address([])).toContain('AS "assigned_object_type"');
  expect(address(['assigned_object_type'])).not.toContain('AS "assigned_object_type"');
});
