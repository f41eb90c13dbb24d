import type { ResolvedModel } from '../definitions/registry-types';
import type { Sql } from '../sql/fragment';

/** Rows of a type: every one (true), none (false), or those meeting a condition on the row aliased "t". */
export type Rows = boolean | Sql;

/**
 * What the caller may see, as far as a representation depends on it: which objects at the far end of a
 * link (link_peers, connected_endpoints) they may view, and which objects show them their `shown_with`
 * fields. Computed from their permissions before the statement is built (engine/http/reader-access.ts).
 */
export interface ReaderAccess {
  /** The rows of `model` the caller may view; another object's representation shows the others by id and URL only. */
  view(model: ResolvedModel): Rows;
  /** The rows of `model` whose shown_with fields the caller may see (the others leave them out). */
  reveal(model: ResolvedModel): Rows;
}

/** A superuser's: everything. */
export const SEES_EVERYTHING: ReaderAccess = { view: () => true, reveal: () => true };

/**
 * What the change log's and the event outbox's stored snapshots are built with: objects at the far end
 * of a link as they are (the snapshot is read under the rule of its own object, view_through), shown_with
 * fields never.
 */
export const STORED_SNAPSHOT: ReaderAccess = { view: () => true, reveal: () => false };

/** A key telling rows apart by their SQL: the same permissions give the same key. */
export function rowsKey(rows: Rows): string {
  if (rows === true) return 'all';
  if (rows === false) return 'none';
  return JSON.stringify([rows.texts, rows.values], (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
}
