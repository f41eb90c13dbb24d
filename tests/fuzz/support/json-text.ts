/**
 * JSON built as text, so a body can say what JSON.stringify never writes: numbers beyond a double
 * (1e400, 2^70 digit for digit), -0, duplicate keys, "__proto__" as an ordinary key, nesting thousands deep.
 */

/** JSON text used verbatim. */
export class Raw {
  constructor(readonly text: string) {}
}

/** An object as a list of entries: keys may repeat and may be any string at all. */
export class Obj {
  constructor(readonly entries: Array<[string, Json]> = []) {}

  get(key: string): Json | undefined {
    return this.entries.find(([k]) => k === key)?.[1];
  }

  has(key: string): boolean {
    return this.entries.some(([k]) => k === key);
  }

  /** Replaces the value of `key` (or appends it). */
  set(key: string, value: Json): this {
    const i = this.entries.findIndex(([k]) => k === key);
    if (i >= 0) this.entries[i] = [key, value];
    else this.entries.push([key, value]);
    return this;
  }

  remove(key: string): this {
    const i = this.entries.findIndex(([k]) => k === key);
    if (i >= 0) this.entries.splice(i, 1);
    return this;
  }

  keys(): string[] {
    return this.entries.map(([k]) => k);
  }
}

export type Json = null | boolean | number | string | Json[] | Obj | Raw;

/** A parsed JSON value (a valid body) as a Json tree. */
export function fromPlain(value: unknown): Json {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean' || typeof value === 'number' || typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(fromPlain);
  return new Obj(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, fromPlain(v)]));
}

/** A deep copy (bodies are mutated per case; the fixtures' stay as they were). */
export function clone(value: Json): Json {
  if (value instanceof Obj) return new Obj(value.entries.map(([k, v]) => [k, clone(v)]));
  if (Array.isArray(value)) return value.map(clone);
  return value;
}

export function toJsonText(value: Json): string {
  if (value instanceof Raw) return value.text;
  if (value instanceof Obj) return `{${value.entries.map(([k, v]) => `${JSON.stringify(k)}:${toJsonText(v)}`).join(',')}}`;
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`;
  // Node writes a lone surrogate as a \ud800 escape: well-formed JSON text naming an ill-formed string.
  return JSON.stringify(value);
}

/** `open` n times, then `inner`, then `close` n times (nesting without recursion). */
export function nested(n: number, open: string, inner: string, close: string): Raw {
  return new Raw(`${open.repeat(n)}${inner}${close.repeat(n)}`);
}
