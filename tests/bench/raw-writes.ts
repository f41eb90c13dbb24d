import { connectDatabase, type DatabaseOptions } from '../../engine/database/connect';
import { pool } from './writes';
import { summarize, type LatencySummary } from './stats';

/**
 * The ceiling for single creates: the INSERT the server sends for one IP address (the same table, columns
 * and values, every trigger active: change log, outbox, occupancy), sent by the bench itself through the
 * same database layer the server uses, one autocommit statement per object, with as many connections as
 * the API run had client threads. No HTTP, no validation, no representation: what PostgreSQL (or PGlite)
 * alone allows for the same rows. API/raw in the report is the share of it create_single reaches.
 */
export interface RawWritePoint {
  threads: number;
  objects: number;
  objPerSec: number;
  latency: LatencySummary;
  error?: string;
}

/** The server's INSERT for a body of address, status and description (engine/writes, defaults filled in). */
const INSERT = `INSERT INTO "ipam_ipaddress" ("address", "status", "role", "assigned_object_type", "assigned_object_id", "dns_name", "description", "comments", "custom_fields")
  VALUES (?::inet, ?, NULL, NULL, NULL, '', ?, '', '{}'::jsonb) RETURNING "id"`;

/** Addresses apart from the API phases' (10.200+round...): 10.150+round.x.y/24, 250 to a /24 as the API phase writes them. */
function address(round: number, i: number): string {
  return `10.${150 + (round % 50)}.${Math.floor(i / 250)}.${(i % 250) + 1}/24`;
}

export async function runRawWrites(connection: DatabaseOptions, objects: number, threads: readonly number[], log: (line: string) => void): Promise<RawWritePoint[]> {
  const out: RawWritePoint[] = [];
  const db = await connectDatabase({ ...connection, poolMax: Math.max(...threads) });
  try {
    for (const [round, n] of threads.entries()) {
      const created: number[] = [];
      const r = await pool(Array.from({ length: objects }, (_, i) => i), n, async (i) => {
        const res = await db.knex.raw<{ id: string }>(INSERT, [address(round, i), 'active', 'bench write']);
        created.push(Number(res.rows[0]!.id));
        return null;
      });
      const point: RawWritePoint = { threads: n, objects, objPerSec: objects / r.seconds, latency: summarize(r.latencies), error: r.errors[0] };
      out.push(point);
      log(`  raw create_single @${n}: ${point.objPerSec.toFixed(1)} obj/s, p50 ${point.latency.p50.toFixed(2)} ms${point.error ? `, error ${point.error}` : ''}`);
      // Deleted again (logged and evented as well), so each round starts from the same table.
      await db.knex.raw('DELETE FROM "ipam_ipaddress" WHERE "id" = ANY(?::bigint[])', [created]);
    }
  } finally {
    await db.close();
  }
  return out;
}
