import type {
  ColumnSpec,
  ForeignKeySpec,
  IndexSpec,
  RoutineSpec,
  StorageSnapshot,
  TableSpec,
  UniqueSpec,
} from './snapshot-types';

/**
 * One step that turns the database of one snapshot into the database of the next.
 * Drops carry the old definition so a migration header can say what went away.
 */
export type SchemaChange =
  | { kind: 'create_table'; table: string; columns: Record<string, ColumnSpec>; primaryKey: string[] }
  | { kind: 'drop_table'; table: string }
  | { kind: 'add_column'; table: string; column: string; spec: ColumnSpec }
  | { kind: 'drop_column'; table: string; column: string }
  | AlterColumn
  | { kind: 'add_unique'; table: string; name: string; spec: UniqueSpec }
  | { kind: 'drop_unique'; table: string; name: string; spec: UniqueSpec }
  | { kind: 'add_foreign_key'; table: string; name: string; spec: ForeignKeySpec }
  | { kind: 'drop_foreign_key'; table: string; name: string; spec: ForeignKeySpec }
  | { kind: 'add_index'; table: string; name: string; spec: IndexSpec }
  | { kind: 'drop_index'; table: string; name: string; spec: IndexSpec }
  | { kind: 'create_routine'; name: string; spec: RoutineSpec }
  | { kind: 'drop_routine'; name: string; spec: RoutineSpec }
  | { kind: 'create_extension'; name: string }
  | { kind: 'drop_extension'; name: string }
  | { kind: 'add_content_type'; table: string; label: string }
  | { kind: 'remove_content_type'; table: string; label: string };

/** The changes that touch a table (every kind but routines and extensions). */
export type TableChange = Exclude<SchemaChange, { kind: 'create_routine' | 'drop_routine' | 'create_extension' | 'drop_extension' | 'add_content_type' | 'remove_content_type' }>;

/** A column whose type, nullability, default or identity changed (any of them, one or several). */
export interface AlterColumn {
  kind: 'alter_column';
  table: string;
  column: string;
  from: ColumnSpec;
  to: ColumnSpec;
}

type Named<T> = { table: string; name: string; spec: T };

/**
 * The changes from prev to next, in an order PostgreSQL accepts: everything that could block a drop
 * goes first, and foreign keys come last so tables may reference themselves or each other.
 * Tables and constraints are sorted by name (code-unit order, not locale order, so every machine agrees);
 * columns keep the snapshot's order, which is the order CREATE TABLE would list them.
 */
export function diffSnapshots(prev: StorageSnapshot, next: StorageSnapshot): SchemaChange[] {
  checkSnapshot(next);
  const prevNames = sortedKeys(prev.tables);
  const nextNames = sortedKeys(next.tables);
  const dropped = prevNames.filter((t) => !(t in next.tables));
  const created = nextNames.filter((t) => !(t in prev.tables));
  const kept = nextNames.filter((t) => t in prev.tables);
  for (const t of kept) {
    if (!sameList(prev.tables[t]!.primaryKey, next.tables[t]!.primaryKey)) {
      throw new Error(`changing the primary key of table ${t} is not supported`);
    }
  }

  const uniques = compare(kept, prev, next, (t) => t.uniques, sameUnique);
  const indexes = compare(kept, prev, next, (t) => t.indexes, sameIndex);
  const fks = compare(kept, prev, next, (t) => t.foreignKeys, sameForeignKey);
  // A dropped table takes its own keys with it, but two dropped tables that reference each other
  // cannot be dropped one at a time, so their keys go first too.
  for (const t of dropped) fks.removed.push(...named(t, prev.tables[t]!.foreignKeys));
  // A foreign key needs a unique index on the columns it points at: dropping that unique drops the key
  // first and puts it back afterwards.
  for (const fk of fks.unchanged) {
    const target = fk.spec.references;
    if (uniques.removed.some((u) => u.table === target.table && sameSet(target.columns, u.spec.columns))) {
      fks.removed.push(fk);
      fks.added.push(fk);
    }
  }

  const routines = compareRoutines(prev.routines ?? {}, next.routines ?? {});
  const changes: SchemaChange[] = [];
  // An extension comes before the indexes that use it, and goes after them.
  const prevExtensions = prev.extensions ?? [];
  const nextExtensions = next.extensions ?? [];
  for (const name of nextExtensions) if (!prevExtensions.includes(name)) changes.push({ kind: 'create_extension', name });
  // Routines do not depend on tables, and no column default or index uses them, so they can go first and come last.
  for (const name of routines.removed) changes.push({ kind: 'drop_routine', name, spec: prev.routines![name]! });
  const types = compareContentTypes(prev, next);
  changes.push(...types.removed);
  for (const fk of sortNamed(fks.removed)) changes.push({ kind: 'drop_foreign_key', ...fk });
  const droppedConstraints: TableChange[] = [
    ...uniques.removed.map((u): TableChange => ({ kind: 'drop_unique', ...u })),
    ...indexes.removed.map((i): TableChange => ({ kind: 'drop_index', ...i })),
  ];
  changes.push(...droppedConstraints.sort(byTableThenName));
  for (const t of kept) {
    for (const column of Object.keys(prev.tables[t]!.columns)) {
      if (!(column in next.tables[t]!.columns)) changes.push({ kind: 'drop_column', table: t, column });
    }
  }
  for (const t of dropped) changes.push({ kind: 'drop_table', table: t });
  for (const t of created) {
    const spec = next.tables[t]!;
    changes.push({ kind: 'create_table', table: t, columns: spec.columns, primaryKey: spec.primaryKey });
  }
  for (const t of kept) changes.push(...columnChanges(t, prev.tables[t]!, next.tables[t]!));
  for (const t of created) {
    uniques.added.push(...named(t, next.tables[t]!.uniques));
    indexes.added.push(...named(t, next.tables[t]!.indexes));
    fks.added.push(...named(t, next.tables[t]!.foreignKeys));
  }
  for (const u of sortNamed(uniques.added)) changes.push({ kind: 'add_unique', ...u });
  for (const i of sortNamed(indexes.added)) changes.push({ kind: 'add_index', ...i });
  for (const fk of sortNamed(fks.added)) changes.push({ kind: 'add_foreign_key', ...fk });
  for (const name of routines.added) changes.push({ kind: 'create_routine', name, spec: next.routines![name]! });
  for (const name of prevExtensions) if (!nextExtensions.includes(name)) changes.push({ kind: 'drop_extension', name });
  changes.push(...types.added);
  return changes;
}

/**
 * Content-type rows to delete (types gone; first, while their table exists) and to insert (new types;
 * last, once their table exists), each in label order so that ids follow it.
 */
function compareContentTypes(prev: StorageSnapshot, next: StorageSnapshot): { removed: SchemaChange[]; added: SchemaChange[] } {
  const before = prev.contentTypes;
  const after = next.contentTypes;
  // Rows of a table that stays: a table that goes (or a new one) takes its rows with it.
  const kept = before && after && before.table === after.table && after.table in prev.tables ? before.labels : [];
  const removed: SchemaChange[] = before && after && before.table === after.table
    ? [...before.labels].sort().filter((l) => !after.labels.includes(l)).map((label) => ({ kind: 'remove_content_type', table: after.table, label }))
    : [];
  const added: SchemaChange[] = after ? [...after.labels].sort().filter((l) => !kept.includes(l)).map((label) => ({ kind: 'add_content_type', table: after.table, label })) : [];
  return { removed, added };
}

/** Routine names to drop and to create, sorted; a changed routine is in both. */
function compareRoutines(
  prev: Record<string, RoutineSpec>,
  next: Record<string, RoutineSpec>,
): { removed: string[]; added: string[] } {
  const same = (a: RoutineSpec, b: RoutineSpec): boolean => sameList(a.create, b.create) && sameList(a.drop, b.drop);
  const removed = sortedKeys(prev).filter((n) => !next[n] || !same(prev[n]!, next[n]!));
  const added = sortedKeys(next).filter((n) => !prev[n] || !same(prev[n]!, next[n]!));
  return { removed, added };
}

function columnChanges(table: string, prev: TableSpec, next: TableSpec): SchemaChange[] {
  const out: SchemaChange[] = [];
  for (const [column, to] of Object.entries(next.columns)) {
    const from = prev.columns[column];
    if (!from) {
      out.push({ kind: 'add_column', table, column, spec: to });
      continue;
    }
    if (!sameColumn(from, to)) out.push({ kind: 'alter_column', table, column, from, to });
  }
  return out;
}

interface Comparison<T> {
  removed: Named<T>[];
  added: Named<T>[];
  unchanged: Named<T>[];
}

/** A constraint whose definition changed under the same name is removed and added again. */
function compare<T>(
  tables: string[],
  prev: StorageSnapshot,
  next: StorageSnapshot,
  pick: (t: TableSpec) => Record<string, T>,
  same: (a: T, b: T) => boolean,
): Comparison<T> {
  const result: Comparison<T> = { removed: [], added: [], unchanged: [] };
  for (const table of tables) {
    const before = pick(prev.tables[table]!);
    const after = pick(next.tables[table]!);
    for (const [name, spec] of Object.entries(before)) {
      const now = after[name];
      if (now === undefined || !same(spec, now)) result.removed.push({ table, name, spec });
      else result.unchanged.push({ table, name, spec });
    }
    for (const [name, spec] of Object.entries(after)) {
      const was = before[name];
      if (was === undefined || !same(was, spec)) result.added.push({ table, name, spec });
    }
  }
  return result;
}

function sameColumn(a: ColumnSpec, b: ColumnSpec): boolean {
  return a.type === b.type && a.nullable === b.nullable && a.default === b.default && !!a.identity === !!b.identity;
}

function sameUnique(a: UniqueSpec, b: UniqueSpec): boolean {
  return sameList(a.columns, b.columns) && a.nullsDistinct === b.nullsDistinct;
}

function sameIndex(a: IndexSpec, b: IndexSpec): boolean {
  return (
    sameList(a.columns, b.columns) &&
    (a.method ?? 'btree') === (b.method ?? 'btree') &&
    a.opclass === b.opclass &&
    !!a.unique === !!b.unique &&
    (a.nullsDistinct ?? true) === (b.nullsDistinct ?? true) &&
    sameList(a.whereNotNull ?? [], b.whereNotNull ?? []) &&
    sameList(a.lower ?? [], b.lower ?? [])
  );
}

function sameForeignKey(a: ForeignKeySpec, b: ForeignKeySpec): boolean {
  return (
    sameList(a.columns, b.columns) &&
    a.references.table === b.references.table &&
    sameList(a.references.columns, b.references.columns) &&
    a.onDelete === b.onDelete
  );
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return sameList([...a].sort(), [...b].sort());
}

function named<T>(table: string, specs: Record<string, T>): Named<T>[] {
  return Object.entries(specs).map(([name, spec]) => ({ table, name, spec }));
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortedKeys(o: object): string[] {
  return Object.keys(o).sort(compareStrings);
}

function byTableThenName(a: TableChange, b: TableChange): number {
  const an = 'name' in a ? a.name : '';
  const bn = 'name' in b ? b.name : '';
  return compareStrings(a.table, b.table) || compareStrings(an, bn);
}

function sortNamed<T>(items: Named<T>[]): Named<T>[] {
  return [...items].sort((a, b) => compareStrings(a.table, b.table) || compareStrings(a.name, b.name));
}

const MAX_IDENTIFIER_BYTES = 63;

/**
 * Catches a snapshot PostgreSQL would misread, before any SQL is written: names it would silently
 * truncate or that collide in the schema's one namespace for tables, indexes and unique constraints,
 * and keys that point at columns that do not exist.
 */
export function checkSnapshot(s: StorageSnapshot): void {
  const fail = (msg: string): never => {
    throw new Error(`invalid storage snapshot: ${msg}`);
  };
  if (s.version !== 1) fail(`unknown version ${String(s.version)}`);
  const relations = new Map<string, string>();
  const claim = (name: string, what: string): void => {
    if (Buffer.byteLength(name) > MAX_IDENTIFIER_BYTES) fail(`${what} name is longer than 63 bytes: ${name}`);
    const other = relations.get(name);
    if (other) fail(`${what} and ${other} are both named ${name}`);
    relations.set(name, what);
  };
  for (const [table, spec] of Object.entries(s.tables)) {
    claim(table, `table ${table}`);
    if (spec.primaryKey.length) claim(`${table}_pkey`, `primary key of ${table}`);
    const hasColumns = (cols: readonly string[], on: TableSpec, what: string): void => {
      if (cols.length === 0) fail(`${what} has no columns`);
      for (const c of cols) if (!(c in on.columns)) fail(`${what} names missing column ${c}`);
    };
    for (const column of Object.keys(spec.columns)) {
      if (Buffer.byteLength(column) > MAX_IDENTIFIER_BYTES) fail(`column name is longer than 63 bytes: ${table}.${column}`);
    }
    if (spec.primaryKey.length) hasColumns(spec.primaryKey, spec, `primary key of ${table}`);
    for (const [name, u] of Object.entries(spec.uniques)) {
      claim(name, `unique ${name} on ${table}`);
      hasColumns(u.columns, spec, `unique ${name} on ${table}`);
    }
    for (const [name, i] of Object.entries(spec.indexes)) {
      claim(name, `index ${name} on ${table}`);
      hasColumns(i.columns, spec, `index ${name} on ${table}`);
    }
    for (const [name, fk] of Object.entries(spec.foreignKeys)) {
      if (Buffer.byteLength(name) > MAX_IDENTIFIER_BYTES) fail(`foreign key name is longer than 63 bytes: ${name}`);
      hasColumns(fk.columns, spec, `foreign key ${name} on ${table}`);
      const target = s.tables[fk.references.table];
      if (!target) fail(`foreign key ${name} on ${table} references missing table ${fk.references.table}`);
      hasColumns(fk.references.columns, target!, `foreign key ${name} on ${table}`);
      if (fk.references.columns.length !== fk.columns.length) fail(`foreign key ${name} on ${table}: column counts differ`);
    }
  }
}
