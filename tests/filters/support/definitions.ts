/**
 * The definitions as written: every schema/<app>/<model>.json read with JSON.parse, and the few facts
 * the filter tests need spelled out here from the words of the files and of docs/model-authors.md,
 * never through the engine's resolver: what a relation points at, which models are trees, a model's
 * natural key, which fields are stored. The oracle (filter-plan.ts) and the object factory work on
 * these, so an engine that resolves a definition wrongly disagrees with them instead of agreeing.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Field as FieldDef, ModelDefinition } from '../../../engine/definitions/generated/model-definition';
// Only to name the tables the factory writes to directly (storage naming, not anything filters do).
import { sqlName } from '../../../engine/migrations/identifiers';

export type FieldKind = FieldDef['type'];

export interface Field {
  name: string;
  kind: FieldKind;
  def: FieldDef;
  model: Model;
  /** The column holding the value (a foreign key's `<name>_id`); null for kinds stored elsewhere or nowhere. */
  column: string | null;
  nullable: boolean;
  required: boolean;
  readOnly: boolean;
  writeOnly: boolean;
  array: boolean;
  /** choice fields and computed fields with a choice set: the values in the order written. */
  choices?: { values: Array<string | number>; numeric: boolean };
  /** fk, m2m and tags: the model pointed at. */
  target?: Model;
  /** generic_fk: the models its list names that are defined. */
  genericTargets?: Model[];
  /** generic_fk: the names of its type and id (API fields, filters and columns alike). */
  typeColumn?: string;
  idColumn?: string;
  /** m2m and tags: the link table. */
  joinTable?: string;
  /** children: the child model and its foreign key to this one. */
  children?: { model: Model; via: Field };
  /** reverse_generic: the model whose generic relation `via` points at this one. */
  reverse?: { model: Model; via: Field };
}

export interface Model {
  /** `<app>.<model>` */
  label: string;
  app: string;
  name: string;
  path: string;
  table: string;
  def: ModelDefinition;
  fields: Map<string, Field>;
  /** In the order written (a tree's implicit parent first). */
  fieldList: Field[];
  tree: boolean;
  /** created shown as a date, as a timestamp, or no timestamps at all. */
  timestamps: false | 'date' | 'datetime';
  /** Whether it has last_updated (not with "timestamps": "created"). */
  lastUpdated: boolean;
  /** Served by a list endpoint. */
  exposed: boolean;
  /** Foreign keys of any model that point at this one. */
  reverse: Field[];
  /** Many-to-many fields of any model that link to this one. */
  reverseLinks: Field[];
  /** Generic relations of any model that may point at this one (followed back by related_name; their target_filters are this model's). */
  reverseGenerics: Field[];
  modelByLabel(label: string): Model | undefined;
  /** The model playing an engine role (content_type, tag...), if any. */
  modelWithRole(role: string): Model | undefined;
  /** Every model of the definitions. */
  allModels(): Model[];
}

export interface Definitions {
  models: Map<string, Model>;
  /** Models with a list endpoint, in the order of the files (app folders, then file names, sorted). */
  listed: Model[];
}

export const SCHEMA_DIR = path.resolve(__dirname, '..', '..', '..', 'schema');

/** Kinds with no column of their own (docs/model-authors.md, "Column": none, a join table, or two columns). */
const COLUMNLESS = new Set<FieldKind>(['computed', 'tags', 'm2m', 'count', 'generic_fk', 'alias', 'config_context', 'children', 'reverse_generic', 'link_peers', 'related', 'net_count']);
/** Kinds the API only reads (docs/model-authors.md, "Written as": read-only). */
const READ_ONLY = new Set<FieldKind>(['computed', 'count', 'alias', 'config_context', 'reverse_generic', 'link_peers', 'related', 'net_count']);

function readFiles(dir: string): ModelDefinition[] {
  const out: ModelDefinition[] = [];
  for (const app of fs.readdirSync(dir).sort()) {
    const appDir = path.join(dir, app);
    if (!fs.statSync(appDir).isDirectory()) continue;
    for (const file of fs.readdirSync(appDir).sort()) {
      if (file.endsWith('.json')) out.push(JSON.parse(fs.readFileSync(path.join(appDir, file), 'utf8')) as ModelDefinition);
    }
  }
  return out;
}

/** Reads every definition file under `dir` and links relations by the labels written in them. */
export function readDefinitions(dir = SCHEMA_DIR): Definitions {
  const files = readFiles(dir);
  const models = new Map<string, Model>();
  const choiceSets = new Map<string, Array<string | number>>();
  for (const def of files) {
    for (const [name, entries] of Object.entries(def.choice_sets ?? {})) choiceSets.set(name, entries.map(([value]) => value));
    const label = `${def.app}.${def.model}`;
    models.set(label, {
      label,
      app: def.app,
      name: def.model,
      path: def.path,
      table: sqlName(def.app, def.model),
      def,
      fields: new Map(),
      fieldList: [],
      tree: def.tree === true,
      // "timestamps": true or absent: created is a date; "datetime": a timestamp; "created": a timestamp and no last_updated; false: neither.
      timestamps: def.timestamps === false ? false : def.timestamps === 'datetime' || def.timestamps === 'created' ? 'datetime' : 'date',
      lastUpdated: def.timestamps !== false && def.timestamps !== 'created',
      exposed: def.exposed !== false,
      reverse: [],
      reverseLinks: [],
      reverseGenerics: [],
      modelByLabel: (l) => models.get(l),
      modelWithRole: (role) => [...models.values()].find((m) => m.def.role === role),
      allModels: () => [...models.values()],
    });
  }
  const tagModel = [...models.values()].find((m) => m.def.role === 'tag');
  const need = (label: string | undefined, what: string): Model => {
    const m = label ? models.get(label) : undefined;
    if (!m) throw new Error(`${what} names no defined model (${label ?? 'nothing'})`);
    return m;
  };

  for (const model of models.values()) {
    const entries = Object.entries(model.def.fields);
    // A tree nests under itself through a nullable parent, written or not (docs/model-authors.md, tree).
    if (model.tree && !model.def.fields.parent) entries.unshift(['parent', { type: 'fk', to: model.label, null: true, on_delete: 'cascade', related_name: 'children' }]);
    for (const [name, def] of entries) {
      const field: Field = {
        name,
        kind: def.type,
        def,
        model,
        column: COLUMNLESS.has(def.type) ? null : def.type === 'fk' ? `${name}_id` : name,
        nullable: def.null === true,
        required: def.required === true,
        readOnly: def.read_only === true || READ_ONLY.has(def.type),
        writeOnly: def.write_only === true || def.type === 'password',
        array: def.array === true,
      };
      if (def.choices) {
        const values = choiceSets.get(def.choices);
        if (!values) throw new Error(`${model.label}.${name}: no choice set ${def.choices}`);
        field.choices = { values, numeric: values.every((v) => typeof v === 'number') };
      }
      if (def.type === 'fk' || def.type === 'm2m') field.target = need(def.to as string, `${model.label}.${name}`);
      if (def.type === 'tags') field.target = need(tagModel?.label, `${model.label}.${name} (tags need a model with role tag)`);
      if (def.type === 'm2m' || def.type === 'tags') field.joinTable = sqlName(model.table, name);
      if (def.type === 'generic_fk') {
        // {"feature": X}: every type whose own file lists X among its features (docs/model-authors.md, features);
        // "*": every change-logged type that is not private (the change log's changed_object).
        const given = def.to;
        const all = [...models.values()];
        const to = Array.isArray(given) ? given
          : typeof given === 'object' ? all.filter((m) => m.def.features?.includes(given.feature)).map((m) => m.label)
          : given === '*' ? all.filter((m) => m.def.change_logged !== false && m.def.private !== true).map((m) => m.label)
          : [given ?? ''];
        field.genericTargets = to.flatMap((l) => models.get(l) ?? []);
        field.typeColumn = def.type_field ?? `${name}_type`;
        field.idColumn = def.id_field ?? `${name}_id`;
      }
      model.fields.set(name, field);
      model.fieldList.push(field);
    }
  }
  for (const model of models.values()) {
    for (const field of model.fieldList) {
      if (field.kind === 'fk') field.target!.reverse.push(field);
      if (field.kind === 'm2m') field.target!.reverseLinks.push(field);
      if (field.kind === 'generic_fk') for (const target of field.genericTargets ?? []) target.reverseGenerics.push(field);
      if (field.kind === 'children' || field.kind === 'reverse_generic') {
        const of = need(field.def.of, `${model.label}.${field.name}`);
        const via = of.fields.get(field.def.via ?? '');
        if (!via) throw new Error(`${model.label}.${field.name}: ${of.label} has no field ${field.def.via ?? ''}`);
        if (field.kind === 'children') field.children = { model: of, via };
        else field.reverse = { model: of, via };
      }
    }
  }
  return { models, listed: [...models.values()].filter((m) => m.exposed) };
}

/**
 * The field other models' filters name an object of this model by (site=<slug>, vrf=<rd>): the
 * definition's natural_key, else slug, else name (docs/filtering.md, "Relations"); only a stored field.
 */
export function naturalKey(model: Model): Field | undefined {
  const name = model.def.natural_key ?? (model.fields.has('slug') ? 'slug' : model.fields.has('name') ? 'name' : undefined);
  const field = name ? model.fields.get(name) : undefined;
  return field?.column ? field : undefined;
}

/** The API address of a model's list. */
export function urlOf(model: Model): string {
  return `/api/${model.app}/${model.path}/`;
}

/**
 * The labels a names_type field may hold, as its definition words them (docs/model-authors.md,
 * names_type): types of the definitions, private ones only when allowed, with a field of the kind
 * `having` names when it names one.
 */
export function typeLabelsFor(field: Field): string[] {
  const want = field.def.names_type ?? {};
  const all = [...readDefinitions().models.values()];
  return all
    .filter((m) => (want.private || !m.def.private) && (!want.having || m.fieldList.some((f) => f.kind === want.having)))
    .map((m) => m.label)
    .sort();
}
