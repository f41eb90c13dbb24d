import crypto from 'node:crypto';
import type { ResolvedModel } from '../definitions/registry-types';
import type { ApiContext, CallContext } from '../http/api-context';
import { isConcealed } from '../definitions/concealed-fields';
import { runRows } from '../database/run';
import { isRetryable } from '../database/db-errors';
import { ident, sql } from '../sql/fragment';
import { importOrder, importedModels, selfReferencesFirst, type TypeStep } from './import-order';
import { importBody, unknownKeysOf, writtenValue } from './write-body';
import { markImporting, writeChunk, type ImportItem, type Refusal } from './write-objects';
import { insertStoredRows, storedColumns } from './stored-rows';
import { matchTargetRows } from './target-users';
import { fetchImages } from './images';
import { differences, withoutOrigins, type Difference } from './compare';
import { targetRepresentations, TARGET_ORIGIN } from './target-reads';
import { sourceApi, type SourceApi, type SourceObject } from './source-api';
import { sourceCatalog, type Unsupported } from './source-catalog';
import { deleteGone } from './delete-gone';
import { traceDifferences } from './trace-check';
import { customFieldsOf } from '../validation/custom-field-values';
import type { Progress } from './progress';

/**
 * `patchbay import`: every object of a NetBox (or anything speaking its REST dialect) written into this
 * Patchbay's database under the same ids, in an order the definitions' relations give (import-order.ts),
 * in two passes for relation cycles; then sequences moved past the imported ids, and every object
 * compared between source and target. Run again, it writes only what changed on the source since
 * (`last_updated`, or the representation for types without it): so an interrupted run resumes, and
 * `--sync` keeps a trial installation in step, deletions included.
 */

export interface ImportOptions {
  from: string;
  token: string;
  sync: boolean;
  dryRun: boolean;
  strict: boolean;
  changelog: boolean;
  verify: boolean;
  progress: Progress;
}

export interface TypeCounts {
  source: number;
  target: number;
  created: number;
  updated: number;
  deleted: number;
  unchanged: number;
  refused: number;
}

export interface ImportReport {
  source: string;
  dry_run: boolean;
  sync: boolean;
  started: string;
  seconds: number;
  /** Where the time went: waiting for the source's pages, writing, the second pass, deleting, verifying. */
  phases: Record<'waiting_for_source' | 'writing' | 'second_pass' | 'deleting' | 'verifying', number>;
  /** Objects read from the source. */
  objects: number;
  objects_per_second: number;
  types: Record<string, TypeCounts>;
  unsupported: Unsupported[];
  unknown_fields: Array<{ type: string; field: string; objects: number }>;
  refused: Array<{ type: string; id: number; reason: string }>;
  not_deleted: Array<{ type: string; ids: number[]; reason: string }>;
  differences: Difference[];
  unusable_passwords: string[];
  moved_users: string[];
}

/** Objects per transaction: large enough for set-based writes, small enough that an interrupted run loses little. */
const CHUNK = 500;
/** A password nobody can know, mapped to Django's mark of an unusable password (engine/auth/passwords.ts checks none against it). */
const UNUSABLE = '!';

function superuserContext(base: ApiContext): CallContext {
  return {
    ...base,
    principal: { userId: 0, username: 'import', isSuperuser: true, tokenId: null, writeEnabled: true },
    origin: TARGET_ORIGIN,
    query: new URLSearchParams(),
    requestId: crypto.randomUUID(),
    scope: async () => ({ allowed: true, conditions: [] }),
  };
}

/** The values of the columns the write path sets itself: timestamps and read-only stored fields. */
/**
 * `created` as the type keeps it: Patchbay's contract shows most types' `created` as a date, so NetBox's
 * timestamp is kept as its UTC date (docs/migrating-from-netbox.md says so).
 */
function createdAsKept(model: ResolvedModel, value: unknown): unknown {
  if (model.timestamps !== 'date' || typeof value !== 'string' || !/T/.test(value)) return value;
  const at = Date.parse(value);
  return Number.isNaN(at) ? value : new Date(at).toISOString().slice(0, 10);
}

function restoredColumns(model: ResolvedModel, o: SourceObject): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (model.timestamps !== false && typeof o.created === 'string') out.created = createdAsKept(model, o.created);
  if (model.lastUpdated && typeof o.last_updated === 'string') out.last_updated = o.last_updated;
  for (const f of model.fieldList) {
    if (f.readOnly && f.column && f.kind !== 'image' && f.name in o) out[f.column] = writtenValue(f, o[f.name]);
  }
  return out;
}

/** A generated secret (a token's key) the source does not show: the object cannot be carried as it is. */
function hiddenSecret(model: ResolvedModel, o: SourceObject): string | null {
  for (const f of model.fieldList) {
    if (isConcealed(f) && f.def.default_fn && !f.readOnly && (typeof o[f.name] !== 'string' || /^\*+$/.test(o[f.name] as string))) {
      return `${f.name}: the source does not reveal it (NetBox's ALLOW_TOKEN_RETRIEVAL is off), so the object would not be the same`;
    }
  }
  return null;
}

function passwordField(model: ResolvedModel): string | null {
  return model.fieldList.find((f) => f.kind === 'password' && !f.readOnly)?.name ?? null;
}

/** The target's ids of these objects, and those of them already as the source shows them. */
async function targetState(ctx: CallContext, model: ResolvedModel, objects: readonly SourceObject[], origins: string[], imported: ReadonlySet<ResolvedModel>): Promise<{ exists: Set<number>; unchanged: Set<number> }> {
  const ids = objects.map((o) => o.id);
  const rows = await runRows<{ id: string | number }>(ctx.knex, sql`SELECT "id" FROM ${ident(model.table)} WHERE "id" = ANY(${ids}::bigint[])`);
  const exists = new Set(rows.map((r) => Number(r.id)));
  const unchanged = new Set<number>();
  if (!exists.size) return { exists, unchanged };
  if (model.def.read_only) return { exists, unchanged: exists };
  if (model.lastUpdated) {
    const stamps = objects.filter((o) => exists.has(o.id) && typeof o.last_updated === 'string').map((o) => ({ id: o.id, at: o.last_updated }));
    const same = await runRows<{ id: string | number }>(
      ctx.knex,
      sql`SELECT "t"."id" FROM ${ident(model.table)} AS "t" JOIN json_to_recordset(${JSON.stringify(stamps)}::json) AS "s"("id" bigint, "at" timestamptz) ON "s"."id" = "t"."id" WHERE "t"."last_updated" = "s"."at"`,
    );
    for (const r of same) unchanged.add(Number(r.id));
    // Objects the source shows no last_updated for (rows older than the field) are judged as below.
    const unstamped = objects.filter((o) => exists.has(o.id) && typeof o.last_updated !== 'string');
    if (unstamped.length) for (const id of await sameRepresentation(ctx, model, unstamped, origins, imported)) unchanged.add(id);
    return { exists, unchanged };
  }
  // No last_updated to go by (users, groups, permissions): the representation itself.
  for (const id of await sameRepresentation(ctx, model, objects.filter((o) => exists.has(o.id)), origins, imported)) unchanged.add(id);
  return { exists, unchanged };
}

/** The objects whose representation on the target is already the source's. */
async function sameRepresentation(ctx: CallContext, model: ResolvedModel, objects: readonly SourceObject[], origins: string[], imported: ReadonlySet<ResolvedModel>): Promise<number[]> {
  const target = await targetRepresentations(ctx, model, new Set(objects.map((o) => o.id)));
  const out: number[] = [];
  for (const o of objects) {
    const t = target.get(o.id);
    if (t && !objectDifferences(model, o, t, imported, origins).length) out.push(o.id);
  }
  return out;
}

/**
 * Chunks written several at a time on a PostgreSQL server, so preparing one (Node's work) overlaps
 * writing another (the server's); one at a time on the embedded database (one session) and for a tree
 * type, whose chunks must land parents first. Concurrent chunks may deadlock on rows their triggers
 * share (a kept sum): the one PostgreSQL aborts is written again.
 */
const IN_PARALLEL = 3;
const ATTEMPTS = 4;

async function eachChunk<T>(ctx: CallContext, parts: readonly T[], inOrder: boolean, write: (part: T) => Promise<void>): Promise<void> {
  const retried = async (part: T) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await write(part);
      } catch (e) {
        if (attempt >= ATTEMPTS || !isRetryable(e)) throw e;
      }
    }
  };
  const width = inOrder || ctx.embedded ? 1 : IN_PARALLEL;
  let next = 0;
  let failed: unknown = null;
  const worker = async () => {
    while (next < parts.length && failed === null) {
      const part = parts[next++]!;
      try {
        await retried(part);
      } catch (e) {
        failed ??= e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, parts.length) }, worker));
  if (failed !== null) throw failed;
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export async function runImport(base: ApiContext, opts: ImportOptions): Promise<ImportReport> {
  const started = Date.now();
  const api: SourceApi = sourceApi(opts.from, opts.token);
  const ctx = superuserContext(base);
  const registry = ctx.registry;
  const origins = [api.origin, TARGET_ORIGIN];
  const report: ImportReport = {
    source: api.origin,
    dry_run: opts.dryRun,
    sync: opts.sync,
    started: new Date(started).toISOString(),
    seconds: 0,
    phases: { waiting_for_source: 0, writing: 0, second_pass: 0, deleting: 0, verifying: 0 },
    objects: 0,
    objects_per_second: 0,
    types: {},
    unsupported: [],
    unknown_fields: [],
    refused: [],
    not_deleted: [],
    differences: [],
    unusable_passwords: [],
    moved_users: [],
  };
  const catalog = await sourceCatalog(api, registry);
  report.unsupported = catalog.unsupported;
  const models = importedModels(registry, opts.changelog).filter((m) => catalog.served.has(m));
  const steps = importOrder(registry, models);
  const imported = new Set(models);

  // Every type is read at once, in write order, through the source client's few connections: the writer
  // takes each type as soon as it is whole, while later ones are still arriving.
  const fetched = new Map<ResolvedModel, Promise<SourceObject[]>>();
  for (const s of steps) {
    const key = `read ${s.model.label}`;
    let begun = false;
    const p = api.listAll(`/api/${s.model.app}/${s.model.path}/`, (n, total) => {
      if (!begun) opts.progress.start(key, `read  ${s.model.label}`, total);
      begun = true;
      opts.progress.advance(key, n);
    });
    p.then(() => opts.progress.finish(key), () => opts.progress.finish(key));
    p.catch(() => undefined);
    fetched.set(s.model, p);
  }

  /** The ids of a type the source's change log names (when it is carried): deleted objects' included. */
  const log = registry.roles.get('object_change');
  const idsInHistory = async (model: ResolvedModel): Promise<Set<number>> => {
    const history = log ? fetched.get(log) : undefined;
    if (!log || !history) return new Set();
    const out = new Set<number>();
    for (const row of await history) {
      for (const f of log.fieldList) {
        if (f.kind === 'generic_fk' && row[f.typeColumn] === model.label && typeof row[f.idColumn] === 'number') out.add(row[f.idColumn] as number);
      }
    }
    return out;
  };

  const sources = new Map<ResolvedModel, SourceObject[]>();
  const later = new Map<ResolvedModel, ImportItem[]>();
  const refusedIds = new Map<ResolvedModel, Set<number>>();
  const unknown = new Map<string, number>();
  // The target's own accounts (the superuser and token made to run it) meet the source's (target-users.ts).
  const accounts = new Set([registry.roles.get('user'), registry.roles.get('token')].filter((m): m is ResolvedModel => !!m));

  // --sync deletes first, types in reverse order: what the source replaced (a cable's new end on the same
  // port, a name reused) must be gone before its successor is written. That needs every type read first.
  const deletedCounts = new Map<ResolvedModel, number>();
  if (opts.sync) {
    const everything = await Promise.all(steps.map(async (s) => [s.model, await fetched.get(s.model)!] as const));
    const keepIds = new Map(everything.map(([m, objects]) => [m, new Set(objects.map((o) => o.id))]));
    for (const step of [...steps].reverse()) {
      const keep = keepIds.get(step.model)!;
      if (opts.dryRun) {
        const rows = await runRows<{ id: string | number }>(ctx.knex, sql`SELECT "id" FROM ${ident(step.model.table)}`);
        deletedCounts.set(step.model, rows.filter((r) => !keep.has(Number(r.id))).length);
        continue;
      }
      const outcome = await deleteGone(ctx, step.model, keep);
      deletedCounts.set(step.model, outcome.deleted);
      if (outcome.kept) report.not_deleted.push({ type: step.model.label, ...outcome.kept });
    }
  }

  let clock = started;
  const lap = (phase: keyof ImportReport['phases']) => {
    const now = Date.now();
    report.phases[phase] = Math.round((report.phases[phase] + (now - clock) / 1000) * 10) / 10;
    clock = now;
  };
  lap('deleting');
  for (const step of steps) {
    const { model } = step;
    lap('writing');
    const objects = await fetched.get(model)!;
    lap('waiting_for_source');
    sources.set(model, objects);
    report.objects += objects.length;
    const counts: TypeCounts = { source: objects.length, target: 0, created: 0, updated: 0, deleted: deletedCounts.get(model) ?? 0, unchanged: 0, refused: 0 };
    report.types[model.label] = counts;
    const refused = new Set<number>();
    refusedIds.set(model, refused);
    const refuse = (r: Refusal) => {
      refused.add(r.id);
      counts.refused++;
      report.refused.push({ type: model.label, id: r.id, reason: r.reason });
    };

    if (accounts.has(model) && !opts.dryRun) report.moved_users.push(...(await matchTargetRows(ctx.knex, model, objects, await idsInHistory(model))).moved);
    const { exists, unchanged } = await targetState(ctx, model, objects, origins, imported);
    const pending = objects.filter((o) => !unchanged.has(o.id));
    counts.unchanged = objects.length - pending.length;

    if (model.def.read_only) {
      const rows = pending.map((o) => storedColumns(model, o));
      counts.created = rows.length;
      if (!opts.dryRun && rows.length) {
        opts.progress.start(`write ${model.label}`, `write ${model.label}`, rows.length);
        for (const part of chunks(rows, CHUNK)) {
          await ctx.knex.transaction((trx) => insertStoredRows(trx, model, part));
          opts.progress.advance(`write ${model.label}`, part.length);
        }
        opts.progress.finish(`write ${model.label}`);
      }
      continue;
    }

    const { ordered, cyclic, linked } = selfReferencesFirst(model, pending, step.selfFields);
    // Custom field definitions are imported before any type that has values of them (import-order.ts).
    const objectCustomFields = model.fieldList.some((f) => f.kind === 'custom_fields')
      ? new Set((await customFieldsOf(ctx.knex, registry, model)).filter((d) => d.type === 'object' || d.type === 'multiobject').map((d) => d.name))
      : new Set<string>();
    const pw = passwordField(model);
    const items: ImportItem[] = [];
    const second: ImportItem[] = [];
    for (const o of ordered) {
      const hidden = hiddenSecret(model, o);
      if (hidden) {
        refuse({ id: o.id, reason: hidden });
        continue;
      }
      const converted = importBody(model, o, !exists.has(o.id), step.deferred, imported, cyclic.has(o.id), step.selfFields, objectCustomFields);
      for (const k of converted.unknownKeys) unknown.set(`${model.label}\u0000${k}`, (unknown.get(`${model.label}\u0000${k}`) ?? 0) + 1);
      const body = converted.body;
      if (pw && !exists.has(o.id)) {
        body[pw] = UNUSABLE_PLACEHOLDER;
        report.unusable_passwords.push(String(o.username ?? o.id));
      }
      let files: ImportItem['files'];
      if (!opts.dryRun && model.fieldList.some((f) => f.kind === 'image')) {
        const images = await fetchImages(api, ctx.config.mediaRoot, model, o);
        if ('problem' in images) {
          refuse({ id: o.id, reason: images.problem });
          continue;
        }
        files = images.files;
      }
      const restore = restoredColumns(model, o);
      items.push({ id: o.id, exists: exists.has(o.id), mode: exists.has(o.id) ? 'patch' : 'create', body, files, restore: converted.later ? null : restore });
      if (converted.later) second.push({ id: o.id, exists: true, mode: 'patch', body: converted.later, restore });
    }
    counts.created = items.filter((i) => !i.exists).length;
    counts.updated = items.filter((i) => i.exists).length;
    if (opts.dryRun) continue;

    const key = `write ${model.label}`;
    if (items.length) opts.progress.start(key, `write ${model.label}`, items.length);
    await eachChunk(ctx, chunks(items, CHUNK), linked, async (part) => {
      const outcome = await writeChunk(ctx, model, part, PASSWORD_HASHES);
      for (const r of outcome.refused) refuse(r);
      opts.progress.advance(key, part.length);
    });
    if (items.length) opts.progress.finish(key);
    counts.created -= items.filter((i) => !i.exists && refused.has(i.id)).length;
    counts.updated -= items.filter((i) => i.exists && refused.has(i.id)).length;
    const stillToSet = second.filter((i) => !refused.has(i.id));
    if (stillToSet.length) later.set(model, stillToSet);
  }

  lap('writing');
  if (!opts.dryRun) {
    // The second pass, in the same order: relations whose other end now exists.
    for (const step of steps) {
      const items = later.get(step.model);
      if (!items?.length) continue;
      const key = `link ${step.model.label}`;
      opts.progress.start(key, `link  ${step.model.label}`, items.length);
      await eachChunk(ctx, chunks(items, CHUNK), false, async (part) => {
        const outcome = await writeChunk(ctx, step.model, part, PASSWORD_HASHES);
        for (const r of outcome.refused) {
          refusedIds.get(step.model)!.add(r.id);
          report.types[step.model.label]!.refused++;
          report.refused.push({ type: step.model.label, id: r.id, reason: r.reason });
        }
        opts.progress.advance(key, part.length);
      });
      opts.progress.finish(key);
    }
    lap('second_pass');
    await advanceSequences(ctx, models);
  }

  for (const [k, n] of unknown) {
    const [type, field] = k.split('\u0000') as [string, string];
    report.unknown_fields.push({ type, field, objects: n });
  }

  for (const step of steps) {
    const rows = await runRows<{ n: string | number }>(ctx.knex, sql`SELECT count(*) AS "n" FROM ${ident(step.model.table)}`);
    report.types[step.model.label]!.target = Number(rows[0]!.n);
  }
  if (opts.verify && !opts.dryRun) {
    for (const step of steps) {
      const source = sources.get(step.model)!;
      const refused = refusedIds.get(step.model)!;
      const key = `verify ${step.model.label}`;
      opts.progress.start(key, `check ${step.model.label}`, source.length);
      const target = await targetRepresentations(ctx, step.model);
      for (const o of source) {
        if (refused.has(o.id)) continue;
        const t = target.get(o.id);
        report.differences.push(...objectDifferences(step.model, o, t, imported, origins));
      }
      report.differences.push(...(await traceDifferences(ctx, api, step.model, source, refused, origins)));
      opts.progress.advance(key, source.length);
      opts.progress.finish(key);
    }
  }
  lap('verifying');
  opts.progress.stop();
  report.seconds = Math.round((Date.now() - started) / 100) / 10;
  report.objects_per_second = Math.round(report.objects / Math.max(report.seconds, 0.1));
  return report;
}

/**
 * The generic relations of an object that point at a type the import does not carry (a change of a
 * session, say): the object named exists on one side only, by design, so the relation is not compared.
 */
function notCarried(model: ResolvedModel, o: SourceObject, imported: ReadonlySet<ResolvedModel>): string[] {
  const out: string[] = [];
  for (const f of model.fieldList) {
    if (f.kind !== 'generic_fk') continue;
    const label = o[f.typeColumn];
    const target = typeof label === 'string' ? model.modelByLabel(label) : undefined;
    if (typeof label === 'string' && (!target || !imported.has(target))) out.push(f.name);
  }
  return out;
}

/**
 * How one object differs between source and target, hosts aside: fields Patchbay lacks (reported as such)
 * and relations to types not carried are left out.
 */
function objectDifferences(model: ResolvedModel, o: SourceObject, t: Record<string, unknown> | undefined, imported: ReadonlySet<ResolvedModel>, origins: readonly string[]): Difference[] {
  const skip = [...notCarried(model, o, imported), ...unknownKeysOf(model, o)];
  // NetBox may show no timestamps for rows older than the fields; Patchbay always has them (the import's time).
  for (const k of ['created', 'last_updated']) if (o[k] === null) skip.push(k);
  const source = 'created' in o ? { ...o, created: createdAsKept(model, o.created) } : o;
  return differences(model.label, withoutOrigins(without(source, skip), origins) as SourceObject, t && (withoutOrigins(without(t, skip), origins) as Record<string, unknown>));
}

function without<T extends Record<string, unknown>>(o: T, keys: readonly string[]): T {
  if (!keys.length) return o;
  const copy: Record<string, unknown> = { ...o };
  for (const k of keys) delete copy[k];
  return copy as T;
}

/** Sequences past the imported ids: the next object made on the target gets an id the source never used. */
async function advanceSequences(ctx: CallContext, models: readonly ResolvedModel[]): Promise<void> {
  await ctx.knex.transaction(async (trx) => {
    await markImporting(trx);
    for (const m of models) {
      await runRows(trx, sql`SELECT setval(pg_get_serial_sequence(${m.table}, 'id'), coalesce((SELECT max("id") FROM ${ident(m.table)}), 0) + 1, false)`);
    }
  });
}

// The placeholder a created user's password is written as, and the "hash" it maps to: Django's
// unusable password, which no password checks against. Random per process, so no body can name it.
const UNUSABLE_PLACEHOLDER = crypto.randomBytes(32).toString('hex');
const PASSWORD_HASHES: ReadonlyMap<string, string> = new Map([[UNUSABLE_PLACEHOLDER, UNUSABLE]]);

