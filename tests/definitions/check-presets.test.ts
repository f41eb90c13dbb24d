/**
 * What the test factories read from a definition's checks (tests/support/check-presets.ts), on
 * definitions as written: the values asked of related objects and of the object's own fields.
 */
import type { Check, Field as FieldDef } from '../../engine/definitions/generated/model-definition';
import { keepOwnChecks, presetForRelation, splitPreset, valueFromCheck, type CheckedField, type CheckedModel } from '../support/check-presets';

function model(label: string, fields: Record<string, Omit<CheckedField, 'name' | 'def'> & { def?: Partial<FieldDef> }>, checks: Check[] = []): CheckedModel {
  return {
    label,
    def: { checks } as CheckedModel['def'],
    fields: new Map(Object.entries(fields).map(([name, f]) => [name, { ...f, name, def: (f.def ?? {}) as FieldDef }])),
  };
}

const device = model('dcim.device', { status: { kind: 'choice', choices: { values: ['active', 'planned'] } }, position: { kind: 'decimal' } });
const iface = model('dcim.interface', { type: { kind: 'choice', choices: { entries: [{ value: '1000base-t' }, { value: 'ieee802.11a' }] } }, device: { kind: 'fk', target: device }, enabled: { kind: 'boolean' } });
const link = model('wireless.wirelesslink', { interface_a: { kind: 'fk', target: iface }, interface_b: { kind: 'fk', target: iface }, auth_type: { kind: 'string' }, auth_psk: { kind: 'string' }, mark_connected: { kind: 'boolean' }, cable: { kind: 'fk', target: device } }, [
  { field: 'interface_a', only_when: { 'interface_a.type': ['ieee802.11a', 'ieee802.11g'] }, message: 'a' },
  { field: 'interface_b', only_when: { 'interface_b.device.status': ['planned'] }, message: 'b' },
  { field: 'interface_b', only_when: { 'interface_b.enabled': ['true'] }, message: 'c' },
  { field: 'auth_psk', only_when: { 'interface_a.device.position': ['2.5'] }, message: 'd' },
  { field: 'auth_psk', only_when: { auth_type: ['wpa-personal'] }, message: 'e' },
  { field: 'mark_connected', excludes: ['cable'], message: 'f' },
]);

test('a relation is asked for what only_when checks on it, or on a field that is set, read through it', () => {
  const none = () => false;
  expect(presetForRelation(link, 'interface_a', none)).toEqual({ type: 'ieee802.11a' });
  expect(presetForRelation(link, 'interface_a', (n) => n === 'auth_psk')).toEqual({ type: 'ieee802.11a', 'device.position': 2.5 });
  expect(presetForRelation(link, 'interface_b', none)).toEqual({ 'device.status': 'planned', enabled: true });
  expect(presetForRelation(link, 'cable', none)).toEqual({});
});

test('a preset splits into own values and, per relation, what the related object is made with', () => {
  const { own, through } = splitPreset({ enabled: true, 'device.status': 'planned', 'device.site.name': 'x' });
  expect(own).toEqual({ enabled: true });
  expect([...through]).toEqual([['device', { status: 'planned', 'site.name': 'x' }]]);
});

test("values compared as text are written as the field's JSON", () => {
  expect([valueFromCheck(iface.fields.get('enabled'), 'false'), valueFromCheck(device.fields.get('position'), '2.5'), valueFromCheck(undefined, 'x')]).toEqual([false, 2.5, 'x']);
  const numeric = model('x.y', { n: { kind: 'choice', choices: { values: [10, 20] } } });
  expect(valueFromCheck(numeric.fields.get('n'), '20')).toBe(20);
});

test("the object's own fields: an only_when path gets the first value, an excluded boolean goes false, chosen values stay", () => {
  const body: Record<string, unknown> = { auth_psk: 'secret', auth_type: 'open', mark_connected: true, cable: 3 };
  keepOwnChecks(link, body);
  expect(body).toEqual({ auth_psk: 'secret', auth_type: 'wpa-personal', mark_connected: false, cable: 3 });
  const chosen: Record<string, unknown> = { auth_psk: 'secret', auth_type: 'open', mark_connected: true, cable: 3 };
  keepOwnChecks(link, chosen, new Set(['auth_type', 'mark_connected']));
  expect(chosen).toEqual({ auth_psk: 'secret', auth_type: 'open', mark_connected: true, cable: 3 });
  const unset: Record<string, unknown> = { auth_type: 'open', mark_connected: true };
  keepOwnChecks(link, unset);
  expect(unset).toEqual({ auth_type: 'open', mark_connected: true });
});

test("the object's own fields: a required_when field gets its first choice, an any_of its first free path; a blank is unset", () => {
  const ike = model('vpn.ikepolicy', { version: { kind: 'choice', def: { default: 2 }, choices: { values: [1, 2] } }, mode: { kind: 'choice', choices: { values: ['aggressive', 'main'] } } }, [
    { field: 'mode', required_when: { version: [1] }, message: 'required' },
  ]);
  const v1: Record<string, unknown> = { version: 1, mode: '' };
  keepOwnChecks(ike, v1);
  expect(v1).toEqual({ version: 1, mode: 'aggressive' });
  const fixedMode: Record<string, unknown> = { version: 1 };
  keepOwnChecks(ike, fixedMode, new Set(['mode']));
  expect(fixedMode).toEqual({});
  const v2: Record<string, unknown> = {};
  keepOwnChecks(ike, v2);
  expect(v2).toEqual({});
  const prop = model('vpn.ipsecproposal', { enc: { kind: 'choice', choices: { values: ['aes'] } }, auth: { kind: 'choice', choices: { values: ['sha'] } } }, [{ any_of: ['enc', 'auth'], message: 'one' }]);
  const blank: Record<string, unknown> = { enc: '', auth: '' };
  keepOwnChecks(prop, blank, new Set(['enc']));
  expect(blank).toEqual({ enc: '', auth: 'sha' });
});
