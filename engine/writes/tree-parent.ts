import type { ResolvedModel } from '../definitions/registry-types';
import { sql } from '../sql/fragment';
import { runRows } from '../database/run';
import { treeWalk } from '../reads/tree-walk';
import type { DbTransaction } from '../database/db';

/** First key of the advisory locks that serialise parent changes ('tree' in ASCII); the second is the table's oid. */
const TREE_LOCK_SPACE = 0x74726565;

/**
 * Checks a parent change of a tree node, serialised with every other parent change of the same tree.
 *
 * The check alone cannot hold the rule: A.parent = B and B.parent = A, sent at once, would each find no
 * cycle in what is committed and both commit one. So the write's transaction first takes an advisory lock
 * keyed by the tree's table (held until commit); the check then runs as a new statement, which sees every
 * parent change committed before the lock was granted. Creating a node needs no lock: nothing can point
 * at a row that is not yet committed.
 *
 * Refuses a parent that is the node itself or one of its descendants (returns the message).
 */
export async function checkTreeParent(trx: DbTransaction, model: ResolvedModel, id: number, parentId: number | null): Promise<string | null> {
  if (parentId === null) return null;
  if (parentId === id) return 'Cannot assign self as parent.';
  // The table's name, quoted as an identifier, is bound as text and read as a regclass.
  await runRows(trx, sql`SELECT pg_advisory_xact_lock(${TREE_LOCK_SPACE}::int, ${`"${model.table}"`}::regclass::oid::int)`);
  const rows = await runRows(trx, sql`WITH RECURSIVE ${treeWalk('up', model.table, sql`"id" = ${parentId}::bigint`, 'up')} SELECT 1 FROM "up" WHERE "id" = ${id}::bigint LIMIT 1`);
  return rows.length ? 'Cannot assign a child object as parent.' : null;
}
