import type { Db } from '../database/db';

/**
 * Autovacuum's own rule for when a table needs work: ANALYZE once more rows changed than
 * analyzeBase + analyzeScale x rows; VACUUM once more rows are dead than vacuumBase + vacuumScale x rows,
 * or more were inserted than insertBase + insertScale x rows (insertBase -1: never for inserts).
 *
 * The insert rule matters to the trigram indexes: a GIN index keeps new entries in a pending list that
 * only VACUUM or autovacuum's ANALYZE merges (a manual ANALYZE does not: maintainer.ts merges it beside
 * its own), and while it is long the planner prices the index above a sequential scan.
 */
export interface AutovacuumRule {
  analyzeBase: number;
  analyzeScale: number;
  vacuumBase: number;
  vacuumScale: number;
  insertBase: number;
  insertScale: number;
}

/** PostgreSQL's defaults (autovacuum_analyze_threshold, ..._scale_factor, autovacuum_vacuum_threshold, ..., autovacuum_vacuum_insert_threshold, ...). */
export const DEFAULT_RULE: AutovacuumRule = { analyzeBase: 50, analyzeScale: 0.1, vacuumBase: 50, vacuumScale: 0.2, insertBase: 1000, insertScale: 0.2 };

const SETTINGS: Record<string, keyof AutovacuumRule> = {
  autovacuum_analyze_threshold: 'analyzeBase',
  autovacuum_analyze_scale_factor: 'analyzeScale',
  autovacuum_vacuum_threshold: 'vacuumBase',
  autovacuum_vacuum_scale_factor: 'vacuumScale',
  autovacuum_vacuum_insert_threshold: 'insertBase',
  autovacuum_vacuum_insert_scale_factor: 'insertScale',
};

/** The rule as the database is configured (an operator's tuning holds for Patchbay's passes too). */
export async function readAutovacuumRule(db: Db): Promise<AutovacuumRule> {
  const rows = (await db.raw<{ name: string; setting: string }>(`SELECT "name", "setting" FROM pg_settings WHERE "name" = ANY(?)`, [Object.keys(SETTINGS)])).rows;
  const rule = { ...DEFAULT_RULE };
  for (const r of rows) {
    const key = SETTINGS[r.name];
    const value = Number(r.setting);
    if (key && Number.isFinite(value) && (value >= 0 || (key === 'insertBase' && value === -1))) rule[key] = value;
  }
  return rule;
}

/** A never-analyzed table reports -1 rows: autovacuum counts it as empty. */
export const rowsOf = (reltuples: number) => Math.max(0, reltuples);

export function needsAnalyze(rule: AutovacuumRule, changed: number, reltuples: number): boolean {
  return changed > rule.analyzeBase + rule.analyzeScale * rowsOf(reltuples);
}

export function needsVacuum(rule: AutovacuumRule, dead: number, inserted: number, reltuples: number): boolean {
  if (dead > rule.vacuumBase + rule.vacuumScale * rowsOf(reltuples)) return true;
  return rule.insertBase >= 0 && inserted > rule.insertBase + rule.insertScale * rowsOf(reltuples);
}
