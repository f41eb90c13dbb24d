import type { ErrorObject } from 'ajv';
import { DefinitionError } from './definition-error';

/** The value a JSON pointer names in a document, or undefined. */
function valueAt(root: unknown, pointer: string): unknown {
  let cur = root;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Ajv's errors (run with allErrors) as faults at the pointer of the value at fault, worded for a model
 * author. The errors that only say "the `then` branch did not match" are left out: the branch's own
 * error says what did not.
 */
export function schemaFaults(file: string, errors: readonly ErrorObject[], data: unknown, prefix = ''): DefinitionError[] {
  const out: DefinitionError[] = [];
  for (const raw of telling(errors)) {
    const e = { ...raw, instancePath: `${prefix}${raw.instancePath}` };
    const local = raw.instancePath;
    if (e.keyword === 'if') continue;
    const p = e.params as Record<string, unknown>;
    if (e.keyword === 'additionalProperties') {
      const name = String(p.additionalProperty);
      const owner = valueAt(data, local) as { type?: unknown } | undefined;
      // A word outside the options of the field's kind (schema/model.schema.json: each kind's `then`).
      const kind = /^\/fields\/[^/]+$/.test(local) && typeof owner?.type === 'string' ? owner.type : null;
      out.push(new DefinitionError(file, `${e.instancePath}/${escape(name)}`, kind ? `"${name}" is not an option of ${/^([aeiou]|m2m|fk)/.test(kind) ? 'an' : 'a'} ${kind} field` : `unknown property "${name}"`));
    } else if (e.keyword === 'required') {
      out.push(new DefinitionError(file, e.instancePath, `missing "${String(p.missingProperty)}"`));
    } else if (e.keyword === 'enum') {
      out.push(new DefinitionError(file, e.instancePath, `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`));
    } else {
      out.push(new DefinitionError(file, e.instancePath, e.message ?? 'invalid'));
    }
  }
  return out;
}

/**
 * Of a value that matches none of a oneOf's (anyOf's) alternatives, the faults of the alternatives of
 * its shape: an object given where a string or an object may go is told what the object lacks, not also
 * that it is no string. When no alternative has its shape, the summary alone ("must match exactly one
 * schema in oneOf") is told.
 */
function telling(errors: readonly ErrorObject[]): ErrorObject[] {
  const drop = new Set<ErrorObject>();
  for (const choice of errors) {
    if (choice.keyword !== 'oneOf' && choice.keyword !== 'anyOf') continue;
    const branches = errors.filter((e) => e !== choice && e.schemaPath.startsWith(`${choice.schemaPath}/`));
    const wrongShape = (e: ErrorObject) => e.keyword === 'type' && e.instancePath === choice.instancePath;
    const shaped = branches.filter((e) => !wrongShape(e));
    if (shaped.length) {
      drop.add(choice);
      branches.filter(wrongShape).forEach((e) => drop.add(e));
    } else branches.forEach((e) => drop.add(e));
  }
  return errors.filter((e) => !drop.has(e));
}
