import type { Field, ModelDefinition } from './generated/model-definition';
import { checkInstantiateRules } from './check-instantiate';
import { hasColumn, type ChoiceSet, type ChoiceValue, type ColumnField, type FieldDraft, type FieldKind, type FkField, type LinkField, type ModelRole, type Registry, type ResolvedField, type ResolvedModel } from './registry-types';
import { DefinitionError } from './definition-error';
import { FaultCollector } from './fault-collector';
import { checkModelSense } from './model-sense';
import { referenceProblem, templateProblems } from './template-references';
import type { LoadedDefinition } from './load-definitions';
import type { Application } from './load-applications';
import { sqlName } from '../migrations/identifiers';
import { hasNamedFunction, hasListAction, hasAppView } from './named-functions';
import { hasValidator } from '../validation/named-validators';
import { hasValueValidator } from '../validation/value-validators';
import { jsonSchemaProblem } from '../validation/json-schema-check';
import { isConcealed } from './concealed-fields';

/** Fields every model has whether or not its file names them. */
export const IMPLICIT_FIELDS = ['id', 'url', 'display'] as const;

/** Fields that hold no column of their own. */
const COLUMNLESS: ReadonlySet<string> = new Set(['computed', 'tags', 'm2m', 'count', 'generic_fk', 'alias', 'config_context', 'children', 'reverse_generic', 'link_peers', 'related', 'net_count']);

function labelFor(name: string): string {
  const words = name.replace(/_id$/, '').split('_').filter(Boolean);
  const text = words.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * Turns loaded definitions into the registry: every cross-reference checked, every derived fact computed
 * once. `applications` (schema/applications.json) lists the applications; without it they are the apps
 * the models name, in name order. Faults go to `faults` when given (the caller throws them with its
 * own), else every fault found is thrown at the end, together.
 */
export function resolveRegistry(loaded: LoadedDefinition[], applications?: { file: string; applications: Application[] } | null, faults?: FaultCollector): Registry {
  const own = faults ?? new FaultCollector();
  const registry: Registry = { models: new Map(), byPath: new Map(), choiceSets: new Map(), roles: new Map(), applications: resolveApplications(loaded, applications ?? null, own) };
  const files = new Map<string, string>();

  for (const { file, def } of loaded) {
    for (const [name, entries] of Object.entries(def.choice_sets ?? {})) {
      if (registry.choiceSets.has(name)) own.add(file, `/choice_sets/${name}`, `choice set "${name}" is defined twice`);
      else registry.choiceSets.set(name, makeChoiceSet(name, entries));
    }
    const label = `${def.app}.${def.model}`;
    if (registry.models.has(label)) {
      own.add(file, '/model', `model ${label} is defined twice`);
      continue;
    }
    const model = emptyModel(def, label, (l) => registry.models.get(l), file);
    const pathKey = `${def.app}/${def.path}`;
    if (registry.byPath.has(pathKey)) own.add(file, '/path', `path ${pathKey} is used twice`);
    registry.models.set(label, model);
    if (model.exposed && !registry.byPath.has(pathKey)) registry.byPath.set(pathKey, model);
    files.set(label, file);
    if (def.role) {
      if (registry.roles.has(def.role)) own.add(file, '/role', `role "${def.role}" is already played by ${registry.roles.get(def.role)!.label}`);
      else registry.roles.set(def.role, model);
    }
  }

  for (const model of registry.models.values()) resolveFields(model, registry, files.get(model.label)!, own);
  for (const model of registry.models.values()) resolveModelLists(model, files.get(model.label)!, registry, own);
  // Once every generic relation knows its targets (features and "*" included): each target lists it.
  for (const model of registry.models.values()) {
    for (const f of model.fieldList) if (f.kind === 'generic_fk') for (const t of f.genericTargets ?? []) t.reverseGenerics.push(f);
  }
  for (const [role, model] of registry.roles) checkRoleContract(role, model, files.get(model.label)!, own);
  // What a kind of field lacks once resolved is an engine fault, unless an earlier fault left it so.
  if (!own.count) for (const model of registry.models.values()) for (const field of model.fieldList) checkComplete(field);
  for (const model of registry.models.values()) checkInstantiateRules(registry, model, files.get(model.label)!, own);
  for (const model of registry.models.values()) checkModelSense(model, own);
  if (!faults) own.throwIfAny();
  return registry;
}

/** count and related fields: the model whose rows they count, until the relation doing so is resolved. */
const countOfModel = new WeakMap<FieldDraft, ResolvedModel>();
/** Generic relations whose "to" is "*": their targets are every change-logged type, known once all models are. */
const wildcardTargets = new WeakSet<FieldDraft>();

/**
 * A field is handed out (to its model's lists, to its target's reverse list) as soon as it is made, and
 * what its kind still lacks is filled in once every model's fields exist (resolveModelLists);
 * checkComplete then verifies each kind has what its type promises.
 */
function completedLater(draft: FieldDraft): ResolvedField {
  return draft as ResolvedField;
}

/** What each kind of field must have once resolved (registry-types: ResolvedField). */
const REQUIRED_EXTRAS: Partial<Record<FieldKind, ReadonlyArray<keyof FieldDraft>>> = {
  choice: ['choices'],
  fk: ['target'],
  m2m: ['target', 'joinTable'],
  tags: ['target', 'joinTable'],
  generic_fk: ['genericTargets', 'typeColumn', 'idColumn'],
  children: ['children'],
  reverse_generic: ['reverse'],
  link_peers: ['reverse'],
  alias: ['aliasOf'],
  related: ['countOf', 'relatedRows'],
  net_count: ['netCount'],
};

function checkComplete(field: FieldDraft): void {
  const missing = (REQUIRED_EXTRAS[field.kind] ?? []).filter((k) => field[k] === undefined);
  if (field.kind === 'count' && !field.countOf && !field.countAcross) missing.push('countOf');
  if (missing.length) throw new Error(`${field.model.label}.${field.name}: resolved without ${missing.join(', ')}`);
}

/** Filter options that belong to one lookup each. */
const FILTER_OPTION_LOOKUP = [['element', 'holds'], ['groups', 'choice_group'], ['rest', 'choice_group'], ['shared', 'usable_by_caller'], ['enabled', 'usable_by_caller']] as const;

function makeChoiceSet(name: string, entries: Array<[string | number, string]>): ChoiceSet {
  const list = entries.map(([value, label]) => ({ value, label }));
  return {
    name,
    entries: list,
    labels: new Map<ChoiceValue, string>(list.map((e) => [e.value, e.label])),
    numeric: list.every((e) => typeof e.value === 'number'),
  };
}

/** The applications: as applications.json lists them (every model's app among them), else the apps the models name. */
function resolveApplications(loaded: LoadedDefinition[], given: { file: string; applications: Application[] } | null, faults: FaultCollector): Application[] {
  if (!given) {
    const names = [...new Set(loaded.map((l) => l.def.app))].sort();
    return names.map((name) => ({ name, description: '', views: new Map() }));
  }
  const names = new Set(given.applications.map((a) => a.name));
  for (const { file, def } of loaded) {
    if (!names.has(def.app)) faults.add(file, '/app', `application "${def.app}" is not listed in ${given.file}`);
  }
  for (const app of given.applications) {
    for (const [segment, v] of app.views) {
      if (!hasAppView(v.view)) faults.add(given.file, `/applications/${app.name}/views/${segment}`, `unknown view "${v.view}"`);
      const clash = loaded.find((l) => l.def.app === app.name && l.def.path === segment);
      if (clash) faults.add(given.file, `/applications/${app.name}/views/${segment}`, `path ${app.name}/${segment} is already served by ${clash.file}`);
    }
  }
  return given.applications;
}

function emptyModel(def: ModelDefinition, label: string, modelByLabel: (label: string) => ResolvedModel | undefined, file: string): ResolvedModel {
  const verboseName = def.verbose_name ?? def.model;
  return {
    label,
    app: def.app,
    name: def.model,
    path: def.path,
    table: sqlName(def.app, def.model),
    def,
    verboseName,
    verboseNamePlural: def.verbose_name_plural ?? `${verboseName}s`,
    fields: new Map(),
    fieldList: [],
    brief: def.brief,
    ordering: [],
    search: def.search ?? [],
    uniques: [],
    reverse: [],
    reverseLinks: [],
    reverseGenerics: [],
    timestamps: def.timestamps === false ? false : def.timestamps === 'datetime' || def.timestamps === 'created' ? 'datetime' : 'date',
    lastUpdated: def.timestamps !== false && def.timestamps !== 'created',
    tree: def.tree === true,
    writeAliases: new Map(Object.entries(def.write_aliases ?? {})),
    detailActions: new Map(Object.entries(def.detail_actions ?? {}).map(([segment, a]) => [segment, typeof a === 'string' ? { action: a, options: {} } : { action: a.action, options: a.options ?? {} }])),
    file,
    exposed: def.exposed !== false,
    private: def.private === true,
    changeLogged: def.change_logged !== false,
    ownerMay: new Set(def.owner_may ?? []),
    modelByLabel,
  };
}

function resolveFields(model: ResolvedModel, registry: Registry, file: string, faults: FaultCollector): void {
  const def = model.def;
  const entries: Array<[string, Field]> = Object.entries(def.fields);
  if (model.tree && !def.fields.parent) {
    entries.unshift(['parent', { type: 'fk', to: model.label, null: true, on_delete: 'cascade', related_name: 'children' }]);
  }
  for (const [name, f] of entries) {
    const at = `/fields/${name}`;
    if ((IMPLICIT_FIELDS as readonly string[]).includes(name) || name === 'created' || name === 'last_updated' || (name === '_depth' && model.tree)) {
      faults.add(file, at, `"${name}" is provided by the engine and cannot be defined`);
      continue;
    }
    const field: FieldDraft = {
      name,
      kind: f.type,
      def: f,
      label: f.label ?? labelFor(name),
      model,
      column: COLUMNLESS.has(f.type) ? null : f.type === 'fk' ? `${name}_id` : name,
      nullable: f.null === true,
      required: f.required === true,
      readOnly: f.read_only === true || ['computed', 'count', 'alias', 'config_context', 'reverse_generic', 'link_peers', 'related', 'net_count'].includes(f.type),
      writeOnly: f.write_only === true || f.type === 'password',
      array: f.array === true,
    };
    // Handed out before it is checked: a field with a fault still exists for what names it, which is
    // then not reported as naming an unknown field.
    model.fields.set(name, completedLater(field));
    model.fieldList.push(completedLater(field));
    faults.attempt(file, at, () => resolveField(model, registry, file, name, f, field));
    if ((f.type === 'fk' || f.type === 'm2m' || f.type === 'tags') && field.target === undefined) {
      // Its target is unknown (a fault already kept): what follows it later fails because of that alone.
      Object.defineProperty(field, 'target', { get: () => void faults.followUnresolved(), enumerable: true });
    }
  }
  for (const [name, fn] of Object.entries(def.list_actions ?? {})) {
    if (!hasListAction(fn)) faults.add(file, `/list_actions/${name}`, `unknown list action "${fn}"`);
    if (model.detailActions.has(name)) faults.add(file, `/detail_actions/${name}`, `"${name}" is a list action too`);
  }
  if (typeof def.display === 'object' && !hasNamedFunction('display', def.display.fn)) {
    faults.add(file, '/display/fn', `unknown display function "${def.display.fn}"`);
  }
}

/** One field's own words and the models it names; the fields it names in its own model are checked once all exist. */
function resolveField(model: ResolvedModel, registry: Registry, file: string, name: string, f: Field, field: FieldDraft): void {
  const def = model.def;
  const at = `/fields/${name}`;
  if (f.type === 'choice' || (f.type === 'computed' && f.choices)) {
    const set = f.choices ? registry.choiceSets.get(f.choices) : undefined;
    if (!set) throw new DefinitionError(file, `${at}/choices`, `unknown choice set "${f.choices ?? ''}"`);
    field.choices = set;
    // A blank choice may default to "" (NetBox's blank=True CharField with choices: a console port's type).
    const blankDefault = f.default === '' && f.blank === true;
    if (f.default !== undefined && f.default !== null && !blankDefault && !set.labels.has(f.default as ChoiceValue)) {
      throw new DefinitionError(file, `${at}/default`, `default "${String(f.default)}" is not in choice set ${set.name}`);
    }
  }
  if (f.on_delete === 'keep' && f.type !== 'generic_fk') throw new DefinitionError(file, `${at}/on_delete`, 'keep is for generic_fk fields');
  if (f.type === 'fk' || f.type === 'm2m' || f.type === 'tags') {
    const to = f.type === 'tags' ? registry.roles.get('tag')?.label : f.to;
    if (typeof to !== 'string') {
      throw new DefinitionError(file, `${at}/to`, f.type === 'tags' ? 'tags need a model with "role": "tag"' : `${f.type} needs "to": "<app>.<model>"`);
    }
    const target = registry.models.get(to);
    if (!target) throw new DefinitionError(file, `${at}/to`, `unknown model "${to}"`);
    field.target = target;
    if (f.type === 'fk') {
      if (!f.on_delete) throw new DefinitionError(file, `${at}/on_delete`, 'a foreign key needs on_delete');
      if (f.on_delete === 'set_null' && !field.nullable) throw new DefinitionError(file, `${at}/on_delete`, 'set_null needs "null": true');
      target.reverse.push(completedLater(field) as FkField);
    } else {
      field.joinTable = sqlName(model.table, name);
      if (f.type === 'm2m') target.reverseLinks.push(completedLater(field) as LinkField);
      const tdef = target.def;
      if (f.by_key && !(tdef.natural_key ?? (tdef.fields.slug ? 'slug' : tdef.fields.name ? 'name' : undefined))) {
        throw new DefinitionError(file, `${at}/by_key`, `${to} has no natural key (slug, name or natural_key) to write and show its objects by`);
      }
    }
  }
  if (f.type === 'generic_fk') {
    field.typeColumn = f.type_field ?? `${name}_type`;
    field.idColumn = f.id_field ?? `${name}_id`;
    const to = f.to;
    if (to === '*') {
      // Every change-logged type, filled once every model exists (resolveModelLists); only a read-only
      // model may say so, as nothing can be written through such a relation.
      if (def.read_only !== true) throw new DefinitionError(file, `${at}/to`, '"*" is for a generic_fk of a read-only model');
      if (f.on_delete !== 'keep') throw new DefinitionError(file, `${at}/on_delete`, '"to": "*" needs "on_delete": "keep"');
      field.genericTargets = [];
      wildcardTargets.add(field);
      return;
    }
    if (typeof to === 'object' && !Array.isArray(to)) {
      // Every type offering the feature, whatever file declares it: a new type opts in from its own file.
      field.genericTargets = [...registry.models.values()].filter((m) => m.def.features?.includes(to.feature)).sort((a, b) => (a.label < b.label ? -1 : 1));
      for (const m of field.genericTargets) {
        if (m.private && f.allow_private !== true) throw new DefinitionError(m.file, '/features', `${m.label} is private: no generic relation may point at it, so it offers no ${to.feature}`);
      }
      return;
    }
    if (!Array.isArray(to) || !to.length) throw new DefinitionError(file, `${at}/to`, 'generic_fk needs "to": the list of <app>.<model> it may point at');
    // Types of the list this registry does not define yet are left out (a relation may name a type served later).
    field.genericTargets = to.map((l) => registry.models.get(l)).filter((m): m is ResolvedModel => !!m);
    to.forEach((l, i) => {
      if (registry.models.get(l)?.private && f.allow_private !== true) throw new DefinitionError(file, `${at}/to/${i}`, `${l} is private: no generic relation may point at it`);
    });
  }
  if (f.type === 'count' && f.of === '*') {
    // Filled once every model is resolved: every model's `via` links here.
    field.countAcross = [];
  } else if (f.type === 'count' || f.type === 'related') {
    const of = f.of ? registry.models.get(f.of) : undefined;
    if (!of) throw new DefinitionError(file, `${at}/of`, `unknown model "${f.of ?? ''}"`);
    // countOf is set once every model's fields are resolved, with the relation of `of` that points here.
    countOfModel.set(field, of);
  }
  if (f.type === 'computed' && (!f.fn || !hasNamedFunction('computed', f.fn))) {
    throw new DefinitionError(file, `${at}/fn`, `unknown computed function "${f.fn ?? ''}"`);
  }
  for (const [i, v] of (f.validators ?? []).entries()) {
    // A foreign key's validators judge the object it names; any other field's judge the written value.
    const known = f.type === 'fk' ? hasValidator(v) : hasValueValidator(v);
    if (!known) throw new DefinitionError(file, `${at}/validators/${i}`, `unknown validator "${v}" for a${f.type === 'fk' ? 'n fk' : ' value'} field`);
  }
  if (f.validators?.length && f.type !== 'fk' && !VALUE_KINDS.has(f.type)) {
    throw new DefinitionError(file, `${at}/validators`, 'validators judge the object a foreign key names, or the value a stored field is written');
  }
  if (f.default_fn && !hasNamedFunction('default', f.default_fn)) {
    throw new DefinitionError(file, `${at}/default_fn`, `unknown default function "${f.default_fn}"`);
  }
  if (f.type === 'choice' && field.choices === undefined) throw new DefinitionError(file, at, 'choice needs choices');
  if ((f.secret || f.type === 'password') && !model.private) {
    throw new DefinitionError(file, at, `${f.secret ? 'a secret' : 'a password'} field belongs to a private model: add "private": true`);
  }
  if (f.occupancy) {
    if (f.type !== 'inet' || f.array) throw new DefinitionError(file, `${at}/occupancy`, 'occupancy is counted for single inet fields');
    for (const [i, w] of (f.occupancy.within ?? []).entries()) {
      const other = def.fields[w];
      const stored = other && ['fk', 'string', 'slug', 'choice', 'integer', 'positive_integer', 'boolean'].includes(other.type) && !other.array;
      if (!stored) throw new DefinitionError(file, `${at}/occupancy/within/${i}`, `"${w}" is not a single fk, string, choice, integer or boolean field of ${def.app}.${def.model}`);
    }
  }
  if (f.index === 'trigram') {
    if (f.type !== 'string' || f.array) throw new DefinitionError(file, `${at}/index`, 'a trigram index is for single string fields');
    if (f.secret) throw new DefinitionError(file, `${at}/index`, 'a secret is never searched: it takes no trigram index');
    if (f.shown_with) throw new DefinitionError(file, `${at}/index`, 'a field shown only with an action is never searched: it takes no trigram index');
  }
  if (f.shown_with) {
    if (!field.column || f.array || f.write_only) throw new DefinitionError(file, `${at}/shown_with`, 'shown_with is for single stored fields that are shown');
    if (def.brief.includes(name)) throw new DefinitionError(file, `${at}/shown_with`, 'a field shown only with an action is never in the brief form');
  }
  if (f.media_type && (f.type !== 'string' || f.array)) throw new DefinitionError(file, `${at}/media_type`, 'media_type is for single string fields');
  if (f.index === 'containment' && f.type !== 'json') throw new DefinitionError(file, `${at}/index`, 'a containment index is for json fields');
  if (f.json_schema !== undefined) {
    if (f.type !== 'json') throw new DefinitionError(file, `${at}/json_schema`, 'json_schema is for json fields');
    const problem = jsonSchemaProblem(f.json_schema);
    if (problem) throw new DefinitionError(file, `${at}/json_schema`, problem);
  }
  if (f.by_key && f.type !== 'm2m') throw new DefinitionError(file, `${at}/by_key`, 'by_key is for m2m fields');
  if (f.filter_name !== undefined) {
    if (f.type !== 'm2m') throw new DefinitionError(file, `${at}/filter_name`, 'filter_name is for m2m fields');
    // The derived filters would shadow (or be shadowed by) another field's own filters.
    const others = Object.entries(def.fields).filter(([other]) => other !== name);
    const taken = [...others.flatMap(([other, o]) => [other, `${other}_id`, ...(o.filter_name ? [o.filter_name, `${o.filter_name}_id`] : [])]), ...Object.keys(def.filters ?? {})];
    if (taken.includes(f.filter_name) || taken.includes(`${f.filter_name}_id`)) {
      throw new DefinitionError(file, `${at}/filter_name`, `"${f.filter_name}" (or its _id) is the name of another filter of ${def.app}.${def.model}`);
    }
  }
  if (f.plain && f.type !== 'choice' && f.type !== 'fk') throw new DefinitionError(file, `${at}/plain`, 'plain is for choice and fk fields');
  if (f.type === 'image') {
    if (!f.upload_to) throw new DefinitionError(file, `${at}/upload_to`, 'an image field needs "upload_to": the folder under the media folder its files go in');
    if (f.array || f.secret || f.default !== undefined || f.default_fn) throw new DefinitionError(file, at, 'an image field holds one uploaded file: no array, secret or default');
  } else {
    for (const word of ['upload_to', 'height_field', 'width_field'] as const) {
      if (f[word] !== undefined) throw new DefinitionError(file, `${at}/${word}`, `${word} is for image fields`);
    }
  }
  if (f.names_type) {
    if (f.type !== 'string') throw new DefinitionError(file, `${at}/names_type`, 'names_type is for string fields');
    field.namesType = { having: f.names_type.having, private: f.names_type.private === true };
  }
}

/** Whether a dotted path of relations (fk, m2m, tags) from the model ends at the given model. */
function pathTarget(model: ResolvedModel, path: string, target: ResolvedModel): boolean {
  let current: ResolvedModel | undefined = model;
  for (const part of path.split('.')) {
    const f: ResolvedField | undefined = current?.fields.get(part);
    if (!f || !f.target || !['fk', 'm2m', 'tags'].includes(f.kind)) return false;
    current = f.target;
  }
  return current === target;
}

/** A display template's placeholder: {field} or {fk.field}. */
export const DISPLAY_PLACEHOLDER = /\{([a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)*)\}/g;

function resolveModelLists(model: ResolvedModel, file: string, registry: Registry, faults: FaultCollector): void {
  const def = model.def;
  const known = (name: string) =>
    model.fields.has(name) ||
    (IMPLICIT_FIELDS as readonly string[]).includes(name) ||
    (model.timestamps !== false && name === 'created') ||
    (model.lastUpdated && name === 'last_updated') ||
    (model.tree && name === '_depth') ||
    model.fieldList.some((f) => f.kind === 'generic_fk' && (f.typeColumn === name || f.idColumn === name));

  for (const resolved of model.fieldList) faults.attempt(file, `/fields/${resolved.name}`, () => resolveFieldLists(model, file, registry, resolved, known));
  const at = (pointer: string, fn: () => void) => faults.attempt(file, pointer, fn);
  at('/owner_field', () => {
    if (!def.owner_field) return;
    const owner = model.fields.get(def.owner_field);
    if (!owner || owner.kind !== 'fk' || owner.target?.def.role !== 'user') {
      throw new DefinitionError(file, '/owner_field', `"${def.owner_field}" is not a foreign key to the model with role user`);
    }
    model.ownerField = owner;
  });
  if (def.owner_may && !def.owner_field) faults.add(file, '/owner_may', 'owner_may needs owner_field');
  if (def.view_through !== undefined && model.fields.get(def.view_through)?.kind !== 'generic_fk') {
    faults.add(file, '/view_through', `"${def.view_through}" is not a generic relation of ${model.label}`);
  }
  if (def.read_only && def.list_actions && Object.keys(def.list_actions).length) faults.add(file, '/read_only', 'a read-only model has no list actions');
  def.brief.forEach((name, i) => {
    if (!known(name)) faults.add(file, `/brief/${i}`, `unknown field "${name}"`);
  });
  at('/display', () => {
    if (typeof def.display === 'string') for (const problem of templateProblems(model, def.display)) faults.add(file, '/display', problem);
    else (def.display.from ?? []).forEach((name, i) => {
      const problem = referenceProblem(model, name, [], true);
      if (problem) faults.add(file, `/display/from/${i}`, problem);
    });
  });
  (def.checks ?? []).forEach((c, i) => at(`/checks/${i}/message`, () => templateProblems(model, c.message, c.at_most !== undefined ? ['count'] : []).forEach((p) => faults.add(file, `/checks/${i}/message`, p))));
  (def.no_overlap ?? []).forEach((o, i) => at(`/no_overlap/${i}/message`, () => templateProblems(model, o.message, ['other']).forEach((p) => faults.add(file, `/no_overlap/${i}/message`, p))));
  (def.no_overlap ?? []).forEach((o, i) => {
    if (o.message_when_unset !== undefined) at(`/no_overlap/${i}/message_when_unset`, () => templateProblems(model, o.message_when_unset!, ['other']).forEach((p) => faults.add(file, `/no_overlap/${i}/message_when_unset`, p)));
  });
  for (const [alias, canonical] of model.writeAliases) {
    const target = model.fields.get(canonical);
    if (!target || target.readOnly) faults.add(file, `/write_aliases/${alias}`, `unknown field "${canonical}" (an alias names a writable field)`);
  }
  model.search.forEach((name, i) => at(`/search/${i}`, () => {
    const route = resolvePath(model, name);
    if (!route) faults.add(file, `/search/${i}`, `"${name}" is not a stored field or a path through foreign keys to one`);
    else if (route.field.def.secret) faults.add(file, `/search/${i}`, `"${name}" is secret: a secret is never searched`);
    else if (isConcealed(route.field)) faults.add(file, `/search/${i}`, `"${name}" is shown only with an action: it is never searched`);
  }));
  model.ordering = (def.ordering ?? []).flatMap((term, i) => {
    const descending = term.startsWith('-');
    const field = descending ? term.slice(1) : term;
    const ordered = model.fields.get(field);
    if (!known(field)) faults.add(file, `/ordering/${i}`, `unknown field "${field}"`);
    else if (ordered?.def.secret) faults.add(file, `/ordering/${i}`, `"${field}" is secret: a secret is never ordered by`);
    else if (ordered && isConcealed(ordered)) faults.add(file, `/ordering/${i}`, `"${field}" is shown only with an action: it is never ordered by`);
    else return [{ field, descending }];
    return [];
  });
  for (const field of model.fieldList) {
    if (field.def.unique) {
      if (!field.column) faults.add(file, `/fields/${field.name}/unique`, 'only stored fields can be unique');
      else model.uniques.push({ fields: [field.name], message: field.def.unique_message, nullsDistinct: true, constraint: sqlName(model.table, field.column, 'key'), whenNotNull: [], caseInsensitive: [] });
    }
  }
  (def.unique_together ?? []).forEach((u, i) => at(`/unique_together/${i}`, () => {
    const spec = Array.isArray(u) ? { fields: u, message: undefined, nulls_distinct: true, when_not_null: [] as string[], case_insensitive: [] as string[] } : u;
    let stored = true;
    spec.fields.forEach((name, j) => {
      if (storedColumns(model, name).length) return;
      stored = false;
      faults.add(file, `/unique_together/${i}/${Array.isArray(u) ? j : `fields/${j}`}`, `"${name}" is not a stored field`);
    });
    if (!stored) return;
    const columns = spec.fields.flatMap((n) => storedColumns(model, n));
    const whenNotNull = (spec.when_not_null ?? []).flatMap((n) => storedColumns(model, n));
    const caseInsensitive = (spec.case_insensitive ?? []).map((n, j) => {
      const f = model.fields.get(n);
      if (!spec.fields.includes(n) || !f?.column || !['string', 'text', 'slug'].includes(f.kind)) {
        throw new DefinitionError(file, `/unique_together/${i}/case_insensitive/${j}`, `"${n}" is not a text field of this set`);
      }
      return f.column;
    });
    model.uniques.push({ fields: spec.fields, message: spec.message, nullsDistinct: spec.nulls_distinct !== false, constraint: sqlName(model.table, ...columns, 'uniq'), whenNotNull, caseInsensitive });
  }));
  (def.checks ?? []).forEach((check, i) => at(`/checks/${i}`, () => checkConditionalCheck(model, file, i, check)));
  for (const [name, spec] of Object.entries(def.filters ?? {})) {
    if (spec.lookup === 'content_type_id' && !registry.roles.has('content_type')) faults.add(file, `/filters/${name}/lookup`, 'content_type_id needs a model with "role": "content_type" (the ids it filters by)');
    if (spec.empty_matches_all !== undefined && spec.lookup !== 'content_type_id') faults.add(file, `/filters/${name}/empty_matches_all`, 'empty_matches_all is for content_type_id filters');
    // The options of one lookup, given to another, would be ignored without a word.
    for (const [word, lookup] of FILTER_OPTION_LOOKUP) {
      if (spec[word] !== undefined && spec.lookup !== lookup) faults.add(file, `/filters/${name}/${word}`, `${word} is for ${lookup} filters`);
    }
  }
  for (const field of model.fieldList) {
    for (const word of ['height_field', 'width_field'] as const) {
      const name = field.def[word];
      const target = name === undefined ? undefined : model.fields.get(name);
      if (name !== undefined && (!target || (target.kind !== 'integer' && target.kind !== 'positive_integer') || !target.readOnly)) {
        faults.add(file, `/fields/${field.name}/${word}`, `"${name}" is not a read-only integer field of ${model.label} (the image sets it)`);
      }
    }
  }
}

/** What one field names in other models and its own, once every model's fields exist. */
function resolveFieldLists(model: ResolvedModel, file: string, registry: Registry, resolved: ResolvedField, known: (name: string) => boolean): void {
  const field: FieldDraft = resolved;
  const countedModel = countOfModel.get(field);
  if (field.kind === 'related' && countedModel) {
    const of = countedModel;
    const via = of.fields.get(field.def.via ?? '');
    // A foreign key to this model, or a generic relation that may point at it (an FHRP group's ip_addresses).
    if (!via || !((via.kind === 'fk' && via.target === model) || (via.kind === 'generic_fk' && via.genericTargets.includes(model)))) {
      throw new DefinitionError(file, `/fields/${field.name}/via`, `"${field.def.via ?? ''}" is not a foreign key or generic relation of ${of.label} to ${model.label}`);
    }
    field.countOf = { model: of, via };
    const where: Record<string, string | number | boolean> = {};
    for (const [k, v] of Object.entries(field.def.where ?? {})) {
      const f = of.fields.get(k);
      if (!f?.column) throw new DefinitionError(file, `/fields/${field.name}/where/${k}`, `"${k}" is not a stored field of ${of.label}`);
      where[f.column] = v;
    }
    const shows = field.def.shows?.map((n, i) => {
      const f = of.fields.get(n);
      if (!f || (!f.column && f.kind !== 'fk') || f.writeOnly) throw new DefinitionError(file, `/fields/${field.name}/shows/${i}`, `"${n}" is not a stored field or foreign key of ${of.label}`);
      return f;
    });
    // pick: each row stands for the object its foreign key names (a bay for the device holding it).
    let pick: FkField | undefined;
    if (field.def.pick !== undefined) {
      const f = of.fields.get(field.def.pick);
      if (f?.kind !== 'fk' || f.def.plain) throw new DefinitionError(file, `/fields/${field.name}/pick`, `"${field.def.pick}" is not a foreign key of ${of.label}`);
      if (shows) throw new DefinitionError(file, `/fields/${field.name}/pick`, 'pick shows the named object\'s brief form: it does not go with shows');
      pick = f;
    }
    if (field.def.row_as !== undefined && !pick) throw new DefinitionError(file, `/fields/${field.name}/row_as`, 'row_as adds the row to the object pick names: it needs pick');
    // or_via: a second foreign key of the same rows to this model (either end of a link).
    let orVia: FkField | undefined;
    if (field.def.or_via !== undefined) {
      const f = of.fields.get(field.def.or_via);
      if (f?.kind !== 'fk' || f.target !== model || via.kind !== 'fk') throw new DefinitionError(file, `/fields/${field.name}/or_via`, `"${field.def.or_via}" is not, beside via, a second foreign key of ${of.label} to ${model.label}`);
      orVia = f;
    }
    field.relatedRows = { where, shows, pick, rowAs: field.def.row_as, orVia };
  }
  if (field.kind === 'net_count') {
    const at = `/fields/${field.name}`;
    const net = model.fields.get(field.def.of ?? '');
    if (!net || (net.kind !== 'cidr' && net.kind !== 'inet')) throw new DefinitionError(file, `${at}/of`, `"${field.def.of ?? ''}" is not a cidr or inet field of ${model.label}`);
    if (field.def.as !== 'children' && field.def.as !== 'depth') throw new DefinitionError(file, `${at}/as`, 'net_count needs "as": children or depth');
    const same = (field.def.same ?? []).map((n, i) => {
      const f = model.fields.get(n);
      if (!f?.column) throw new DefinitionError(file, `${at}/same/${i}`, `"${n}" is not a stored field of ${model.label}`);
      return f;
    });
    field.netCount = { net, same, direction: field.def.as };
  }
  if (field.kind === 'generic_fk' && wildcardTargets.has(field)) {
    field.genericTargets = [...registry.models.values()].filter((m) => m.changeLogged && !m.private).sort((a, b) => a.label.localeCompare(b.label));
  }
  if (field.kind === 'count' && field.countAcross) {
    const name = field.def.via ?? '';
    field.countAcross = [...registry.models.values()].flatMap((m) => m.fieldList.filter((x): x is LinkField => (x.kind === 'm2m' || x.kind === 'tags') && x.name === name && x.target === model));
    if (!field.countAcross.length) throw new DefinitionError(file, `/fields/${field.name}/via`, `no model has a many-to-many or tags field "${name}" to ${model.label}`);
  }
  if (field.kind === 'count' && countedModel) {
    const via = countedModel.fields.get(field.def.via ?? '');
    const counts = via && (via.kind === 'generic_fk' ? via.genericTargets.includes(model) : (via.kind === 'fk' || via.kind === 'm2m') && via.target === model);
    if (!via || !counts || (via.kind !== 'generic_fk' && via.kind !== 'fk' && via.kind !== 'm2m')) {
      throw new DefinitionError(file, `/fields/${field.name}/via`, `"${field.def.via ?? ''}" is not a foreign key of ${countedModel.label} to ${model.label}`);
    }
    field.countOf = { model: countedModel, via };
  }
  if (field.kind === 'children' || field.kind === 'reverse_generic' || field.kind === 'link_peers') {
    const at = `/fields/${field.name}`;
    const of = registry.models.get(field.def.of ?? '');
    if (!of) throw new DefinitionError(file, `${at}/of`, `unknown model "${field.def.of ?? ''}"`);
    const via = of.fields.get(field.def.via ?? '');
    const sub = (name: string | undefined, key: string) => {
      const f = name ? of.fields.get(name) : undefined;
      if (name && !f) throw new DefinitionError(file, `${at}/${key}`, `${of.label} has no field "${name}"`);
      return f;
    };
    if (field.kind === 'children') {
      if (!via || via.kind !== 'fk' || via.target !== model) throw new DefinitionError(file, `${at}/via`, `"${field.def.via ?? ''}" is not a foreign key of ${of.label} to ${model.label}`);
      const generic = sub(field.def.generic, 'generic');
      if (!generic || generic.kind !== 'generic_fk') throw new DefinitionError(file, `${at}/generic`, `"${field.def.generic ?? ''}" is not a generic relation of ${of.label}`);
      const where: Record<string, string | number | boolean> = {};
      for (const [k, v] of Object.entries(field.def.where ?? {})) {
        const f = sub(k, `where/${k}`)!;
        if (!f.column) throw new DefinitionError(file, `${at}/where/${k}`, `"${k}" is not stored`);
        where[f.column] = v;
      }
      field.children = { model: of, via, generic, where };
    } else {
      if (!via || via.kind !== 'generic_fk') throw new DefinitionError(file, `${at}/via`, `"${field.def.via ?? ''}" is not a generic relation of ${of.label}`);
      // link_peers: `where` keeps only this object's own rows that match (a path's origin row, not the rows naming it as another path's destination).
      const where: Record<string, string | number | boolean> = {};
      for (const [k, v] of Object.entries(field.def.where ?? {})) {
        const f = sub(k, `where/${k}`)!;
        if (!f.column) throw new DefinitionError(file, `${at}/where/${k}`, `"${k}" is not stored`);
        where[f.column] = v;
      }
      field.reverse = { model: of, via, pick: sub(field.def.pick, 'pick'), group: sub(field.def.group, 'group'), side: sub(field.def.side, 'side'), where };
      if (field.kind === 'link_peers' && (!field.reverse.group?.column || !field.reverse.side?.column)) {
        throw new DefinitionError(file, at, 'link_peers needs "group" and "side" fields');
      }
      if (field.def.or_link !== undefined) {
        // or_link: without a row of `of`, the object at the other end of a link row (path_node kind link) joining this one.
        const link = registry.models.get(field.def.or_link);
        const node = link?.def.path_node;
        const a = node?.a ? link!.fields.get(node.a) : undefined;
        const b = node?.b ? link!.fields.get(node.b) : undefined;
        if (field.kind !== 'link_peers' || node?.kind !== 'link' || a?.kind !== 'fk' || b?.kind !== 'fk' || a.target !== model || b.target !== model) {
          throw new DefinitionError(file, `${at}/or_link`, `"${field.def.or_link}" is not a model of path_node kind link whose ends are ${model.label}`);
        }
        field.reverse.orLink = { model: link!, a: a as FkField, b: b as FkField };
      }
    }
  }
  if (field.kind === 'alias') {
    const of = model.fields.get(field.def.of ?? '');
    if (!of || of.kind === 'alias') throw new DefinitionError(file, `/fields/${field.name}/of`, `"${field.def.of ?? ''}" is not a field of ${model.label}`);
    field.aliasOf = of;
    if (field.def.or) {
      const or = model.fields.get(field.def.or);
      if (!or || or.kind === 'alias') throw new DefinitionError(file, `/fields/${field.name}/or`, `"${field.def.or}" is not a field of ${model.label}`);
      field.aliasOr = or;
    }
  }
  if (field.kind === 'config_context') {
    const cc = registry.roles.get('config_context');
    if (!cc) throw new DefinitionError(file, `/fields/${field.name}`, 'config_context needs a model with "role": "config_context"');
    for (const [assign, path] of Object.entries(field.def.match ?? {})) {
      const f = cc.fields.get(assign);
      if (!f || f.kind !== 'm2m') throw new DefinitionError(file, `/fields/${field.name}/match/${assign}`, `${cc.label} has no many-to-many field "${assign}"`);
      if (!pathTarget(model, path, f.target)) throw new DefinitionError(file, `/fields/${field.name}/match/${assign}`, `"${path}" does not lead to ${f.target.label}`);
    }
    const local = field.def.local ? model.fields.get(field.def.local) : undefined;
    if (field.def.local && local?.kind !== 'json') throw new DefinitionError(file, `/fields/${field.name}/local`, `"${field.def.local}" is not a json field`);
  }
  if (field.kind === 'computed') {
    for (const src of field.def.from ?? []) {
      if (!known(src)) throw new DefinitionError(file, `/fields/${field.name}/from`, `unknown field "${src}"`);
    }
  }
  }

/**
 * only_when / required_when: the path they name reaches a stored field, and a choice field's values are among its
 * choices. excludes: its field is a boolean of the model, and each path a stored field or a reverse_generic field.
 */
function checkConditionalCheck(model: ResolvedModel, file: string, i: number, check: NonNullable<ModelDefinition['checks']>[number]): void {
  if (check.excludes) {
    if (model.fields.get(check.field ?? '')?.kind !== 'boolean') throw new DefinitionError(file, `/checks/${i}/field`, `"${check.field ?? ''}" is not a boolean field of ${model.label}: excludes judges a flag`);
    check.excludes.forEach((path, j) => {
      if (model.fields.get(path)?.kind === 'reverse_generic') return;
      if (!resolvePath(model, path)) throw new DefinitionError(file, `/checks/${i}/excludes/${j}`, `"${path}" is not a stored field, a path through foreign keys to one, or a reverse_generic field`);
    });
  }
  if (check.at_most !== undefined || check.per !== undefined) {
    const per = model.fields.get(check.per ?? '');
    if (check.at_most === undefined || !per?.column || per.array) throw new DefinitionError(file, `/checks/${i}/per`, `"${check.per ?? ''}" is not a single stored field of ${model.label}: at_most counts the rows sharing its value`);
  }
  if (check.when && check.at_most === undefined) throw new DefinitionError(file, `/checks/${i}/when`, 'when is the condition of an at_most cap');
  for (const word of ['only_when', 'required_when', 'when'] as const) {
    const spec = check[word];
    if (!spec) continue;
    const [path, values] = Object.entries(spec)[0]!;
    const route = resolvePath(model, path);
    if (!route) throw new DefinitionError(file, `/checks/${i}/${word}/${path}`, `"${path}" is not a stored field or a path through foreign keys to one`);
    const choices = route.field.choices;
    values.forEach((v, j) => {
      if (choices && !choices.labels.has(v as ChoiceValue)) throw new DefinitionError(file, `/checks/${i}/${word}/${path}/${j}`, `"${String(v)}" is not in choice set ${choices.name}`);
    });
  }
}

/**
 * The model a generic relation's stored type label names, when the relation may point at it; a label
 * outside its list (stored before the list was narrowed) names nothing, so it is never rendered.
 */
export function genericTarget(field: ResolvedField, label: unknown): ResolvedModel | undefined {
  return field.genericTargets?.find((m) => m.label === label);
}

/** The columns a field is stored in: one, two for a generic relation (type and id), none for the rest. */
export function storedColumns(model: ResolvedModel, name: string): string[] {
  const f = model.fields.get(name);
  if (!f) return [];
  if (f.kind === 'generic_fk') return [f.typeColumn, f.idColumn];
  return f.column ? [f.column] : [];
}

/** Follows a dotted path (site.region.slug) through foreign keys to a stored field. */
export function resolvePath(model: ResolvedModel, path: string): { model: ResolvedModel; field: ColumnField; via: FkField[] } | null {
  const parts = path.split('.');
  let current = model;
  const via: FkField[] = [];
  for (let i = 0; i < parts.length; i++) {
    const f = current.fields.get(parts[i]!);
    if (!f) return null;
    if (i === parts.length - 1) return hasColumn(f) ? { model: current, field: f, via } : null;
    if (f.kind !== 'fk') return null;
    via.push(f);
    current = f.target;
  }
  return null;
}

/** Kinds whose written value a value validator may judge (a single stored value, as written). */
const VALUE_KINDS = new Set<string>(['string', 'text', 'slug', 'integer', 'positive_integer', 'boolean', 'decimal', 'float', 'date', 'datetime', 'json', 'choice', 'cidr', 'inet', 'mac']);

/** Fields (and kinds) a model must have to play a role, because engine code reads them. */
const ROLE_CONTRACTS: Record<ModelRole, Record<string, FieldKind[]>> = {
  tag: { name: ['string'], slug: ['slug'], object_types: ['string'] },
  user: { username: ['string'], password: ['password'], is_active: ['boolean'], is_superuser: ['boolean'] },
  token: { user: ['fk'], key: ['string'], write_enabled: ['boolean'], expires: ['datetime'], last_used: ['datetime'], allowed_ips: ['cidr'] },
  custom_field: { name: ['string'], type: ['choice'], content_types: ['string'], filter_logic: ['choice'] },
  permission: { enabled: ['boolean'], object_types: ['string'], actions: ['choice'], constraints: ['json'], users: ['m2m'], groups: ['m2m'] },
  session: { key: ['string'], user: ['fk'], csrf_token: ['string'], expires: ['datetime'] },
  login_failure: { username: ['string'], address: ['string'] },
  config_context: { name: ['string'], weight: ['positive_integer', 'integer'], is_active: ['boolean'], data: ['json'] },
  custom_field_choice_set: { name: ['string'], base_choices: ['choice'], extra_choices: ['json'], order_alphabetically: ['boolean'] },
  content_type: { app_label: ['string'], model: ['string'] },
  export_template: { name: ['string'], content_types: ['string'], template_code: ['text'], mime_type: ['string'], file_extension: ['string'], as_attachment: ['boolean'] },
  saved_filter: { slug: ['slug'], parameters: ['json'], content_types: ['string'], enabled: ['boolean'], shared: ['boolean'], user: ['fk'] },
  config_template: { name: ['string'], template_code: ['text'], environment_params: ['json'] },
  event_rule: { content_types: ['string'], type_create: ['boolean'], type_update: ['boolean'], type_delete: ['boolean'], enabled: ['boolean'], conditions: ['json'], action_type: ['choice'], action_object: ['generic_fk'] },
  webhook: { payload_url: ['string'], http_method: ['choice'], http_content_type: ['string'], additional_headers: ['text'], body_template: ['text'], secret: ['string'], ssl_verification: ['boolean'], ca_file_path: ['string'] },
  event_outbox: { time: ['datetime'], event_rule: ['fk'], webhook: ['fk'], event: ['choice'], object: ['generic_fk'], request_id: ['string'], username: ['string'], data: ['json'], snapshots: ['json'], status: ['choice'], attempts: ['positive_integer', 'integer'], next_attempt: ['datetime'], lease_until: ['datetime'], response_status: ['integer'], last_error: ['text'], delivered: ['datetime'] },
  object_change: { time: ['datetime'], user: ['fk'], user_name: ['string'], request_id: ['string'], action: ['choice'], changed_object: ['generic_fk'], object_repr: ['string'], prechange_data: ['json'], postchange_data: ['json'] },
};

function checkRoleContract(role: ModelRole, model: ResolvedModel, file: string, faults: FaultCollector): void {
  for (const [name, kinds] of Object.entries(ROLE_CONTRACTS[role])) {
    const f = model.fields.get(name);
    if (!f || !kinds.includes(f.kind)) faults.add(file, `/fields/${name}`, `role "${role}" needs a ${kinds.join(' or ')} field "${name}"`);
  }
}
