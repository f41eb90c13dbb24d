import type { Field, ModelDefinition } from './generated/model-definition';
import type { Application } from './load-applications';

export type { Application };

export type FieldKind = Field['type'];
export type ChoiceValue = string | number;

/** A named choice set: values in declaration order, each with its label. */
export interface ChoiceSet {
  name: string;
  entries: Array<{ value: ChoiceValue; label: string }>;
  labels: Map<ChoiceValue, string>;
  /** Whether the values are integers (stored as integer columns). */
  numeric: boolean;
}

/** What every resolved field has: its definition plus what is derived from it once at startup. */
interface FieldBase {
  name: string;
  def: Field;
  label: string;
  model: ResolvedModel;
  nullable: boolean;
  required: boolean;
  readOnly: boolean;
  writeOnly: boolean;
  array: boolean;
}

type Where = Record<string, string | number | boolean>;

/** What only some kinds of field have, by name; each kind's type says which it has (see Variant). */
interface KindExtras {
  /** choice (and a computed field with choices): the choice set. */
  choices: ChoiceSet;
  /** fk, m2m and tags: the related model. */
  target: ResolvedModel;
  /** m2m and tags: the join table (source_id, target_id). */
  joinTable: string;
  /** generic_fk: the types it may point at (those of its list this registry defines; never a private one). */
  genericTargets: ResolvedModel[];
  /** generic_fk: the columns (and API fields) holding the type label and the id. */
  typeColumn: string;
  idColumn: string;
  /** names_type: the string (or each string of the list) is the label of a type of the registry, of this sort. */
  namesType: { having?: FieldKind; private: boolean };
  /** children: rows of another model attached to this object, each naming an object through its generic relation. */
  children: { model: ResolvedModel; via: FkField; generic: GenericField; where: Where };
  /** reverse_generic and link_peers: the rows of another model whose generic relation points at this object. */
  reverse: { model: ResolvedModel; via: GenericField; pick?: ResolvedField; group?: ResolvedField; side?: ResolvedField; where: Where; orLink?: { model: ResolvedModel; a: FkField; b: FkField } };
  /** alias: the field whose value this one repeats (read-only). */
  aliasOf: ResolvedField;
  /** alias: the field shown instead when aliasOf is unset. */
  aliasOr: ResolvedField;
  /** count and related: the model whose rows point here, and its relation doing so. */
  countOf: { model: ResolvedModel; via: FkField | LinkField | GenericField };
  /** count with `"of": "*"`: the link fields (tags, many-to-many) of every model that point here. */
  countAcross: LinkField[];
  /** net_count: the network field, the fields counted rows share with this one, and which way to count. */
  netCount: { net: StoredField; same: ResolvedField[]; direction: 'children' | 'depth' };
  /**
   * related: fixed column values of the rows listed, and the fields shown of each (brief form when absent);
   * or the object a foreign key of the row names (pick), with the row itself under rowAs.
   */
  relatedRows: { where: Where; shows?: ResolvedField[]; pick?: FkField; rowAs?: string; orVia?: FkField };
}

/**
 * One kind (or kinds) of field: its column (null for fields without one of their own), the extras it
 * always has (Req), may have (Opt), and never has (typed undefined, so generic code may still ask).
 */
type Variant<K extends FieldKind, Col extends string | null, Req extends keyof KindExtras = never, Opt extends keyof KindExtras = never> = FieldBase & {
  kind: K;
  column: Col;
} & Pick<KindExtras, Req> & Partial<Pick<KindExtras, Opt>> & { [P in Exclude<keyof KindExtras, Req | Opt>]?: undefined };

/** Kinds stored in a column of their own with no extras but names_type. */
export type StoredKind = 'string' | 'text' | 'slug' | 'integer' | 'positive_integer' | 'boolean' | 'decimal' | 'float' | 'date' | 'datetime' | 'json' | 'cidr' | 'inet' | 'mac' | 'custom_fields' | 'password' | 'image';

export type StoredField = Variant<StoredKind, string, never, 'namesType'>;
export type ChoiceField = Variant<'choice', string, 'choices'>;
export type FkField = Variant<'fk', string, 'target'>;
export type LinkField = Variant<'m2m' | 'tags', null, 'target' | 'joinTable'>;
export type GenericField = Variant<'generic_fk', null, 'genericTargets' | 'typeColumn' | 'idColumn'>;
export type ComputedField = Variant<'computed', null, never, 'choices'>;
export type ChildrenField = Variant<'children', null, 'children'>;
export type ReverseField = Variant<'reverse_generic' | 'link_peers', null, 'reverse'>;
export type AliasField = Variant<'alias', null, 'aliasOf', 'aliasOr'>;
/** A count of rows pointing here (countOf), or of links from every model's field of a name (countAcross). */
export type CountField = Variant<'count', null, never, 'countOf' | 'countAcross'>;
export type RelatedField = Variant<'related', null, 'countOf' | 'relatedRows'>;
export type NetCountField = Variant<'net_count', null, 'netCount'>;
export type ConfigContextField = Variant<'config_context', null>;

/** A field with a column of its own. */
export type ColumnField = StoredField | ChoiceField | FkField;

export function hasColumn(f: ResolvedField): f is ColumnField {
  return f.column !== null;
}

/** A field after resolution, discriminated by kind: what a kind has is there without assertions. */
export type ResolvedField =
  | StoredField
  | ChoiceField
  | FkField
  | LinkField
  | GenericField
  | ComputedField
  | ChildrenField
  | ReverseField
  | AliasField
  | CountField
  | RelatedField
  | NetCountField
  | ConfigContextField;

/** A field as the registry builds it, before every kind's extras are filled in (engine/definitions only). */
export type FieldDraft = FieldBase & { kind: FieldKind; column: string | null } & Partial<KindExtras>;

export interface OrderTerm {
  field: string;
  descending: boolean;
}

export interface UniqueSet {
  fields: string[];
  message?: string;
  nullsDistinct: boolean;
  constraint: string;
  /** Columns that must be set for the rule to apply (a partial unique index). */
  whenNotNull: string[];
  /** Text columns compared by lower(...): the rule becomes a unique index on expressions. */
  caseInsensitive: string[];
}

export interface ResolvedModel {
  /** `<app>.<model>`, NetBox's content-type label. */
  label: string;
  app: string;
  name: string;
  path: string;
  table: string;
  def: ModelDefinition;
  verboseName: string;
  verboseNamePlural: string;
  fields: Map<string, ResolvedField>;
  /** Fields in definition order. */
  fieldList: ResolvedField[];
  brief: string[];
  ordering: OrderTerm[];
  search: string[];
  uniques: UniqueSet[];
  /** Foreign keys of other models (or this one) that point at this model. */
  reverse: FkField[];
  /** Many-to-many fields of other models (or this one) that link to this model (filter paths follow them back by related_name). */
  reverseLinks: LinkField[];
  /**
   * Generic relations of other models (or this one) that may point at this model: filter paths follow them
   * back by related_name (a site's contacts), and their target_filters become this model's filters.
   */
  reverseGenerics: GenericField[];
  /** created is rendered as a date ('date') or a timestamp ('datetime'); false: no timestamps. */
  timestamps: false | 'date' | 'datetime';
  /** Whether the model has last_updated (every model with timestamps, but one whose definition says "timestamps": "created"). */
  lastUpdated: boolean;
  tree: boolean;
  writeAliases: Map<string, string>;
  /** Served over the API (false for engine-internal state such as sessions). */
  exposed: boolean;
  /** Any model of the same registry by label (declared filters naming another model, such as available_on's `of`). */
  modelByLabel: (label: string) => ResolvedModel | undefined;
  /** A foreign key to the user role: non-superusers see and write only their own objects. */
  ownerField?: FkField;
  /** With ownerField: what every user may do with their own objects without a grant (NetBox's DEFAULT_PERMISSIONS). */
  ownerMay: ReadonlySet<string>;
  /** Security state (users, tokens, sessions...): no generic relation may point at it, no type-naming field may name it unless allowed. */
  private: boolean;
  /** Creates, updates and deletes are written to the change log by triggers (definition word change_logged, default true). */
  changeLogged: boolean;
  /** Endpoints under each object's detail path: path segment -> the named action and its options. */
  detailActions: Map<string, DetailActionUse>;
  /** The definition file, for errors found after the registry is built (a detail action's options). */
  file: string;
}

/** A detail action as a definition uses it: the engine's named action and the options given to it. */
export interface DetailActionUse {
  action: string;
  options: Record<string, unknown>;
}

export interface Registry {
  models: Map<string, ResolvedModel>;
  /** `<app>/<path>` -> model */
  byPath: Map<string, ResolvedModel>;
  choiceSets: Map<string, ChoiceSet>;
  /** The model playing each engine role (tag, user, token, custom_field). */
  roles: Map<ModelRole, ResolvedModel>;
  /** The applications, in the order the API root lists them. */
  applications: Application[];
}

export type ModelRole = NonNullable<ModelDefinition['role']>;
