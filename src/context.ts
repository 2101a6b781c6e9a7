import type { Logger } from 'pino';
import { Heartbeat } from './jobs/heartbeat.js';
import { type Areas, areaModules } from './areas.js';
import type { Config } from './config/config.js';
import type { Database } from './db/database.js';
import { connectMigrated } from './db/fresh-image.js';
import { migrateToLatest } from './db/migrator.js';
import { EntityRegistry, type EntityType } from './entities/entities.js';
import { Metrics } from './http/metrics.js';
import { MemoryRateLimitStore } from './http/rate-limit.js';
import { JobQueue } from './jobs/queue.js';
import { JobRunner } from './jobs/runner.js';
import { Timing } from './jobs/timing.js';
import { type ControllableClock, EmulatorClock } from './lib/clock.js';
import { createLogger, subsystem } from './logger.js';
import { type ComputeDriver, createComputeDriver } from './machines/index.js';
import { DbRateLimitStore } from './modules/controls/rate-limit-store.js';
import { readSeedFile, seedIdentities } from './modules/controls/seed.js';
import { StateService } from './modules/controls/state.service.js';
import { EventWriter } from './modules/events/events.writer.js';
import { ensureDefaultAccount, restoreBootstrapTokens } from './modules/identity/bootstrap.js';
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
  /** This process's job-worker heartbeat (started where the runner runs). */
  heartbeat: Heartbeat;
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
  /** The compute driver (default: STRATUS_COMPUTE_DRIVER's). */
  machines?: ComputeDriver;
  /** Wall-clock time for heartbeats and readiness (tests); default Date.now. */
  wallNow?: () => number;
}

/** Connects, migrates, builds the platform, then every area's services in the list's order. */
export async function createContext(
  config: Config,
  overrides: ContextOverrides = {},
): Promise<AppContext> {
  const modules: readonly AnyArea[] = [...areaModules, ...(overrides.areas ?? [])];
  checkAreas(modules);
  const log = overrides.log ?? createLogger(config.logLevel, config.logFormat);
  const clock = overrides.clock ?? new EmulatorClock();
  const db =
    overrides.db ??
    (await connectMigrated(config.databaseUrl, { statements: config.pgStatements }));
  if (overrides.db) await migrateToLatest(db.db, db.dialect);

  const entities = new EntityRegistry([
    ...modules.flatMap((m) => m.entities ?? []),
    ...(overrides.entities ?? []),
  ]);
  const timing = new Timing(config.timing);
  const events = new EventWriter(clock);
  const queue = new JobQueue(clock);
  const blobs = overrides.blobStores ?? (await createBlobStores(config.dataDir, config.blob));
  const machines =
    overrides.machines ?? (await createComputeDriver(config.machines, blobs('images'), log));
  const runner = new JobRunner({
    blobs,
    db,
    config,
    clock,
    timing,
    events,
    queue,
    entities,
    log: subsystem(log, 'jobs'),
    machines,
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
    blobs,
    machines,
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
    firstStart: async (tx, kept) => {
      const first = await ensureDefaultAccount(tx, clock, config.adminToken);
      // Read again (a reset applies the file as it is now); checked at every start.
      const seed = config.seedFile ? await readSeedFile(config.seedFile) : undefined;
      const seeded = seed ? { file: seed, ...(await seedIdentities(tx, clock, seed)) } : undefined;
      // After a reset the default admin gets its earlier token back (the one a test suite or an
      // operator holds); seeded accounts get their configured token, or a new one shown again.
      const restored =
        first && kept && !config.adminToken
          ? await restoreBootstrapTokens(tx, kept, [first.username])
          : new Set<string>();
      const adminToken =
        first && !config.adminToken && !restored.has(first.username) ? first.token : undefined;
      return { ...(adminToken ? { adminToken } : {}), ...(seeded ? { seeded } : {}) };
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
    heartbeat: new Heartbeat({
      db,
      runner,
      log: subsystem(log, 'jobs'),
      version: STRATUS_VERSION,
      ...(overrides.wallNow ? { wallNow: overrides.wallNow } : {}),
    }),
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

/** The version written into snapshots (package.json's, src/platform/version.ts). */
export { STRATUS_VERSION };
