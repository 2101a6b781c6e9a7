import type { Logger } from 'pino';
import { type Areas, areaModules } from './areas.js';
import type { Config } from './config/config.js';
import { Database } from './db/database.js';
import { migrateToLatest } from './db/migrator.js';
import { EntityRegistry, type EntityType } from './entities/entities.js';
import { Metrics } from './http/metrics.js';
import { MemoryRateLimitStore } from './http/rate-limit.js';
import { JobQueue } from './jobs/queue.js';
import { JobRunner } from './jobs/runner.js';
import { Timing } from './jobs/timing.js';
import { type ControllableClock, EmulatorClock } from './lib/clock.js';
import { createLogger, subsystem } from './logger.js';
import { DbRateLimitStore } from './modules/controls/rate-limit-store.js';
import { readSeedFile, seedIdentities } from './modules/controls/seed.js';
import { StateService } from './modules/controls/state.service.js';
import { EventWriter } from './modules/events/events.writer.js';
import { ensureDefaultAccount } from './modules/identity/bootstrap.js';
import { STRATUS_VERSION } from './platform/version.js';
import type { AnyArea } from './platform/area.js';
import { checkAreas } from './platform/check-areas.js';
import type { Platform, Runtime } from './platform/platform.js';
import { Sealer, sealerStateHook } from './platform/sealer.js';
import type { StateHook } from './platform/state-hook.js';
import { type BlobStores, createBlobStores } from './storage/index.js';

/** Everything a process needs, wired explicitly. Nothing is created at import time. */
export interface AppContext extends Runtime {
  /** Every area's services, by area (src/areas.ts): `ctx.areas.compute.instances`. */
  areas: Areas;
  /** The areas the context was built from, in their order (src/areas.ts). */
  modules: readonly AnyArea[];
  /** State kept outside the database, every area's and the platform's: reset and import call each. */
  stateHooks: StateHook[];
}

export interface ContextOverrides {
  clock?: ControllableClock;
  log?: Logger;
  db?: Database;
  /** Entity types declared in addition to the areas' own (tests of the cross-cutting views). */
  entities?: EntityType[];
  /** The blob stores of the areas (default: the configured backend, STRATUS_BLOB_*). */
  blobStores?: BlobStores;
  /** Areas served after the shipped ones (tests of the area mechanism itself). */
  areas?: readonly AnyArea[];
}

/** Connects, migrates, builds the platform, then every area's services in the list's order. */
export async function createContext(
  config: Config,
  overrides: ContextOverrides = {},
): Promise<AppContext> {
  const modules: readonly AnyArea[] = [...areaModules, ...(overrides.areas ?? [])];
  checkAreas(modules);
  const log = overrides.log ?? createLogger(config.logLevel);
  const clock = overrides.clock ?? new EmulatorClock();
  const db = overrides.db ?? Database.connect(config.databaseUrl);
  await migrateToLatest(db.db, db.dialect);

  const entities = new EntityRegistry([
    ...modules.flatMap((m) => m.entities ?? []),
    ...(overrides.entities ?? []),
  ]);
  const timing = new Timing(config.timing);
  const events = new EventWriter(clock);
  const queue = new JobQueue(clock);
  const runner = new JobRunner({
    db,
    config,
    clock,
    timing,
    events,
    queue,
    entities,
    log: subsystem(log, 'jobs'),
    definitions: modules.flatMap((m) => m.jobs ?? []),
  });
  queue.onEnqueue = () => runner.wake();
  const platform: Platform = {
    config,
    db,
    clock,
    timing,
    log,
    events,
    queue,
    runner,
    entities,
    sealer: new Sealer(db, config.encryptionKey),
    blobs: overrides.blobStores ?? (await createBlobStores(config.dataDir, config.blob)),
  };

  const built: Record<string, unknown> = {};
  for (const m of modules) built[m.name] = m.services(platform, needsOf(m, built));
  for (const m of modules) await m.start?.(built[m.name], platform);
  const stateHooks: StateHook[] = [
    ...modules.flatMap((m) => m.stateHooks?.(built[m.name], platform) ?? []),
    sealerStateHook(platform.sealer),
  ];
  const state = new StateService({
    db,
    clock,
    hooks: stateHooks,
    version: STRATUS_VERSION,
    firstStart: async (tx) => {
      const first = await ensureDefaultAccount(tx, clock, config.adminToken);
      const seed = config.seedFile ? await readSeedFile(config.seedFile) : undefined;
      const seeded = seed ? { file: seed, ...(await seedIdentities(tx, clock, seed)) } : undefined;
      return {
        ...(first && !config.adminToken ? { adminToken: first.token } : {}),
        ...(seeded ? { seeded } : {}),
      };
    },
  });
  return {
    ...platform,
    // The list's types are the modules' own: the built record holds exactly their services.
    areas: built as Areas,
    modules,
    state,
    stateHooks,
    rateLimits: db.dialect === 'postgres' ? new DbRateLimitStore(db) : new MemoryRateLimitStore(),
    metrics: new Metrics(),
  };
}

/**
 * The services of the areas `area` needs, by name, from those built so far. Reading any other
 * area through it throws, naming both: an area uses only what it declared.
 */
export function needsOf(
  area: AnyArea,
  built: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const needs = Object.fromEntries(area.needs.map((n) => [n.name, built[n.name]]));
  return new Proxy(needs, {
    get(target, key) {
      if (typeof key === 'string' && !Object.hasOwn(target, key) && Object.hasOwn(built, key)) {
        throw new Error(`area ${area.name} uses area ${key} without declaring it in needs`);
      }
      return Reflect.get(target, key);
    },
  });
}

/** The version written into snapshots (src/platform/version.ts). */
export { STRATUS_VERSION };
