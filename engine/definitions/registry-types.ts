import type { Field, ModelDefinition } from './generated/model-definition';

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

/** A field after resolution: its definition plus everything derived from it once at startup. */
export interface ResolvedField {
  name: string;
  kind: FieldKind;
  def: Field;
  label: string;
  model: ResolvedModel;
  /** The stored column (fk: `<name>_id`); null for fields without one of their own (computed, tags, m2m, count). */
  column: string | null;
  nullable: boolean;
  required: boolean;
  readOnly: boolean;
  writeOnly: boolean;
  array: boolean;
  choices?: ChoiceSet;
  /** fk, m2m and tags: the related model. */
  target?: ResolvedModel;
  /** generic_fk: the types it may point at (those of its list this registry defines; never a private one). Columns `<name>_type` and `<name>_id`. */
  genericTargets?: ResolvedModel[];
  /** names_type: the string (or each string of the list) is the label of a type of the registry, of this sort. */
  namesType?: { having?: FieldKind; private: boolean };
  /** generic_fk: the columns (and API fields) holding the type label and the id. */
  typeColumn?: string;
  idColumn?: string;
  /** m2m and tags: the join table (source_id, target_id). */
  joinTable?: string;
  /** children: rows of another model attached to this object, each naming an object through its generic relation. */
  children?: { model: ResolvedModel; via: ResolvedField; generic: ResolvedField; where: Record<string, string | number | boolean> };
  /** reverse_generic and link_peers: the rows of another model whose generic relation points at this object. */
  reverse?: { model: ResolvedModel; via: ResolvedField; pick?: ResolvedField; group?: ResolvedField; side?: ResolvedField };
  /** alias: the field whose value this one repeats (read-only). */
  aliasOf?: ResolvedField;
  /** alias: the field shown instead when aliasOf is unset. */
  aliasOr?: ResolvedField;
  /** count and related: the model whose rows point here, and its fk doing so. */
  countOf?: { model: ResolvedModel; via: ResolvedField };
  /** net_count: the network field, the fields counted rows share with this one, and which way to count. */
  netCount?: { net: ResolvedField; same: ResolvedField[]; direction: 'children' | 'depth' };
  /** count with `"of": "*"`: the link fields (tags, many-to-many) of every model that point here. */
  countAcross?: ResolvedField[];
  /** related: fixed column values of the rows listed, and the fields shown of each (brief form when absent). */
  relatedRows?: { where: Record<string, string | number | boolean>; shows?: ResolvedField[] };
}

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
  reverse: ResolvedField[];
  /** created is rendered as a date ('date') or a timestamp ('datetime'); false: no timestamps. */
  timestamps: false | 'date' | 'datetime';
  tree: boolean;
  writeAliases: Map<string, string>;
  /** Served over the API (false for engine-internal state such as sessions). */
  exposed: boolean;
  /** Any model of the same registry by label (declared filters naming another model, such as available_on's `of`). */
  modelByLabel: (label: string) => ResolvedModel | undefined;
  /** A foreign key to the user role: non-superusers see and write only their own objects. */
  ownerField?: ResolvedField;
  /** With ownerField: what every user may do with their own objects without a grant (NetBox's DEFAULT_PERMISSIONS). */
  ownerMay: ReadonlySet<string>;
  /** Security state (users, tokens, sessions...): no generic relation may point at it, no type-naming field may name it unless allowed. */
  private: boolean;
}

export interface Registry {
  models: Map<string, ResolvedModel>;
  /** `<app>/<path>` -> model */
  byPath: Map<string, ResolvedModel>;
  choiceSets: Map<string, ChoiceSet>;
  /** The model playing each engine role (tag, user, token, custom_field). */
  roles: Map<ModelRole, ResolvedModel>;
}

export type ModelRole = NonNullable<ModelDefinition['role']>;
