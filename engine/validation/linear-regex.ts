import { RE2JS } from 're2js';

/**
 * Regular expressions that users write (a custom field's validation_regex) run on RE2's engine: time
 * linear in the text, whatever the pattern, so `^(\w+\s?)*$` cannot stall the server as it can a
 * backtracking engine. RE2 has no backreferences or lookaround; such a pattern does not compile.
 */
const compiled = new Map<string, RE2JS | string>();
const MAX_CACHED = 500;

/** The compiled pattern, or the reason it does not compile. */
export function linearRegex(pattern: string): RE2JS | string {
  let re = compiled.get(pattern);
  if (re === undefined) {
    try {
      re = RE2JS.compile(pattern);
    } catch (e) {
      re = (e as Error).message;
    }
    if (compiled.size >= MAX_CACHED) compiled.clear();
    compiled.set(pattern, re);
  }
  return re;
}

/** Whether the text matches somewhere (as Python's re.search and JavaScript's RegExp.test); null when the pattern does not compile. */
export function linearTest(pattern: string, text: string): boolean | null {
  const re = linearRegex(pattern);
  return typeof re === 'string' ? null : re.matcher(text).find();
}
