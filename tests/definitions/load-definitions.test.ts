import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadDefinitions } from '../../engine/definitions/load-definitions';
import { resolveRegistry } from '../../engine/definitions/resolve-registry';
import { DefinitionError } from '../../engine/definitions/definition-error';
import { loadApplications } from '../../engine/definitions/load-applications';
import { loadRegistry } from '../../engine/boot';

/**
 * A bad model definition must fail at load time with the file's path, the JSON pointer of the fault and
 * the reason. Each case writes a temporary schema directory (the real meta-schema plus crafted files).
 */

const ROOT = path.resolve(__dirname, '..', '..');
const META = path.join(ROOT, 'schema', 'model.schema.json');
const made: string[] = [];

afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

/** files: relative path under the schema dir -> JSON value (or raw text). */
function schemaDir(files: Record<string, unknown>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'patchbay-defs-'));
  made.push(dir);
  fs.copyFileSync(META, path.join(dir, 'model.schema.json'));
  fs.copyFileSync(path.join(ROOT, 'schema', 'applications.schema.json'), path.join(dir, 'applications.schema.json'));
  for (const [rel, content] of Object.entries(files)) {
    const file = path.join(dir, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  }
  return dir;
}

/** A minimal valid definition, to be spoiled one way per case. */
function widget(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    app: 'dcim',
    model: 'widget',
    path: 'widgets',
    display: '{name}',
    fields: {
      name: { type: 'string', max_length: 100, required: true },
      status: { type: 'choice', choices: 'widget_status', default: 'active' },
    },
    choice_sets: { widget_status: [['active', 'Active'], ['retired', 'Retired']] },
    brief: ['id', 'url', 'display', 'name'],
    ordering: ['name'],
    ...over,
  };
}

function withField(name: string, def: unknown): Record<string, unknown> {
  const w = widget();
  return { ...w, fields: { ...(w.fields as object), [name]: def } };
}

function load(dir: string) {
  return resolveRegistry(loadDefinitions(dir));
}

/** Runs the loader and returns the DefinitionError it must throw. */
function failure(dir: string): DefinitionError {
  let caught: unknown;
  try {
    load(dir);
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(DefinitionError);
  return caught as DefinitionError;
}

function expectFault(dir: string, rel: string, pointer: string, reason: RegExp): void {
  const err = failure(dir);
  // The path names the crafted file (relative to the working directory, so it resolves back to it).
  expect(path.resolve(process.cwd(), err.file)).toBe(path.join(dir, rel));
  expect(err.pointer).toBe(pointer);
  expect(err.reason).toMatch(reason);
  // And the message a person reads carries all three.
  expect(err.message).toContain(err.file);
  expect(err.message).toContain(`:${pointer || '/'}: `);
  expect(err.message).toContain(err.reason);
}

test('the real schema/ directory loads and resolves every file', () => {
  const registry = load(path.join(ROOT, 'schema'));
  const files = fs
    .readdirSync(path.join(ROOT, 'schema'), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => fs.readdirSync(path.join(ROOT, 'schema', d.name)).filter((f) => f.endsWith('.json')));
  expect(registry.models.size).toBe(files.length);
  expect(registry.models.get('ipam.prefix')?.path).toBe('prefixes');
  expect(registry.byPath.get('ipam/ip-addresses')?.label).toBe('ipam.ipaddress');
  expect(registry.models.get('ipam.prefix')?.fields.get('site')?.target?.label).toBe('dcim.site');
});

test('the minimal crafted model is itself valid (so each case below fails for its one fault)', () => {
  const registry = load(schemaDir({ 'dcim/widget.json': widget() }));
  expect(registry.models.get('dcim.widget')?.brief).toEqual(['id', 'url', 'display', 'name']);
});

test('unknown field type', () => {
  const dir = schemaDir({ 'dcim/widget.json': withField('size', { type: 'bignum' }) });
  expectFault(dir, 'dcim/widget.json', '/fields/size/type', /^must be one of "string", "text", /);
});

test('missing required top-level key', () => {
  const w = widget();
  delete w.brief;
  const dir = schemaDir({ 'dcim/widget.json': w });
  expectFault(dir, 'dcim/widget.json', '', /^missing "brief"$/);
});

test('unknown key inside a field', () => {
  const dir = schemaDir({ 'dcim/widget.json': withField('size', { type: 'integer', maxlength: 3 }) });
  expectFault(dir, 'dcim/widget.json', '/fields/size/maxlength', /^"maxlength" is not an option of an integer field$/);
});

test('unknown foreign key target', () => {
  const dir = schemaDir({ 'dcim/widget.json': withField('site', { type: 'fk', to: 'dcim.nowhere', null: true, on_delete: 'protect' }) });
  expectFault(dir, 'dcim/widget.json', '/fields/site/to', /unknown model "dcim\.nowhere"/);
});

test('a named validator fits its field: a relation\'s for a foreign key, a value\'s for a stored value; any other is refused, as is an unknown one', () => {
  expectFault(schemaDir({ 'dcim/widget.json': withField('size', { type: 'integer', validators: ['ipv4'] }) }), 'dcim/widget.json', '/fields/size/validators/0', /unknown validator "ipv4" for a value field/);
  expectFault(
    schemaDir({ 'dcim/widget.json': withField('parent_widget', { type: 'fk', to: 'dcim.widget', null: true, on_delete: 'set_null', validators: ['condition_set'] }) }),
    'dcim/widget.json',
    '/fields/parent_widget/validators/0',
    /unknown validator "condition_set" for an fk field/,
  );
  expectFault(schemaDir({ 'dcim/widget.json': withField('sites', { type: 'm2m', to: 'dcim.widget', validators: ['condition_set'] }) }), 'dcim/widget.json', '/fields/sites/validators', /^"validators" is not an option of an m2m field$/);
  expectFault(
    schemaDir({ 'dcim/widget.json': withField('parent_widget', { type: 'fk', to: 'dcim.widget', null: true, on_delete: 'set_null', validators: ['no_such_rule'] }) }),
    'dcim/widget.json',
    '/fields/parent_widget/validators/0',
    /unknown validator/,
  );
});

test('foreign key without on_delete, and set_null on a non-null fk', () => {
  expectFault(schemaDir({ 'dcim/widget.json': withField('parent_widget', { type: 'fk', to: 'dcim.widget', null: true }) }), 'dcim/widget.json', '/fields/parent_widget/on_delete', /on_delete/);
  expectFault(
    schemaDir({ 'dcim/widget.json': withField('parent_widget', { type: 'fk', to: 'dcim.widget', on_delete: 'set_null' }) }),
    'dcim/widget.json',
    '/fields/parent_widget/on_delete',
    /set_null needs "null": true/,
  );
});

test('unknown choice set', () => {
  const dir = schemaDir({ 'dcim/widget.json': withField('colour', { type: 'choice', choices: 'no_such_set' }) });
  expectFault(dir, 'dcim/widget.json', '/fields/colour/choices', /unknown choice set "no_such_set"/);
});

test('choice default outside its set', () => {
  const dir = schemaDir({ 'dcim/widget.json': withField('status', { type: 'choice', choices: 'widget_status', default: 'gone' }) });
  expectFault(dir, 'dcim/widget.json', '/fields/status/default', /"gone" is not in choice set widget_status/);
});

test('a conditional check naming an unknown path, or a value outside the choice set of its path', () => {
  const note = { type: 'string', max_length: 10, blank: true };
  const at = (check: Record<string, unknown>) => schemaDir({ 'dcim/widget.json': { ...withField('note', note), checks: [{ field: 'note', message: 'm', ...check }] } });
  expectFault(at({ only_when: { colour: ['red'] } }), 'dcim/widget.json', '/checks/0/only_when/colour', /"colour" is not a stored field/);
  expectFault(at({ required_when: { status: ['active', 'gone'] } }), 'dcim/widget.json', '/checks/0/required_when/status/1', /"gone" is not in choice set widget_status/);
  expect(load(at({ only_when: { status: ['retired'] } })).models.get('dcim.widget')!.def.checks).toHaveLength(1);
});

test('brief naming an unknown field', () => {
  const dir = schemaDir({ 'dcim/widget.json': widget({ brief: ['id', 'url', 'name', 'colour'] }) });
  expectFault(dir, 'dcim/widget.json', '/brief/3', /unknown field "colour"/);
});

test('ordering and search naming unknown fields', () => {
  expectFault(schemaDir({ 'dcim/widget.json': widget({ ordering: ['-weight'] }) }), 'dcim/widget.json', '/ordering/0', /unknown field "weight"/);
  expectFault(schemaDir({ 'dcim/widget.json': widget({ search: ['name', 'colour'] }) }), 'dcim/widget.json', '/search/1', /"colour"/);
});

test('unique_together naming an unknown field', () => {
  const dir = schemaDir({ 'dcim/widget.json': widget({ unique_together: [['name', 'colour']] }) });
  expectFault(dir, 'dcim/widget.json', '/unique_together/0/1', /"colour" is not a stored field/);
});

test('unknown computed and display functions', () => {
  expectFault(
    schemaDir({ 'dcim/widget.json': withField('weight', { type: 'computed', fn: 'no_such_fn', from: ['name'] }) }),
    'dcim/widget.json',
    '/fields/weight/fn',
    /unknown computed function "no_such_fn"/,
  );
  expectFault(schemaDir({ 'dcim/widget.json': widget({ display: { fn: 'no_such_display' } }) }), 'dcim/widget.json', '/display/fn', /unknown display function/);
});

test('count via a field that is not a foreign key to the model', () => {
  const dir = schemaDir({
    'dcim/widget.json': withField('gadget_count', { type: 'count', of: 'dcim.gadget', via: 'name' }),
    'dcim/gadget.json': { ...widget({ model: 'gadget', path: 'gadgets', choice_sets: {} }), fields: { name: { type: 'string', max_length: 10 } } },
  });
  expectFault(dir, 'dcim/widget.json', '/fields/gadget_count/via', /"name" is not a foreign key of dcim\.gadget to dcim\.widget/);
});

test('related with pick: pick names a foreign key of the related rows, row_as needs pick', () => {
  const gadget = { ...widget({ model: 'gadget', path: 'gadgets', choice_sets: {} }), fields: {
    name: { type: 'string', max_length: 10 },
    holder: { type: 'fk', to: 'dcim.widget', null: true, on_delete: 'set_null' },
    held: { type: 'fk', to: 'dcim.widget', null: true, on_delete: 'set_null' },
  } };
  const field = (over: Record<string, unknown>) => ({ type: 'related', of: 'dcim.gadget', via: 'held', single: true, ...over });
  const ok = schemaDir({ 'dcim/widget.json': withField('holder_widget', field({ pick: 'holder', row_as: 'gadget' })), 'dcim/gadget.json': gadget });
  const rows = load(ok).models.get('dcim.widget')!.fields.get('holder_widget')!.relatedRows!;
  expect([rows.pick?.name, rows.rowAs]).toEqual(['holder', 'gadget']);
  expectFault(schemaDir({ 'dcim/widget.json': withField('x', field({ pick: 'name' })), 'dcim/gadget.json': gadget }), 'dcim/widget.json', '/fields/x/pick', /"name" is not a foreign key of dcim\.gadget/);
  expectFault(schemaDir({ 'dcim/widget.json': withField('x', field({ row_as: 'gadget' })), 'dcim/gadget.json': gadget }), 'dcim/widget.json', '/fields/x/row_as', /needs pick/);
});

test('a check with excludes judges a boolean field, against stored paths or reverse_generic fields', () => {
  const check = (over: Record<string, unknown>) => widget({ fields: { ...(widget().fields as object), flag: { type: 'boolean', default: false } }, checks: [{ field: 'flag', excludes: ['name'], message: 'no', ...over }] });
  expect(load(schemaDir({ 'dcim/widget.json': check({}) })).models.get('dcim.widget')).toBeDefined();
  expectFault(schemaDir({ 'dcim/widget.json': check({ field: 'name' }) }), 'dcim/widget.json', '/checks/0/field', /"name" is not a boolean field/);
  expectFault(schemaDir({ 'dcim/widget.json': check({ excludes: ['nothing'] }) }), 'dcim/widget.json', '/checks/0/excludes/0', /"nothing" is not a stored field/);
});

test('a field named like an engine-provided one', () => {
  const dir = schemaDir({ 'dcim/widget.json': withField('display', { type: 'string' }) });
  expectFault(dir, 'dcim/widget.json', '/fields/display', /provided by the engine/);
});

test('duplicate path within an app', () => {
  const dir = schemaDir({
    'dcim/gadget.json': widget({ model: 'gadget', choice_sets: {}, fields: { name: { type: 'string', max_length: 10 } } }),
    'dcim/widget.json': widget(),
  });
  // Files load in name order: gadget claims dcim/widgets first, so the widget file is at fault.
  expectFault(dir, 'dcim/widget.json', '/path', /path dcim\/widgets is used twice/);
});

test('duplicate model and duplicate choice set', () => {
  expectFault(
    schemaDir({ 'dcim/a-widget.json': widget({ path: 'a-widgets', choice_sets: {} }), 'dcim/widget.json': widget() }),
    'dcim/widget.json',
    '/model',
    /model dcim\.widget is defined twice/,
  );
  expectFault(
    schemaDir({ 'dcim/gadget.json': widget({ model: 'gadget', path: 'gadgets' }), 'dcim/widget.json': widget() }),
    'dcim/widget.json',
    '/choice_sets/widget_status',
    /defined twice/,
  );
});

test('folder and app mismatch', () => {
  const dir = schemaDir({ 'ipam/widget.json': widget() });
  expectFault(dir, 'ipam/widget.json', '/app', /app "dcim" does not match folder "ipam"/);
});

test('invalid JSON', () => {
  const dir = schemaDir({ 'dcim/widget.json': '{"app": "dcim", "model": "widget",, }' });
  expectFault(dir, 'dcim/widget.json', '', /not valid JSON/);
});

test('a value of the wrong type deep inside a file', () => {
  const dir = schemaDir({ 'dcim/widget.json': widget({ choice_sets: { widget_status: [['active', 7]] } }) });
  expectFault(dir, 'dcim/widget.json', '/choice_sets/widget_status/0/1', /must be string/);
});

test('display template naming an unknown field', () => {
  const dir = schemaDir({ 'dcim/widget.json': widget({ display: '{name} ({colour})' }) });
  expectFault(dir, 'dcim/widget.json', '/display', /^"\{colour\}": dcim.widget has no field "colour"$/);
});

test('display placeholders through foreign keys: each step a foreign key, the last a stored field of what it reaches', () => {
  const gadget = (display: string) =>
    widget({ model: 'gadget', path: 'gadgets', display, choice_sets: {}, fields: { name: { type: 'string', max_length: 100, required: true }, widget: { type: 'fk', to: 'dcim.widget', on_delete: 'protect' } } });
  expect(load(schemaDir({ 'dcim/widget.json': widget(), 'dcim/gadget.json': gadget('{widget.name}: {name}') })).models.get('dcim.gadget')).toBeDefined();
  expectFault(schemaDir({ 'dcim/widget.json': widget(), 'dcim/gadget.json': gadget('{widget.colour}') }), 'dcim/gadget.json', '/display', /^"\{widget.colour\}": dcim.widget has no field "colour"$/);
  expectFault(schemaDir({ 'dcim/widget.json': widget(), 'dcim/gadget.json': gadget('{name.x}') }), 'dcim/gadget.json', '/display', /^"\{name.x\}": "name" is not a foreign key of dcim.gadget$/);
});

test('write alias for an unknown field', () => {
  const dir = schemaDir({ 'dcim/widget.json': widget({ write_aliases: { label: 'colour' } }) });
  expectFault(dir, 'dcim/widget.json', '/write_aliases/label', /unknown field "colour"/);
});

describe('applications (schema/applications.json)', () => {
  const apps = (applications: Record<string, unknown>) => ({ 'applications.json': { applications } });
  const loadWithApps = (dir: string) => resolveRegistry(loadDefinitions(dir), loadApplications(dir));

  function appFault(dir: string, pointer: string, reason: RegExp, file = 'applications.json'): void {
    let caught: unknown;
    try {
      loadWithApps(dir);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(DefinitionError);
    const err = caught as DefinitionError;
    expect(path.resolve(process.cwd(), err.file)).toBe(path.join(dir, file));
    expect(err.pointer).toBe(pointer);
    expect(err.reason).toMatch(reason);
  }

  test('the applications are listed in the file\'s order, with their views', () => {
    const dir = schemaDir({ 'dcim/widget.json': widget(), ...apps({ plugins: { views: { 'installed-plugins': { view: 'installed_plugins', listed: true } } }, dcim: { description: 'Data centres.' } }) });
    const registry = loadWithApps(dir);
    expect(registry.applications.map((a) => [a.name, a.description])).toEqual([['plugins', ''], ['dcim', 'Data centres.']]);
    expect(registry.applications[0]!.views.get('installed-plugins')).toEqual({ view: 'installed_plugins', listed: true, options: {} });
  });

  test('without the file, the applications are the folders that hold models', () => {
    const registry = load(schemaDir({ 'dcim/widget.json': widget() }));
    expect(registry.applications.map((a) => a.name)).toEqual(['dcim']);
  });

  test('a model of an application the file does not list', () => {
    appFault(schemaDir({ 'dcim/widget.json': widget(), ...apps({ ipam: {} }) }), '/app', /application "dcim" is not listed in/, 'dcim/widget.json');
  });

  test('an unknown view', () => {
    appFault(schemaDir({ 'dcim/widget.json': widget(), ...apps({ dcim: { views: { gadgets: 'no_such_view' } } }) }), '/applications/dcim/views/gadgets', /unknown view "no_such_view"/);
  });

  test('a view on a path an object type serves', () => {
    appFault(schemaDir({ 'dcim/widget.json': widget(), ...apps({ dcim: { views: { widgets: 'installed_plugins' } } }) }), '/applications/dcim/views/widgets', /already served by/);
  });

  test('an unknown key in an application', () => {
    appFault(schemaDir({ 'dcim/widget.json': widget(), ...apps({ dcim: { models: [] } }) }), '/applications/dcim/models', /^unknown property "models"$/);
  });
});

describe('detail actions', () => {
  test('an unknown detail action stops startup at its pointer', () => {
    const dir = schemaDir({ 'dcim/widget.json': widget({ detail_actions: { frobnicate: 'no_such_action' } }) });
    let caught: unknown;
    try {
      loadRegistry(dir);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(DefinitionError);
    expect((caught as DefinitionError).pointer).toBe('/detail_actions/frobnicate');
    expect((caught as DefinitionError).reason).toMatch(/unknown detail action "no_such_action"/);
  });

  test('a detail action written with options names its action', () => {
    const dir = schemaDir({ 'dcim/widget.json': widget({ detail_actions: { frobnicate: { options: {} } } }) });
    // oneOf reports the first branch it tried: the name alone must be a string.
    expectFault(dir, 'dcim/widget.json', '/detail_actions/frobnicate', /^missing "action"$/);
  });

  test('a segment cannot be both a list action and a detail action', () => {
    const dir = schemaDir({ 'dcim/widget.json': widget({ list_actions: { provision: 'provision_token' }, detail_actions: { provision: 'x' } }) });
    expectFault(dir, 'dcim/widget.json', '/detail_actions/provision', /is a list action too/);
  });
});
