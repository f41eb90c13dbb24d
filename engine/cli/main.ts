import { loadConfig } from '../config';
import { loadRegistry, openDatabase, openMigrated } from '../boot';
import { makeMigrations } from './makemigrations';
import { check } from './check';
import { reportBrokenRows } from './check-data';
import { createSuperuser } from './createsuperuser';
import { migrate } from '../migrations/migrator';
import { keepJitOffForDatabase } from '../database/transaction-mode-settings';
import { serve } from '../../server';
import { startDispatcher } from '../events/start-dispatcher';
import { onStopSignal } from './stop-signals';
import { importCommand, IMPORT_USAGE } from './import-command';

const USAGE = `usage: patchbay <command>

  serve                         apply migrations and serve the API (PORT, HOST, DATABASE_URL, PATCHBAY_DATA_DIR)
  migrate                       apply pending migrations
  makemigrations [--check]      write the migration schema/ needs; --check fails if one is missing
  generate [--check]            regenerate TypeScript types and docs from schema/; --check fails if stale
  check                         check every definition without a database; prints each fault as file:pointer: reason
  check --data                  list the stored rows that break a rule of their definition (duplicate IP addresses
                                and prefixes from before unique IP space was enforced); exits 1 if any
  worker                        dispatch the event outbox (webhooks) until stopped; needs DATABASE_URL
  createsuperuser --username U --password P [--token KEY]
                                create a superuser and an API token; prints the token key
  ${IMPORT_USAGE}`;

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const v = args[i + 1];
  if (v === undefined || v.startsWith('--')) throw new Error(`${name} needs a value`);
  return v;
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  const config = loadConfig();
  switch (command) {
    case 'serve': {
      await serve();
      return 0;
    }
    case 'migrate': {
      const registry = loadRegistry(config.schemaDir);
      const db = await openDatabase(config);
      try {
        const applied = await migrate(db.knex, config.migrationsDir);
        if (config.databaseUrl) await keepJitOffForDatabase(db.knex, config.dbPoolMode);
        console.log(applied.length ? `applied: ${applied.join(', ')}` : 'no migrations to apply');
        // Rows from before a rule existed stay; the operator is told which, and the migration still succeeds.
        const broken = await reportBrokenRows(db.knex, registry, config, (line) => console.warn(`warning: ${line}`));
        if (broken) console.warn(`warning: ${broken} stored row${broken === 1 ? '' : 's'} break${broken === 1 ? 's' : ''} a rule of ${broken === 1 ? 'its' : 'their'} definition; writes to ${broken === 1 ? 'it' : 'them'} will be refused until fixed`);
      } finally {
        await db.close();
      }
      return 0;
    }
    case 'worker': {
      const registry = loadRegistry(config.schemaDir);
      const { db } = await openMigrated(config);
      const dispatcher = startDispatcher(db.knex, registry, config);
      if (!dispatcher) {
        await db.close();
        console.error('no model plays the event_outbox, event_rule and webhook roles: nothing to dispatch');
        return 2;
      }
      console.log(`Patchbay event worker dispatching the outbox on ${db.embedded ? 'embedded PostgreSQL' : 'PostgreSQL'}`);
      await new Promise<void>(() => {
        onStopSignal(async () => {
          await dispatcher.stop();
          await db.close();
        });
      });
      return 0;
    }
    case 'check': {
      if (!args.includes('--data')) return check(config);
      const registry = loadRegistry(config.schemaDir);
      const { db } = await openMigrated(config);
      try {
        const broken = await reportBrokenRows(db.knex, registry, config, (line) => console.log(line));
        console.log(broken ? `${broken} stored row${broken === 1 ? '' : 's'} break${broken === 1 ? 's' : ''} a rule of ${broken === 1 ? 'its' : 'their'} definition` : 'every stored row keeps the rules of its definition');
        return broken ? 1 : 0;
      } finally {
        await db.close();
      }
    }
    case 'import':
      return importCommand(config, args);
    case 'makemigrations':
      return makeMigrations(config, args.includes('--check'));
    case 'generate': {
      // A development command: json-schema-to-typescript is a devDependency, absent from a production install.
      const loaded = await import('./generate').catch((e: unknown) => {
        if ((e as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw e;
        return null;
      });
      if (!loaded) {
        console.error('generate is a development command: it needs the development dependencies (npm install)');
        return 2;
      }
      return loaded.generate(config, args.includes('--check'));
    }
    case 'createsuperuser': {
      const username = flag(args, '--username');
      const password = flag(args, '--password');
      if (!username || !password) {
        console.error('createsuperuser needs --username and --password');
        return 2;
      }
      const token = flag(args, '--token');
      if (token !== undefined && !/^[0-9a-fA-F]{40}$/.test(token)) {
        console.error('--token must be 40 hexadecimal characters');
        return 2;
      }
      const registry = loadRegistry(config.schemaDir);
      const { db } = await openMigrated(config);
      try {
        const key = await createSuperuser(db.knex, registry, username, password, token);
        console.log(key);
      } finally {
        await db.close();
      }
      return 0;
    }
    default:
      console.error(USAGE);
      return command === undefined || command === 'help' || command === '--help' ? 0 : 2;
  }
}
