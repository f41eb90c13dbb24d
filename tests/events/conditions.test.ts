/**
 * Event rule conditions as a pure module: NetBox's semantics of each op, the write-time check naming the
 * condition that fails (its position in the set), the bounds on a set's size, and judgeConditions
 * compiling a set once per rule version.
 */
import { compileConditions, conditionProblem, InvalidCondition, MAX_CONDITIONS, MAX_JUDGE_MS, MAX_REGEX_TEXT, MAX_SET_BYTES } from '../../engine/events/conditions';
import { judgeConditions } from '../../engine/events/judge-conditions';
import { cachedRuleVersions } from '../../engine/events/condition-cache';
import { closeSharedSandbox } from '../../engine/sandbox/shared-sandbox';

afterAll(async () => {
  await closeSharedSandbox();
});

const site = { name: 'edge-1', status: { value: 'active', label: 'Active' }, asn: 65001, tags: [{ slug: 'core' }, { slug: 'dc' }], custom_fields: { owner: 'noc' }, description: 'primary' };

describe('judging', () => {
  test.each([
    [{ and: [{ attr: 'status.value', value: 'active' }] }, true],
    [{ and: [{ attr: 'status.value', value: 'active', negate: true }] }, false],
    [{ and: [{ attr: 'asn', value: 65000, op: 'gt' }, { attr: 'asn', value: 65001, op: 'lte' }] }, true],
    [{ and: [{ attr: 'asn', value: 65001, op: 'lt' }] }, false],
    [{ or: [{ attr: 'name', value: ['edge-1', 'edge-2'], op: 'in' }] }, true],
    [{ and: [{ attr: 'tags.slug', value: 'dc', op: 'contains' }] }, true],
    [{ and: [{ attr: 'description', value: 'rim', op: 'contains' }] }, true],
    [{ and: [{ attr: 'custom_fields', value: 'owner', op: 'contains' }] }, true],
    [{ and: [{ attr: 'name', value: 'edge-\\d', op: 'regex' }] }, true],
    // As Python's re.match: anchored at the start only.
    [{ and: [{ attr: 'name', value: '\\d', op: 'regex' }] }, false],
    [{ and: [{ attr: 'status', value: { label: 'Active', value: 'active' } }] }, true],
    [{ or: [] }, false],
    [{ and: [] }, true],
    [{ or: [{ attr: 'name', value: 'x' }, { and: [{ attr: 'asn', value: 65001 }, { or: [{ attr: 'name', value: 'edge-1' }] }] }] }, true],
  ])('%j on a site: %s', (set, expected) => {
    expect(compileConditions(set).holds(site)).toBe(expected);
  });

  test('no conditions always hold', () => {
    expect(compileConditions(null).holds(site)).toBe(true);
  });

  test(`a regex is not matched against text longer than ${MAX_REGEX_TEXT} characters, and judging one event stops after ${MAX_JUDGE_MS} ms`, () => {
    const re = compileConditions({ and: [{ attr: 'comments', value: '^a', op: 'regex' }] });
    expect(re.holds({ comments: 'a'.repeat(MAX_REGEX_TEXT) })).toBe(true);
    expect(() => re.holds({ comments: 'a'.repeat(MAX_REGEX_TEXT + 1) })).toThrow(new InvalidCondition(`"regex" is not matched against text longer than ${MAX_REGEX_TEXT} characters`));
    // Sixty of the slowest patterns RE2 has (each scanning the whole text) fit in a set; their matching does not fit in the budget.
    const slow = compileConditions({ or: Array.from({ length: 60 }, (_, i) => ({ attr: 'comments', value: `${'[a-z]*'.repeat(160)}q${i}`, op: 'regex' })) });
    expect(() => slow.holds({ comments: 'ab'.repeat(MAX_REGEX_TEXT / 2) })).toThrow(new InvalidCondition(`judging took longer than ${MAX_JUDGE_MS} ms`));
  });

  test('data that cannot be judged throws InvalidCondition', () => {
    expect(() => compileConditions({ and: [{ attr: 'nope', value: 1 }] }).holds(site)).toThrow(new InvalidCondition('Invalid key path: nope'));
    expect(() => compileConditions({ and: [{ attr: 'name', value: 1, op: 'gt' }] }).holds(site)).toThrow(InvalidCondition);
    expect(() => compileConditions({ and: [{ attr: 'asn', value: 'x', op: 'regex' }] }).holds(site)).toThrow(InvalidCondition);
  });
});

describe('the write-time check', () => {
  test('a valid set has no problem', () => {
    expect(conditionProblem({ and: [{ attr: 'status.value', value: 'active' }, { or: [{ attr: 'name', value: '^a', op: 'regex' }] }] })).toBeNull();
    expect(conditionProblem(null)).toBeNull();
  });

  test('the failing condition is named by its position in the set', () => {
    const set = { and: [{ attr: 'name', value: 'a' }, { attr: 'name', value: 'b' }, { or: [{ attr: 'name', value: 'ok', op: 'regex' }, { attr: 'name', value: '(unclosed', op: 'regex' }] }] };
    expect(conditionProblem(set)).toMatch(/^and\[2\]\.or\[1\]: invalid regular expression: /);
    expect(conditionProblem({ or: [{ attr: 'asn', value: '1', op: 'gt' }] })).toBe('or[0]: op "gt" needs a number value');
    expect(conditionProblem({ and: [{ attr: 'name', value: 'x', op: 'near' }] })).toBe('and[0]: unknown op "near"');
    expect(conditionProblem({ and: [{ attr: 'name' }] })).toBe('and[0]: a condition needs "attr" (a dotted path) and "value"');
    expect(conditionProblem({ and: [{ attr: 'name', value: 1, op: 'in' }] })).toBe('and[0]: op "in" needs a list value');
    // Backreferences do not exist in RE2 (linear time): refused on write rather than skipped at every event.
    expect(conditionProblem({ and: [{ attr: 'name', value: '(a)\\1', op: 'regex' }] })).toMatch(/^and\[0\]: invalid regular expression/);
    expect(conditionProblem({ xor: [] })).toBe('a condition set has one key, "and" or "or"');
  });

  test(`at most ${MAX_CONDITIONS} conditions, all levels counted, and ${MAX_SET_BYTES} bytes`, () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => ({ attr: 'name', value: `n${i}` }));
    expect(conditionProblem({ or: many(MAX_CONDITIONS) })).toBeNull();
    expect(conditionProblem({ or: many(MAX_CONDITIONS + 1) })).toBe(`or[${MAX_CONDITIONS}]: a condition set holds at most ${MAX_CONDITIONS} conditions`);
    expect(conditionProblem({ or: [...many(MAX_CONDITIONS - 1), { and: many(1) }] })).toBe(`or[${MAX_CONDITIONS - 1}].and[0]: a condition set holds at most ${MAX_CONDITIONS} conditions`);
    const big = { or: [{ attr: 'name', value: 'x'.repeat(MAX_SET_BYTES) }] };
    expect(conditionProblem(big)).toMatch(new RegExp(`^a condition set takes at most ${MAX_SET_BYTES} bytes as JSON`));
    // The attack that took 13 s a write: 1,500 regex conditions.
    expect(conditionProblem({ or: Array.from({ length: 1500 }, (_, i) => ({ attr: 'name', value: `^(a|b|c)*x${i}$`, op: 'regex' })) })).toMatch(/ at most /);
  });

  test('sets nest at most four deep', () => {
    let set: unknown = { and: [{ attr: 'name', value: 'x' }] };
    for (let i = 0; i < 4; i++) set = { and: [set] };
    expect(conditionProblem(set)).toBeNull();
    expect(conditionProblem({ and: [set] })).toBe('and[0].and[0].and[0].and[0].and[0]: condition sets nest at most 4 deep');
  });
});

describe('judgeConditions', () => {
  test('judges, tells why a set cannot be used, and keeps a set compiled per rule version', async () => {
    const set = { and: [{ attr: 'name', value: '^edge', op: 'regex' }] };
    expect(await judgeConditions('1:v1', set, site)).toEqual({ holds: true });
    expect(await judgeConditions('1:v1', set, { name: 'core' })).toEqual({ holds: false });
    expect(await judgeConditions('1:v1', set, { other: 1 })).toEqual({ invalid: 'Invalid key path: name' });
    // The same version is not compiled again: what is kept under 1:v1 judges, whatever set is passed.
    expect(await judgeConditions('1:v1', { and: [{ attr: 'name', value: 'core' }] }, site)).toEqual({ holds: true });
    // A new version (the rule was written) is compiled anew.
    expect(await judgeConditions('1:v2', { and: [{ attr: 'name', value: 'core' }] }, site)).toEqual({ holds: false });
    expect(await judgeConditions('2:v1', { and: [{ attr: 'name', value: '(', op: 'regex' }] }, site)).toEqual({ invalid: expect.stringMatching(/^and\[0\]: invalid regular expression/) });
    // Judged off this thread (the one serving requests): a sandbox worker compiled and keeps them.
    expect(cachedRuleVersions()).toBe(0);
  });
});
