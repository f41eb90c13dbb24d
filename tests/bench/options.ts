import { WRITE_MODES, type WriteMode } from './write-modes';
/** The command line of `npm run bench`. */

export interface BenchOptions {
  /** Seconds per measured point (one scenario at one connection count). */
  duration: number;
  /** Seconds of each raw-SQL point. */
  rawDuration: number;
  /** Seconds of unrecorded warm-up before each scenario. */
  warmup: number;
  /** Multiplies the baseline's object counts. */
  scale: number;
  /** PGlite in a temporary folder instead of PostgreSQL. */
  embedded: boolean;
  /** Scenario names to run ('writes' names the write phases); null runs all. */
  only: Set<string> | null;
  connections: number[];
  help: boolean;
  /** Objects each write phase creates, patches and deletes (default from the scale). */
  writeObjects?: number;
  /** The conditions the write phases run under (tests/bench/write-modes.ts). */
  writeModes: WriteMode[];
  /** Overrides of the data set for the filter benchmark: IP addresses and /24 prefixes. */
  ips?: number;
  prefixes?: number;
}

export const USAGE = `usage: npm run bench -- [options]

  --duration <s>     seconds per measured point (default 10)
  --scale <x>        multiply the baseline data set (default 1)
  --embedded         run the server on embedded PGlite in a temp folder (default: PostgreSQL,
                     DATABASE_URL if set, else database patchbay_bench on 127.0.0.1, recreated)
  --only <a,b,...>   run only these scenarios ("writes" names the write phases, "templates" the
                     template sandbox phase: renders/s, exports/s and the server's memory)
  --quick            smoke run: --duration 2 --scale 0.1
  --write-objects <n> objects each write phase writes (default 500 x scale)
  --write-modes <m>  the write phases under each of: log (as served, default), nolog (the change log's
                     triggers disabled; PostgreSQL only), webhook (one active event rule and webhook)
  --ips <n>          IP addresses to seed, whatever the scale (the filter benchmark uses 100000)
  --prefixes <n>     /24 prefixes to seed (the filter benchmark uses 20000)
  --topology         instead: 1 instance on the primary vs 2 instances with a streaming standby, on
                     tools/replication/cluster.sh (docs/scaling-out/topology.md; --topology --help)`;

function numberFlag(name: string, raw: string | undefined): number {
  const n = Number(raw);
  if (raw === undefined || raw.startsWith('--') || !Number.isFinite(n) || n <= 0) {
    throw new Error(`${name} needs a positive number`);
  }
  return n;
}

export function parseOptions(args: readonly string[]): BenchOptions {
  let duration: number | undefined;
  let scale: number | undefined;
  let quick = false;
  let embedded = false;
  let help = false;
  let only: Set<string> | null = null;
  let ips: number | undefined;
  let prefixes: number | undefined;
  let writeModes: WriteMode[] = ['log'];
  let writeObjects: number | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    switch (arg) {
      case '--duration':
        duration = numberFlag(arg, args[++i]);
        break;
      case '--scale':
        scale = numberFlag(arg, args[++i]);
        break;
      case '--ips':
        ips = Math.round(numberFlag(arg, args[++i]));
        break;
      case '--prefixes':
        prefixes = Math.round(numberFlag(arg, args[++i]));
        break;
      case '--write-objects':
        writeObjects = Math.round(numberFlag(arg, args[++i]));
        break;
      case '--write-modes': {
        const raw = args[++i];
        const modes = (raw ?? '').split(',').map((m) => m.trim()).filter(Boolean);
        const bad = modes.filter((m) => !(WRITE_MODES as readonly string[]).includes(m));
        if (!modes.length || bad.length) throw new Error(`--write-modes takes a list of ${WRITE_MODES.join(', ')}`);
        writeModes = modes as WriteMode[];
        break;
      }
      case '--embedded':
        embedded = true;
        break;
      case '--quick':
        quick = true;
        break;
      case '--only': {
        const raw = args[++i];
        if (raw === undefined || raw.startsWith('--')) throw new Error('--only needs a list of scenario names');
        only = new Set(raw.split(',').map((s) => s.trim()).filter(Boolean));
        break;
      }
      case '--help':
      case '-h':
        help = true;
        break;
      default:
        throw new Error(`unknown option ${arg}`);
    }
  }
  const d = duration ?? (quick ? 2 : 10);
  return {
    duration: d,
    rawDuration: Math.min(2, Math.max(1, d / 5)),
    warmup: Math.min(1, d / 2),
    scale: scale ?? (quick ? 0.1 : 1),
    embedded,
    only,
    writeModes,
    writeObjects,
    connections: [1, 8],
    help,
    ips,
    prefixes,
  };
}
