/**
 * NetBox 3.7.8's condensed OpenAPI, carried in the repository (see README.md here for its provenance):
 * tests read it through this module so that no test depends on a file outside the checkout.
 */
import fs from 'node:fs';
import path from 'node:path';

export const NETBOX_REFERENCE_FILE = path.join(__dirname, 'netbox-3.7-api.json');

/** The parsed reference, typed by the caller to the part it reads. */
export function readNetboxReference<T>(): T {
  return JSON.parse(fs.readFileSync(NETBOX_REFERENCE_FILE, 'utf8')) as T;
}
