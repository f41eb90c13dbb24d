import { HttpError } from '../../http/http-error';
import { badStringMessage } from '../../validation/string-hygiene';

/**
 * The query of NetBox's rack elevation (RackElevationDetailFilterSerializer), read as DRF reads it: the
 * last value of each parameter, integers as DRF's IntegerField takes them ("5", " 5 ", "5.0"), booleans
 * from DRF's lists of true and false words, and every fault reported at once as {field: [message]}.
 */
export interface ElevationParams {
  face: string;
  render: 'json' | 'svg';
  /** A device id to leave out (NetBox's `exclude`); null: none, or an id no row can have. */
  exclude: string | null;
  expandDevices: boolean;
  q: string | null;
}

/** DRF's BooleanField.TRUE_VALUES and FALSE_VALUES, as query strings. */
const TRUE_WORDS = new Set(['t', 'T', 'y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON', '1']);
const FALSE_WORDS = new Set(['f', 'F', 'n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF', '0']);

/** DRF's IntegerField: optional spaces and sign, digits, and a fraction of zeros. */
const INTEGER = /^\s*([+-]?\d+)(?:\.0*)?\s*$/;

/** The largest id a bigint holds: a larger `exclude` names no row. */
const MAX_ID = 2n ** 63n - 1n;

export function parseElevationParams(query: URLSearchParams, faces: readonly string[]): ElevationParams {
  const errors: Record<string, string[]> = {};
  const last = (name: string): string | undefined => query.getAll(name).at(-1);
  const fail = (name: string, message: string) => (errors[name] = [message]);
  const hygienic = (name: string, raw: string): boolean => {
    const problem = badStringMessage(raw);
    if (problem) fail(name, problem);
    return !problem;
  };

  const choice = <T extends string>(name: string, choices: readonly T[], fallback: T): T => {
    const raw = last(name);
    if (raw === undefined) return fallback;
    if ((choices as readonly string[]).includes(raw)) return raw as T;
    if (hygienic(name, raw)) fail(name, `"${raw}" is not a valid choice.`);
    return fallback;
  };
  const integer = (name: string): bigint | null => {
    const raw = last(name);
    if (raw === undefined) return null;
    const m = raw.length <= 1000 ? INTEGER.exec(raw) : null;
    if (m) return BigInt(m[1]!);
    if (hygienic(name, raw)) fail(name, 'A valid integer is required.');
    return null;
  };
  const boolean = (name: string, fallback: boolean): boolean => {
    const raw = last(name);
    if (raw === undefined) return fallback;
    if (TRUE_WORDS.has(raw)) return true;
    if (FALSE_WORDS.has(raw)) return false;
    if (hygienic(name, raw)) fail(name, 'Must be a valid boolean.');
    return fallback;
  };

  const face = choice('face', faces, faces[0] ?? 'front');
  const render = choice('render', ['json', 'svg'] as const, 'json');
  // Read only to be checked, as NetBox checks them: they size the SVG drawing, which is not served.
  for (const name of ['unit_width', 'unit_height', 'legend_width', 'margin_width']) integer(name);
  boolean('include_images', true);
  const excluded = integer('exclude');
  const expandDevices = boolean('expand_devices', true);
  let q: string | null = null;
  const rawQ = last('q');
  if (rawQ !== undefined && hygienic('q', rawQ)) {
    // DRF's CharField trims the value and refuses it blank.
    q = rawQ.trim();
    if (!q) fail('q', 'This field may not be blank.');
  }
  if (Object.keys(errors).length) throw new HttpError(400, errors);
  if (render === 'svg') throw new HttpError(400, { render: ['SVG rendering is not supported: ask for render=json.'] });
  const exclude = excluded !== null && excluded >= -MAX_ID && excluded <= MAX_ID ? excluded.toString() : null;
  return { face, render, exclude, expandDevices, q };
}
