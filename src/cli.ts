import { fileURLToPath } from 'node:url';
import { ConfigError, envToConfig } from './config/config.js';
import { readEnv } from './config/env.js';
import { Database } from './db/database.js';
import { migrateToLatest } from './db/migrator.js';
import { dnsOnly, serve, untilSignal, work } from './main.js';
import { adminCommand } from './modules/identity/admin-cli.js';

const USAGE = `Usage: stratus <command>

Commands:
  serve [--no-worker]   start the API server (and the in-process job worker unless --no-worker)
  worker                run only the job worker (several may share one PostgreSQL)
  dns                   run only the authoritative DNS server (STRATUS_DNS_PORT, STRATUS_DNS_HOST)
  migrate               apply pending database migrations
  admin bootstrap --email E --username U [--token T]
  admin token --username U [--scopes S] [--expiry ISO] [--label L]
  admin users [--euuid E]
  state reset [--euuid E]          back to the first-start state (every account, or one)
  state export [--file F] [--no-bytes]
                                   the whole state with its object and image bytes, as one
                                   NDJSON snapshot (stdout without --file); --no-bytes: the rows
                                   alone, as one JSON document
  state import --file F|-          replace the whole state with a snapshot (NDJSON or JSON)
  faults get | set --file F | clear
  timing get | set --profile instant|fast|realistic
  operator-token                   draw a new operator token for /_stratus/* and print it
  maintenance create --compute ID [--type migrate|power_off_on|reboot|cold_migration|
              live_migration] [--emergency] [--source platform|user] [--when ISO]
              [--until ISO] [--reason R]    schedule an instance's maintenance (default: what
                                   its maintenance policy says, after the policy's notice)
  maintenance list [--euuid E] | cancel --id N
  images build-test [--name NAME] [OUT]
                                   build the QEMU driver's tiny test image (compute/NAME, default
                                   alpine3.20) from Debian's packages into OUT (STRATUS_VM_IMAGES)

Configuration comes from environment variables; see README.md.`;

/** `stratus images build-test`: runs scripts/build-test-image.sh (bash) with the arguments. */
async function imagesCommand(rest: string[]): Promise<number> {
  const [sub, ...args] = rest;
  if (sub !== 'build-test') {
    console.error(`Unknown images command "${sub ?? ''}".\n\n${USAGE}`);
    return 2;
  }
  const script = fileURLToPath(new URL('../scripts/build-test-image.sh', import.meta.url));
  const { spawnSync } = await import('node:child_process');
  const r = spawnSync('bash', [script, ...args], { stdio: 'inherit' });
  return r.status ?? 1;
}

/** What the runner of the CLI (bin/stratus.js) is told. */
export interface CliHooks {
  /** Called once `serve` listens: bin/run-bundle.js then makes the bundle's code cache. */
  started?: () => void;
}

/** Runs the CLI; returns the exit code. */
export async function main(argv: string[], hooks: CliHooks = {}): Promise<number> {
  const [command, ...rest] = argv;
  try {
    const config = envToConfig(readEnv());
    switch (command) {
      case 'serve': {
        const unknown = rest.filter((a) => a !== '--no-worker');
        if (unknown.length > 0) {
          console.error(`Unknown option for serve: ${unknown.join(' ')}`);
          return 2;
        }
        const noWorker = rest.includes('--no-worker');
        const running = await serve(noWorker ? { ...config, inProcessWorker: false } : config);
        hooks.started?.();
        await untilSignal(running.close);
        return 0;
      }
      case 'worker': {
        const running = await work(config);
        await untilSignal(running.close);
        return 0;
      }
      case 'dns': {
        if (config.dns.port === undefined) {
          console.error('stratus dns needs STRATUS_DNS_PORT (and optionally STRATUS_DNS_HOST).');
          return 2;
        }
        const running = await dnsOnly(config);
        await untilSignal(running.close);
        return 0;
      }
      case 'migrate': {
        const db = Database.connect(config.databaseUrl);
        try {
          const applied = await migrateToLatest(db.db, db.dialect);
          console.log(JSON.stringify({ applied }));
        } finally {
          await db.close();
        }
        return 0;
      }
      case 'admin':
        return await adminCommand(config, rest);
      case 'state':
      case 'faults':
      case 'timing':
      case 'operator-token':
        // Loaded on demand: the server's start does not pay for it.
        return await (await import('./modules/controls/controls.cli.js')).controlsCommand(
          config,
          command,
          rest,
        );
      case 'maintenance':
        return await (
          await import('./modules/account-notices/maintenance.cli.js')
        ).maintenanceCommand(config, rest);
      case 'images':
        return await imagesCommand(rest);
      case undefined:
      case 'help':
      case '--help':
        console.log(USAGE);
        return command === undefined ? 1 : 0;
      default:
        console.error(`Unknown command "${command}".\n\n${USAGE}`);
        return 2;
    }
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`Configuration error: ${err.message}`);
      return 78;
    }
    console.error(err instanceof Error ? err.message : String(err));
    return 1;
  }
}
