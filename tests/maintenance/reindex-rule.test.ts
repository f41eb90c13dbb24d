/**
 * The decision to rebuild a table's indexes (engine/maintenance/reindex-rule.ts, index-churn.ts): judged
 * on index churn since the last rebuild, from the catalog's cumulative count or the process's own writes.
 */
import { DEFAULT_RULE } from '../../engine/maintenance/autovacuum-rule';
import { IndexChurn } from '../../engine/maintenance/index-churn';
import { REINDEX_SCALE, indexChurnOf, needsReindex } from '../../engine/maintenance/reindex-rule';

test('a table is due a rebuild once its churn passes the vacuum base plus the scale times its rows', () => {
  const bound = DEFAULT_RULE.vacuumBase + REINDEX_SCALE * 1000;
  expect(needsReindex(DEFAULT_RULE, bound, 1000)).toBe(false);
  expect(needsReindex(DEFAULT_RULE, bound + 1, 1000)).toBe(true);
  expect(needsReindex(DEFAULT_RULE, 151, 1000, 0.1)).toBe(true);
  expect(needsReindex(DEFAULT_RULE, 150, 1000, 1.0)).toBe(false);
});

test('a never-analyzed table (reltuples -1) counts as empty: only the base applies', () => {
  expect(needsReindex(DEFAULT_RULE, DEFAULT_RULE.vacuumBase, -1)).toBe(false);
  expect(needsReindex(DEFAULT_RULE, DEFAULT_RULE.vacuumBase + 1, -1)).toBe(true);
});

test("the process's own updates count as far as the catalog says updates are not HOT, and the larger count wins", () => {
  expect(indexChurnOf(100, 600, 1)).toBe(600);
  expect(indexChurnOf(100, 600, 0.5)).toBe(300);
  // Updates that only ever were HOT touched no index: the own count adds nothing.
  expect(indexChurnOf(100, 600, 0)).toBe(100);
  expect(indexChurnOf(900, 600, 1)).toBe(900);
});

test('churn is counted from first sight and from each rebuild; a count that went back (statistics reset) starts again', () => {
  const churn = new IndexChurn();
  expect(churn.since('t', 5000)).toBe(0);
  expect(churn.since('t', 5600)).toBe(600);
  churn.rebuilt('t', 600);
  expect(churn.since('t', 5700)).toBe(100);
  expect(churn.since('t', 40)).toBe(0);
  expect(churn.since('t', 90)).toBe(50);
  expect(churn.since('other', 7)).toBe(0);
});

test("a rebuild judged on the process's own writes covers those the catalog has yet to show: they do not count again", () => {
  const churn = new IndexChurn();
  expect(churn.since('t', 1000)).toBe(0);
  // The catalog shows 300 of the 800 writes the rebuild was judged on (indexChurnOf took the own count).
  expect(churn.since('t', 1300)).toBe(300);
  churn.rebuilt('t', 800);
  // Behind the baseline, yet not below a count already seen: lag, not a reset.
  expect(churn.since('t', 1500)).toBe(0);
  expect(churn.since('t', 1800)).toBe(0);
  expect(churn.since('t', 1900)).toBe(100);
});
