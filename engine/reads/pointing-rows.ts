import type { ReverseField } from '../definitions/registry-types';
import { sqlName } from '../migrations/identifiers';

/**
 * Names of the relations a list statement reads the rows pointing at each page row from (a component's
 * cable termination, its path's origin). Made of what defines the rows, not of a counter: the two
 * compilations of one shape (with and without shown_with fields) are merged by relation name, so one name
 * must always mean one relation.
 */
function parts(f: ReverseField): string[] {
  const { model: holder, via, where } = f.reverse;
  const conditions = Object.keys(where)
    .sort()
    .flatMap((col) => [col, String(where[col])]);
  return [holder.table, via.name, ...conditions];
}

/** The first row (by id) of `f`'s holder pointing at the page row. */
export function firstPointingName(f: ReverseField): string {
  return sqlName('lr', ...parts(f));
}

/** Whether some row pointing at the page row has a peer across its group (a link_peers field's group and side). */
export function anyPeerName(f: ReverseField): string {
  const { group, side } = f.reverse;
  return sqlName('lp', ...parts(f), group?.column ?? '', side?.column ?? '');
}

/** Whether a link row (a wireless link, columns a and b) joins the page row. */
export function linkRowName(table: string, a: string, b: string): string {
  return sqlName('lw', table, a, b);
}

/**
 * Whether at most one row of the holder points at any object (a cable termination: one per object, by its
 * unique rule), so that what holds for the first row holds for every one. The `where` conditions only
 * narrow the rows, so a rule over the relation alone is enough.
 */
export function onePerObject(f: ReverseField): boolean {
  const { model: holder, via } = f.reverse;
  return holder.uniques.some((u) => u.fields.length === 1 && u.fields[0] === via.name && !u.whenNotNull.length && !u.caseInsensitive.length);
}
