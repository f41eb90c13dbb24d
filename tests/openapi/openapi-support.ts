import { execFile } from 'node:child_process';
import path from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

export type Json = Record<string, unknown>;
export type OpenApi = Json & { paths: Record<string, Record<string, Json>>; components: Json & { schemas: Record<string, Json> } };

const ROOT = path.resolve(__dirname, '../..');
const VALIDATE = `
import { Validator } from '@seriousme/openapi-schema-validator';
let text = '';
for await (const chunk of process.stdin) text += chunk;
const result = await new Validator().validate(JSON.parse(text));
process.stdout.write(JSON.stringify({ valid: result.valid, errors: result.errors }));
`;

/**
 * The OpenAPI validator is an ES module, run in a node process of its own. Reached from jest (CommonJS
 * here) through a dynamic import, it failed at random with "Test environment has been torn down" when a
 * jest worker had already run another file that imported it: the import came back to the earlier file's
 * torn-down module loader.
 */
export async function validateOpenApi(doc: unknown): Promise<{ valid: boolean; errors?: unknown }> {
  const out = await new Promise<string>((resolve, reject) => {
    const child = execFile(process.execPath, ['--input-type=module', '-e', VALIDATE], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
      err ? reject(new Error(`the OpenAPI validator failed: ${err.message}\n${stderr}`)) : resolve(stdout),
    );
    child.stdin!.end(JSON.stringify(doc));
  });
  return JSON.parse(out) as { valid: boolean; errors?: unknown };
}

/** Follows a local JSON pointer (`#/components/schemas/X`) in the document; undefined when it names nothing. */
export function resolvePointer(doc: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let cur: unknown = doc;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, key)) return undefined;
    cur = (cur as Json)[key];
  }
  return cur;
}

/** Every `$ref` in the document with where it stands. */
export function allRefs(doc: unknown): Array<{ at: string; ref: string }> {
  const out: Array<{ at: string; ref: string }> = [];
  const walk = (v: unknown, at: string) => {
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${at}/${i}`));
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k === '$ref' && typeof x === 'string') out.push({ at, ref: x });
        else walk(x, `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`);
      }
    }
  };
  walk(doc, '#');
  return out;
}

export const pointer = (...parts: string[]) => `#/${parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;

/**
 * Validates values against schemas in the document with ajv's JSON Schema 2020-12 dialect (the one
 * OpenAPI 3.1 uses): the document is added whole under an id, and any pointer into it compiles.
 */
export class DocumentValidator {
  private readonly ajv: Ajv2020;
  private readonly cache = new Map<string, ValidateFunction>();
  private static readonly ID = 'https://patchbay.invalid/openapi.json';

  constructor(doc: OpenApi) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: DocumentValidator.ID, components: doc.components, paths: doc.paths }, DocumentValidator.ID);
  }

  /** Errors of the value against the schema at the pointer (`#/components/schemas/DcimSite`, or a response's schema); [] when valid. */
  errors(at: string, value: unknown): string[] {
    let v = this.cache.get(at);
    if (!v) {
      v = this.ajv.compile({ $ref: `${DocumentValidator.ID}${at}` });
      this.cache.set(at, v);
    }
    if (v(value)) return [];
    return (v.errors ?? []).slice(0, 12).map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword} ${JSON.stringify(e.params)} (${e.schemaPath})`);
  }
}

/** The JSON schema pointer of an operation's response body. */
export function responsePointer(path: string, method: string, status: number | string): string {
  return pointer('paths', path, method, 'responses', String(status), 'content', 'application/json', 'schema');
}

/** The JSON schema pointer of an operation's request body. */
export function requestPointer(path: string, method: string): string {
  return pointer('paths', path, method, 'requestBody', 'content', 'application/json', 'schema');
}

/** A component response (`$ref: #/components/responses/X`) is followed to its schema pointer. */
export function errorResponsePointer(doc: OpenApi, path: string, method: string, status: number): string | undefined {
  const r = resolvePointer(doc, pointer('paths', path, method, 'responses', String(status))) as Json | undefined;
  if (!r) return undefined;
  if (typeof r.$ref === 'string') return `${r.$ref}/content/application~1json/schema`;
  return responsePointer(path, method, status);
}
