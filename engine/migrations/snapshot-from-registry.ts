import type { Registry, ResolvedModel } from '../definitions/registry-types';
import type { StorageSnapshot, TableSpec, OnDeleteSql } from './snapshot-types';
import { sqlDefaultOf, sqlTypeOf } from './column-types';
import { sqlName } from './identifiers';
import { storedColumns } from '../definitions/resolve-registry';
import { engineRoutines } from './routines';

const ON_DELETE: Record<string, OnDeleteSql> = { protect: 'RESTRICT', cascade: 'CASCADE', set_null: 'SET NULL' };

/** The database shape the definitions call for. */
export function snapshotFromRegistry(registry: Registry): StorageSnapshot {
  const tables: Record<string, TableSpec> = {};
  const models = [...registry.models.values()].sort((a, b) => a.table.localeCompare(b.table));
  for (const model of models) {
    tables[model.table] = modelTable(model);
    for (const field of model.fieldList) {
      if (field.joinTable && field.target) {
        tables[field.joinTable] = joinTable(model, field.joinTable, field.target);
      }
    }
  }
  const sorted = Object.fromEntries(Object.entries(tables).sort(([a], [b]) => a.localeCompare(b)));
  const trigram = Object.values(tables).some((t) => Object.values(t.indexes).some((i) => i.opclass === 'public.gin_trgm_ops'));
  const ct = registry.roles.get('content_type');
  const contentTypes = ct ? { contentTypes: { table: ct.table, labels: [...registry.models.keys()].sort() } } : {};
  return { version: 1, ...(trigram ? { extensions: ['pg_trgm'] } : {}), tables: sorted, routines: engineRoutines(registry), ...contentTypes };
}

function modelTable(model: ResolvedModel): TableSpec {
  const t: TableSpec = {
    columns: { id: { type: 'bigint', nullable: false, identity: true } },
    primaryKey: ['id'],
    uniques: {},
    foreignKeys: {},
    indexes: {},
  };
  for (const field of model.fieldList) {
    if (field.kind === 'generic_fk') {
      t.columns[field.typeColumn] = { type: 'varchar(100)', nullable: true };
      t.columns[field.idColumn] = { type: 'bigint', nullable: true };
      t.indexes[sqlName(model.table, field.name, 'idx')] = { columns: [field.typeColumn, field.idColumn] };
      continue;
    }
    if (!field.column) continue;
    const def = sqlDefaultOf(field);
    t.columns[field.column] = { type: sqlTypeOf(field), nullable: field.nullable, ...(def !== undefined ? { default: def } : {}) };
    if (field.kind === 'fk' && field.target) {
      t.foreignKeys[sqlName(model.table, field.column, 'fk')] = {
        columns: [field.column],
        references: { table: field.target.table, columns: ['id'] },
        onDelete: ON_DELETE[field.def.on_delete ?? 'protect']!,
      };
      t.indexes[sqlName(model.table, field.column, 'idx')] = { columns: [field.column] };
    }
    if (field.def.index === 'btree' && !t.indexes[sqlName(model.table, field.column, 'idx')]) {
      t.indexes[sqlName(model.table, field.column, 'idx')] = { columns: [field.column] };
    }
    if (field.def.index === 'containment') {
      t.indexes[sqlName(model.table, field.column, 'gin')] = { columns: [field.column], method: 'gin', opclass: 'jsonb_path_ops' };
    }
    if (field.def.index === 'trigram') {
      t.indexes[sqlName(model.table, field.column, 'trgm')] = { columns: [field.column], method: 'gin', opclass: 'public.gin_trgm_ops' };
    }
    if ((field.kind === 'inet' || field.kind === 'cidr') && !field.array) {
      // btree serves equality and ordering by address; gist serves containment (<<, >>=, ...).
      t.indexes[sqlName(model.table, field.column, 'idx')] = { columns: [field.column] };
      t.indexes[sqlName(model.table, field.column, 'gist')] = { columns: [field.column], method: 'gist', opclass: 'inet_ops' };
    }
  }
  if (model.timestamps !== false) t.columns.created = { type: 'timestamptz', nullable: false, default: 'now()' };
  if (model.lastUpdated) t.columns.last_updated = { type: 'timestamptz', nullable: false, default: 'now()' };
  for (const u of model.uniques) {
    const columns = u.fields.flatMap((n) => storedColumns(model, n));
    // A rule that applies only where some fields are set, or that compares text by lower(...), is a unique
    // index (partial, or on expressions), not a constraint.
    if (u.whenNotNull.length || u.caseInsensitive.length) {
      t.indexes[u.constraint] = {
        columns,
        unique: true,
        nullsDistinct: u.nullsDistinct,
        ...(u.whenNotNull.length ? { whereNotNull: u.whenNotNull } : {}),
        ...(u.caseInsensitive.length ? { lower: u.caseInsensitive } : {}),
      };
    }
    else t.uniques[u.constraint] = { columns, nullsDistinct: u.nullsDistinct };
  }
  return t;
}

function joinTable(model: ResolvedModel, name: string, target: ResolvedModel): TableSpec {
  return {
    columns: {
      source_id: { type: 'bigint', nullable: false },
      target_id: { type: 'bigint', nullable: false },
    },
    primaryKey: ['source_id', 'target_id'],
    uniques: {},
    foreignKeys: {
      [sqlName(name, 'source_fk')]: { columns: ['source_id'], references: { table: model.table, columns: ['id'] }, onDelete: 'CASCADE' },
      [sqlName(name, 'target_fk')]: { columns: ['target_id'], references: { table: target.table, columns: ['id'] }, onDelete: 'CASCADE' },
    },
    indexes: { [sqlName(name, 'target_idx')]: { columns: ['target_id'] } },
  };
}
