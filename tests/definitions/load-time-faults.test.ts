import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadRegistry } from '../../engine/boot';
import { DefinitionErrors } from '../../engine/definitions/definition-error';
import { runCli } from '../cli/cli-support';

/**
 * What cannot work is refused when the definitions are read, every fault of every file in one run, each
 * as one `file:pointer: reason` line. Each case copies schema/ into a temporary folder, spoils files
 * there, and asserts the exact lines.
 */

const ROOT = path.resolve(__dirname, '..', '..');
const made: string[] = [];

afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- definitions are edited as plain JSON

/** A copy of schema/ with each named file (app/file.json) changed by its edit. */
function spoiled(edits: Record<string, (def: Json) => void>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'patchbay-faults-'));
  made.push(dir);
  fs.cpSync(path.join(ROOT, 'schema'), dir, { recursive: true });
  for (const [rel, edit] of Object.entries(edits)) {
    const file = path.join(dir, rel);
    const def = JSON.parse(fs.readFileSync(file, 'utf8')) as Json;
    edit(def);
    fs.writeFileSync(file, JSON.stringify(def, null, 2));
  }
  return dir;
}

/** The lines the loader throws for the folder ([] when it loads), with the folder's path as the loader names it. */
function faultLines(dir: string): string[] {
  try {
    loadRegistry(dir);
  } catch (e) {
    expect(e).toBeInstanceOf(DefinitionErrors);
    const err = e as DefinitionErrors;
    // One line per fault and nothing else: no stack trace in what a person reads.
    expect(err.message.split('\n')).toEqual(err.lines);
    expect(err.message).not.toMatch(/^\s+at /m);
    return err.lines;
  }
  return [];
}

/** A line as the loader prints it for a file of the folder. */
const line = (dir: string, rel: string, pointer: string, reason: string) => `${path.relative(process.cwd(), path.join(dir, rel))}:${pointer}: ${reason}`;

describe('display templates and message references', () => {
  test('a generic relation, a choice label and a path to a stored field are references; unknown names and other syntax are not', () => {
    const dir = spoiled({
      'ipam/fhrp-group-assignment.json': (d) => (d.display = '{interface} <> {group} {interface[dcim.interface].name} {interface.name}'),
      'ipam/vlan.json': (d) => (d.display = '{name} {status.label} {site.status.label} {site.nowhere} {colour} {tags}'),
    });
    expect(faultLines(dir)).toEqual([
      line(dir, 'ipam/fhrp-group-assignment.json', '/display', '"{interface[dcim.interface].name}" is not a reference: write {field} or {foreign_key.field}'),
      line(dir, 'ipam/fhrp-group-assignment.json', '/display', '"{interface.name}": "interface" is a generic relation, whose target\'s fields are not known; {interface} shows its display'),
      line(dir, 'ipam/vlan.json', '/display', '"{site.nowhere}": dcim.site has no field "nowhere"'),
      line(dir, 'ipam/vlan.json', '/display', '"{colour}": ipam.vlan has no field "colour"'),
      line(dir, 'ipam/vlan.json', '/display', '"{tags}": "tags" is a tags field of ipam.vlan, which holds no value a template can show'),
    ]);
  });

  test('check and no_overlap messages are held to the same references ({other} is an overlap message\'s own)', () => {
    const dir = spoiled({
      'ipam/vlan.json': (d) => (d.checks[0].message = 'VID outside {group.min_vid}-{group.top} of {group.name} ({status.label})'),
      'ipam/ip-range.json': (d) => (d.no_overlap[0].message = 'Overlaps {other} in {vrf.nom}'),
    });
    expect(faultLines(dir)).toEqual([
      line(dir, 'ipam/ip-range.json', '/no_overlap/0/message', '"{vrf.nom}": ipam.vrf has no field "nom"'),
      line(dir, 'ipam/vlan.json', '/checks/0/message', '"{group.top}": ipam.vlangroup has no field "top"'),
    ]);
  });
});

test('an integer bound past 2^53-1 is refused: no 64-bit integer kind exists', () => {
  const dir = spoiled({
    'ipam/vlan.json': (d) => {
      d.fields.vid.max = 9223372036854775807;
      d.fields.vid.min = -9007199254740992;
    },
  });
  expect(faultLines(dir)).toEqual([
    line(dir, 'ipam/vlan.json', '/fields/vid/min', '-9007199254740992 (as JSON reads it) is beyond ±9007199254740991 (2^53-1): a positive_integer field\'s values are JSON numbers, exact only up to there, and no 64-bit integer kind exists'),
    line(dir, 'ipam/vlan.json', '/fields/vid/max', '9223372036854775808 (as JSON reads it) is beyond ±9007199254740991 (2^53-1): a positive_integer field\'s values are JSON numbers, exact only up to there, and no 64-bit integer kind exists'),
  ]);
  expect(faultLines(spoiled({ 'ipam/vlan.json': (d) => (d.fields.vid.max = 9007199254740991) }))).toEqual([]);
});

test('a choice field a create may leave out needs a default, null or required', () => {
  const blank = { type: 'choice', choices: 'vlan_status', blank: true };
  const dir = spoiled({
    'ipam/vlan.json': (d) => {
      d.fields.status = blank;
      d.fields.mode = { type: 'choice', choices: 'vlan_status' };
      d.fields.nullable = { ...blank, null: true };
      d.fields.blank_default = { ...blank, default: '' };
      d.fields.asked = { ...blank, required: true };
      d.fields.many = { type: 'choice', choices: 'vlan_status', array: true };
    },
  });
  expect(faultLines(dir)).toEqual([
    line(dir, 'ipam/vlan.json', '/fields/status', 'a create that leaves this choice field out has nothing to store: give it a "default" ("" for blank), "null": true or "required": true'),
    line(dir, 'ipam/vlan.json', '/fields/mode', 'a create that leaves this choice field out has nothing to store: give it a "default", "null": true or "required": true'),
  ]);
});

test('an option another kind takes is refused at its pointer, and the rest of the run still reports', () => {
  const dir = spoiled({
    'dcim/site.json': (d) => {
      d.fields.facility.host_bits = 'clear';
      d.fields.facility.to = 'dcim.region';
      d.brief.push('nowhere');
    },
    'ipam/prefix.json': (d) => (d.fields.prefix.max_length = 50),
  });
  const kinds = (JSON.parse(fs.readFileSync(path.join(ROOT, 'schema/model.schema.json'), 'utf8')) as Json).definitions.Field.properties.type.enum as string[];
  expect(faultLines(dir)).toEqual([
    line(dir, 'dcim/site.json', '/fields/facility/host_bits', '"host_bits" is not an option of a string field'),
    line(dir, 'dcim/site.json', '/fields/facility/to', '"to" is not an option of a string field'),
    line(dir, 'dcim/site.json', `/brief/${JSON.parse(fs.readFileSync(path.join(ROOT, 'schema/dcim/site.json'), 'utf8')).brief.length}`, 'unknown field "nowhere"'),
    line(dir, 'ipam/prefix.json', '/fields/prefix/max_length', '"max_length" is not an option of a cidr field'),
  ]);
  // A kind named as a value is one of the kinds.
  expect(faultLines(spoiled({ 'extras/custom-field.json': (d) => (d.fields.content_types.names_type.having = 'custom_field') }))).toEqual([
    expect.stringMatching(new RegExp(`extras/custom-field.json:/fields/content_types/names_type/having: must be one of ${kinds.map((k) => `"${k}"`).join(', ')}$`)),
  ]);
});

test('a redundant uniqueness rule is refused: a set holding a unique field, the same set again, in another order', () => {
  const dir = spoiled({
    'dcim/site.json': (d) => (d.unique_together = [['name', 'group']]),
    'ipam/vlan.json': (d) => d.unique_together.push(['name', 'group'], ['vid', 'group']),
  });
  expect(faultLines(dir)).toEqual([
    line(dir, 'dcim/site.json', '/unique_together/0', 'redundant: it holds "name" (unique), unique already'),
    line(dir, 'ipam/vlan.json', '/unique_together/2', 'redundant: the same set as /unique_together/1 (group, name)'),
    line(dir, 'ipam/vlan.json', '/unique_together/3', 'redundant: the same set as /unique_together/0 (group, vid)'),
  ]);
  // A set whose nulls collide is not held by a nullable field's own rule, whose nulls do not.
  expect(faultLines(spoiled({ 'ipam/vlan.json': (d) => d.unique_together.push({ fields: ['group', 'vid', 'name'], nulls_distinct: false }) }))).toEqual([]);
  const wider = spoiled({ 'ipam/vlan.json': (d) => d.unique_together.push({ fields: ['group', 'vid', 'name'] }) });
  expect(faultLines(wider)).toEqual([line(wider, 'ipam/vlan.json', '/unique_together/2', 'redundant: it holds /unique_together/0 (group, vid), unique already')]);
});

test('references are collected, not thrown one at a time: filters, search, ordering, relations, checks, several files in one run', () => {
  const dir = spoiled({
    'dcim/interface.json': (d) => (d.filters.l2vpn_id = { field: 'l2vpn.id', lookup: 'fk_id' }),
    'dcim/site.json': (d) => {
      d.ordering = ['-nowhere'];
      // Others follow this relation (a device's config context, a site group's site_count, VLAN filters):
      // what fails there because its target is unknown is not told again.
      d.fields.group.to = 'dcim.nothing';
    },
    'ipam/vlan.json': (d) => {
      d.search = ['name', 'site.nowhere'];
      d.checks[0].between = ['group.min_vid', 'group.nowhere'];
    },
  });
  expect(faultLines(dir)).toEqual([
    line(dir, 'dcim/interface.json', '/filters/l2vpn_id', 'dcim.interface has no field l2vpn (path l2vpn.id)'),
    line(dir, 'dcim/site.json', '/fields/group/to', 'unknown model "dcim.nothing"'),
    line(dir, 'dcim/site.json', '/ordering/0', 'unknown field "nowhere"'),
    line(dir, 'ipam/vlan.json', '/search/1', '"site.nowhere" is not a stored field or a path through foreign keys to one'),
    line(dir, 'ipam/vlan.json', '/checks/0', 'ipam.vlangroup has no field nowhere (path group.nowhere)'),
  ]);
});

test('filter words are checked: an option of another lookup, a value that is no choice, a holds on no list', () => {
  const dir = spoiled({
    'dcim/interface.json': (d) => {
      d.filters.kind.groups.virtual.push('no-such-type');
      d.filters.cabled.element = 'view';
    },
    'users/permission.json': (d) => (d.filters.can_view.field = 'name'),
  });
  expect(faultLines(dir)).toEqual([
    line(dir, 'dcim/interface.json', '/filters/cabled/element', 'element is for holds filters'),
    line(dir, 'dcim/interface.json', '/filters/kind', '"no-such-type" is not a choice of type'),
    line(dir, 'users/permission.json', '/filters/can_view', 'holds needs a list of text or choices at name'),
  ]);
});

test('files that cannot be read as definitions are all told, before any reference is followed', () => {
  const dir = spoiled({
    'ipam/vlan.json': (d) => {
      delete d.brief;
      d.fields.vid.type = 'number';
    },
    'dcim/site.json': (d) => (d.display = '{nowhere}'),
  });
  fs.writeFileSync(path.join(dir, 'ipam/prefix.json'), '{"app": "ipam",');
  const kinds = (JSON.parse(fs.readFileSync(path.join(ROOT, 'schema/model.schema.json'), 'utf8')) as Json).definitions.Field.properties.type.enum as string[];
  const lines = faultLines(dir);
  // The parser's own words after "not valid JSON: " are Node's.
  expect(lines[0]).toMatch(/^.*ipam\/prefix.json:\/: not valid JSON: /);
  expect(lines.slice(1)).toEqual([
    line(dir, 'ipam/vlan.json', '/', 'missing "brief"'),
    line(dir, 'ipam/vlan.json', '/fields/vid/type', `must be one of ${kinds.map((k) => `"${k}"`).join(', ')}`),
  ]);
});

describe('patchbay check', () => {
  test('the definitions of the repository check clean', () => {
    const r = runCli(['check']);
    expect([r.status, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toMatch(/^\d+ definitions checked, no errors\n$/);
  });

  test('a broken folder: every line on stderr, a count, exit 1, no stack', () => {
    const dir = spoiled({
      'dcim/site.json': (d) => (d.fields.facility.host_bits = 'clear'),
      'ipam/vlan.json': (d) => (d.display = '{name} {colour}'),
    });
    const r = runCli(['check'], { PATCHBAY_SCHEMA_DIR: dir });
    const rel = (f: string) => path.relative(ROOT, path.join(dir, f));
    expect([r.status, r.stdout, r.stderr]).toEqual([
      1,
      '',
      [
        `${rel('dcim/site.json')}:/fields/facility/host_bits: "host_bits" is not an option of a string field`,
        `${rel('ipam/vlan.json')}:/display: "{colour}": ipam.vlan has no field "colour"`,
        '2 errors in the definitions',
        '',
      ].join('\n'),
    ]);
  });

  test('makemigrations refuses the same folder with the same lines', () => {
    const dir = spoiled({ 'ipam/vlan.json': (d) => d.unique_together.push(['name', 'group']) });
    const migrations = fs.mkdtempSync(path.join(os.tmpdir(), 'patchbay-faults-migrations-'));
    made.push(migrations);
    const r = runCli(['makemigrations'], { PATCHBAY_SCHEMA_DIR: dir, PATCHBAY_MIGRATIONS_DIR: migrations });
    expect([r.status, r.stdout, r.stderr]).toEqual([
      1,
      '',
      `${path.relative(ROOT, path.join(dir, 'ipam/vlan.json'))}:/unique_together/2: redundant: the same set as /unique_together/1 (group, name)\npatchbay: 1 error in the definitions\n`,
    ]);
    expect(fs.readdirSync(migrations)).toEqual([]);
  });
});

test('a path through a generic relation followed back: its conditions name choices the rows hold, and target_filters build on every type pointed at', () => {
  const dir = spoiled({
    'dcim/interface.json': (d) => {
      d.filters.connected = { field: 'path_ends(end=middle).path.is_active', lookup: 'is_set' };
      d.filters.cabled_end = { field: 'cable(cable_end=A).id', lookup: 'field' };
      d.filters.contact_x = { field: 'contacts.contact', lookup: 'fk_id' };
    },
    'tenancy/contact-assignment.json': (d) => (d.fields.object.target_filters.contact_nowhere = { field: 'contacts.nowhere', lookup: 'fk_id' }),
    'dcim/cable-termination.json': (d) => (d.fields.termination.target_filters.cable_end.lookups = ['ic']),
  });
  expect(faultLines(dir)).toEqual([
    line(dir, 'dcim/cable-termination.json', '/fields/termination/target_filters/cable_end', 'on dcim.interface: cable_terminations.cable_end has no lookup ic (it has exact, n)'),
    line(dir, 'dcim/interface.json', '/filters/connected', 'middle is not a choice of dcim.cablepathend.end (path path_ends(end=middle).path.is_active)'),
    line(dir, 'dcim/interface.json', '/filters/cabled_end', 'a condition (cable_end=A) may follow only a generic relation of another model followed back by its related_name (path cable(cable_end=A).id)'),
    line(dir, 'dcim/interface.json', '/filters/contact_x', 'dcim.interface has no field contacts (path contacts.contact)'),
    line(dir, 'tenancy/contact-assignment.json', '/fields/object/target_filters/contact_nowhere', 'on circuits.circuit: tenancy.contactassignment has no field nowhere (path contacts.nowhere)'),
  ]);
});

test('between, net_within_object and when are refused where they cannot work', () => {
  const dir = spoiled({
    'ipam/ip-range.json': (d) => {
      d.filters.contains = { field: 'start_address', lookup: 'between' };
      d.filters.inside = { field: 'start_address', upper: 'description', lookup: 'between' };
    },
    'ipam/fhrp-group.json': (d) => (d.filters.related_ip.same = ['nowhere']),
    'dcim/interface.json': (d) => {
      d.filters.virtual_chassis_member.when = { 'device.nowhere': { mgmt_only: false } };
      d.filters.virtual_chassis_member_id.when['device.virtual_chassis.members.id'] = { mgmt_only: 'no' };
    },
  });
  expect(faultLines(dir)).toEqual([
    line(dir, 'dcim/interface.json', '/filters/virtual_chassis_member', 'when names device.nowhere, which is not one of its paths'),
    line(dir, 'dcim/interface.json', '/filters/virtual_chassis_member_id', 'when: "no" is not a value of mgmt_only'),
    line(dir, 'ipam/fhrp-group.json', '/filters/related_ip', 'same: nowhere is not a stored field of both ipam.ipaddress and ipam.ipaddress'),
    line(dir, 'ipam/ip-range.json', '/filters/contains', 'between needs "upper": the path of the upper bound'),
    line(dir, 'ipam/ip-range.json', '/filters/inside', 'start_address and description are of different kinds'),
  ]);
});

test('a type declaring a filter a generic relation pointing at it also gives it is refused', () => {
  const dir = spoiled({ 'dcim/site.json': (d) => (d.filters.contact = { field: 'name', lookup: 'field' }) });
  expect(faultLines(dir)).toEqual([
    line(dir, 'dcim/site.json', '/filters', 'dcim.site: filter contact, given by a generic relation\'s target_filters, has the name of one of its own filters'),
  ]);
});

test('a duplicate rule is refused when its words cannot work: enforced_by on no boolean, an exempt value no choice, compare "value" on no address, a setting without enforced_by', () => {
  const dir = spoiled({
    'ipam/ip-address.json': (d) => {
      d.no_overlap[0].enforced_by = 'vrf.name';
      d.no_overlap.push({ start: 'address', end: 'address', within: ['vrf'], exempt: { role: ['anycast', 'unicorn'] }, message: 'x' });
    },
    'ipam/vlan.json': (d) => (d.no_overlap = [{ start: 'vid', end: 'vid', compare: 'value', message: 'x' }]),
    'ipam/prefix.json': (d) => delete d.no_overlap[0].enforced_by,
  });
  expect(faultLines(dir)).toEqual([
    line(dir, 'ipam/ip-address.json', '/no_overlap/0', 'ipam.ipaddress: no_overlap enforced_by vrf.name must end on a boolean field'),
    line(dir, 'ipam/ip-address.json', '/no_overlap/1', 'ipam.ipaddress: no_overlap exempt value "unicorn" is not a choice of role'),
    line(dir, 'ipam/prefix.json', '/no_overlap/0', 'ipam.prefix: no_overlap enforced_when_unset and message_when_unset need enforced_by'),
    line(dir, 'ipam/vlan.json', '/no_overlap/0', 'ipam.vlan: no_overlap compare "value" is for inet and cidr fields; vid is compared as stored already'),
  ]);
});

describe('filled_from_choice', () => {
  test('a part missing or not a number in some value of the set, and a field named that is no choice, each at its pointer', () => {
    const dir = spoiled({
      'dcim/interface.json': (d) => {
        d.fields.rf_channel_frequency.filled_from_choice.part = 4;
        d.fields.rf_channel_width.filled_from_choice.part = 0;
        d.fields.tx_power.filled_from_choice = { field: 'name', separator: '-', part: 0, message: 'm' };
      },
    });
    const rel = 'dcim/interface.json';
    expect(faultLines(dir)).toEqual(expect.arrayContaining([
      line(dir, rel, '/fields/rf_channel_frequency/filled_from_choice', 'dcim.interface.rf_channel_frequency: filled_from_choice: the choice 2.4g-1-2412-22 of wireless_channel has no part 4 that is a number'),
      line(dir, rel, '/fields/rf_channel_width/filled_from_choice', 'dcim.interface.rf_channel_width: filled_from_choice: the choice 2.4g-1-2412-22 of wireless_channel has no part 0 that is a number'),
      line(dir, rel, '/fields/tx_power/filled_from_choice', 'dcim.interface.tx_power: filled_from_choice: name is not a single choice field of dcim.interface'),
    ]));
  });

  test('on a string the word is refused by the definition language itself', () => {
    const dir = spoiled({ 'dcim/cable.json': (d) => (d.fields.label.filled_from_choice = { field: 'status', separator: '-', part: 0 }) });
    expect(faultLines(dir).some((l) => l.includes('dcim/cable.json') && l.includes('/fields/label'))).toBe(true);
  });
});

describe('sum_of', () => {
  test('a field that cannot be null, an unknown model, a via that is no foreign key here, a summed field that is no integer', () => {
    const sum = (over: Json) => ({ of: 'virtualization.virtualdisk', via: 'virtual_machine', field: 'size', message: 'm', ...over });
    const dir = spoiled({
      'virtualization/virtual-machine.json': (d) => {
        d.fields.vcpus = { type: 'integer', max: 10, sum_of: sum({}) };
        d.fields.memory.sum_of = sum({ of: 'virtualization.nothing' });
        d.fields.disk.sum_of = sum({ via: 'name' });
      },
      'virtualization/cluster.json': (d) => (d.fields._total = { type: 'integer', null: true, sum_of: { of: 'virtualization.virtualmachine', via: 'cluster', field: 'name', message: 'm' } }),
    });
    const vm = 'virtualization/virtual-machine.json';
    expect(faultLines(dir)).toEqual(expect.arrayContaining([
      line(dir, vm, '/fields/vcpus/sum_of', 'virtualization.virtualmachine.vcpus: sum_of: only a single integer field that may be null holds a sum (null when no row is left)'),
      line(dir, vm, '/fields/memory/sum_of', 'virtualization.virtualmachine.memory: sum_of: unknown model virtualization.nothing'),
      line(dir, vm, '/fields/disk/sum_of', 'virtualization.virtualmachine.disk: sum_of: name is not a foreign key of virtualization.virtualdisk to virtualization.virtualmachine'),
      line(dir, 'virtualization/cluster.json', '/fields/_total/sum_of', 'virtualization.cluster._total: sum_of: name is not a single integer field of virtualization.virtualmachine'),
    ]));
  });
});
