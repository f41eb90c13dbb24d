/**
 * The types a run of the derived suites covers. `npm test -- --types wireless.wirelesslink,dcim.site`
 * (tests/run-tests.cjs) sets PATCHBAY_TEST_TYPES and runs only the suites listed in derived-suites.json;
 * those make their cases for the named types alone, so a model author's loop takes a minute or two
 * instead of the whole catalogue's twenty. Unset, every type, as CI runs them.
 */
export const TEST_TYPES_VARIABLE = 'PATCHBAY_TEST_TYPES';

/** The labels named, or null for every type. */
export function parseTestTypes(raw: string | undefined): ReadonlySet<string> | null {
  const labels = (raw ?? '').split(/[\s,]+/).filter(Boolean);
  return labels.length ? new Set(labels) : null;
}

const selected = parseTestTypes(process.env[TEST_TYPES_VARIABLE]);

/** True when no selection is made: tests over the whole catalogue (floors, app-wide answers) run. */
export const wholeCatalogue = selected === null;

export function isSelected(label: string): boolean {
  return selected === null || selected.has(label);
}

/** The models (or anything labelled) of the selection, in their order. */
export function onlySelected<T extends { label: string }>(models: readonly T[]): T[] {
  return models.filter((m) => isSelected(m.label));
}

/** A test about the whole catalogue or the app, not about one type: skipped when types are selected. */
export const catalogueTest: jest.It = wholeCatalogue ? test : test.skip;
/** A describe block of such tests. */
export const catalogueDescribe: jest.Describe = wholeCatalogue ? describe : describe.skip;

type Named<T extends readonly unknown[]> = (name: string, fn: (...args: T) => unknown, timeout?: number) => void;

/**
 * test.each for cases generated from the selected types: jest refuses an empty table, and a selection
 * may leave a suite none (a type without unique rules has no uniqueness case).
 */
export function testEach<T extends readonly unknown[]>(table: readonly T[]): Named<T> {
  if (table.length) return test.each(table as T[]) as unknown as Named<T>;
  return (name) => test.skip(`${name}: no case among the selected types`, () => undefined);
}

/** describe.each for the same reason (one block per selected type). */
export function describeEach<T extends readonly unknown[]>(table: readonly T[]): (name: string, fn: (...args: T) => void) => void {
  if (table.length) return describe.each(table as T[]) as unknown as (name: string, fn: (...args: T) => void) => void;
  return (name) => test.skip(`${name}: no type selected here`, () => undefined);
}
