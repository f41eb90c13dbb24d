import type { Config } from '../config';
import type { Registry } from '../definitions/registry-types';
import type { Db } from '../database/db';
import { brokenRows, ruleSettings } from '../validation/definition-checks';

/**
 * Lists the stored rows that break their definition's rules, one line each: rows written before a rule
 * existed (duplicate IP addresses and prefixes from before unique IP space was enforced) stay as they are,
 * since deleting or changing data is the operator's call, but are never passed over in silence.
 * Returns how many rows break a rule.
 */
export async function reportBrokenRows(db: Db, registry: Registry, config: Config, print: (line: string) => void): Promise<number> {
  let broken = 0;
  for (const model of registry.models.values()) {
    if (!model.def.no_overlap?.length && !model.def.checks?.length) continue;
    for (const row of await brokenRows(db, model, ruleSettings(config))) {
      broken++;
      for (const [field, messages] of Object.entries(row.errors)) {
        for (const message of messages) print(`${model.label} #${row.id} (${row.display}): ${field}: ${message}`);
      }
    }
  }
  return broken;
}
