import { isObject, listBody, type JsonValue } from './http-client';

/** Whether one response has the expected count and shape. A note like "filter ignored" is reported, not failed. */
export interface VerifyOutcome {
  ok: boolean;
  note: string;
}

export type Verifier = (status: number, body: JsonValue | undefined) => VerifyOutcome;

const fail = (note: string): VerifyOutcome => ({ ok: false, note });

export interface ListExpectation {
  limit: number;
  /** The count the filtered list should have. */
  expected: number;
  /** The unfiltered count: a filtered list answering it means the filter is not implemented yet. */
  unfiltered?: number;
  /** Brief lists: every result has exactly these keys (the brief fields NetBox 3.7 serves). */
  briefKeys?: string[];
  /** A key that should be absent (?exclude=...). */
  excluded?: string;
}

export function expectList(e: ListExpectation): Verifier {
  return (status, json) => {
    if (status !== 200) return fail(`HTTP ${status}`);
    const body = listBody(json);
    if (!body) return fail('not a paginated list');
    let note = 'ok';
    let expected = e.expected;
    if (e.unfiltered !== undefined && e.expected !== e.unfiltered && body.count === e.unfiltered) {
      note = 'filter ignored';
      expected = e.unfiltered;
    }
    if (body.count !== expected) return fail(`count ${body.count}, expected ${expected}`);
    const want = Math.min(e.limit, expected);
    if (body.results.length !== want) return fail(`${body.results.length} results, expected ${want}`);
    if (e.briefKeys) {
      const allowed = new Set(e.briefKeys);
      const bad = body.results.find((r) => Object.keys(r).some((k) => !allowed.has(k)) || e.briefKeys!.some((k) => !(k in r)));
      if (bad) return fail(`brief keys ${Object.keys(bad).join(',')}`);
    }
    if (e.excluded && body.results.some((r) => e.excluded! in r)) note = note === 'ok' ? 'exclude ignored' : `${note}, exclude ignored`;
    return { ok: true, note };
  };
}

export function expectDetail(id: number, keys: string[] = []): Verifier {
  return (status, json) => {
    if (status !== 200) return fail(`HTTP ${status}`);
    if (!isObject(json) || json.id !== id) return fail('not the asked object');
    const missing = keys.filter((k) => !(k in json));
    return missing.length ? fail(`missing ${missing.join(',')}`) : { ok: true, note: 'ok' };
  };
}
