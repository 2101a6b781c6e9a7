import type { Logger } from 'pino';
import type { Config } from './config/config.js';
import { Database } from './db/database.js';
import { migrateToLatest } from './db/migrator.js';
import { Metrics } from './http/metrics.js';
import { MemoryRateLimitStore, type RateLimitStore } from './http/rate-limit.js';
import { JobQueue } from './jobs/queue.js';
import { jobDefinitions } from './jobs/registry.js';
import { JobRunner } from './jobs/runner.js';
import { Timing } from './jobs/timing.js';
import { type Clock, systemClock } from './lib/clock.js';
import { createLogger, subsystem } from './logger.js';
import { type CatalogueData, catalogueData } from './modules/catalogue/catalogue.data.js';
import { seedCatalogue } from './modules/catalogue/catalogue.repository.js';
import { CatalogueService } from './modules/catalogue/catalogue.service.js';
import { EventsService } from './modules/events/events.service.js';
import { EventWriter } from './modules/events/events.writer.js';
import { ProfileService } from './modules/profile/profile.service.js';

export interface Services {
  catalogue: CatalogueService;
  events: EventsService;
  profile: ProfileService;
}

/** Everything a process needs, wired explicitly. Nothing is created at import time. */
export interface AppContext {
  config: Config;
  db: Database;
  clock: Clock;
  timing: Timing;
  log: Logger;
  events: EventWriter;
  queue: JobQueue;
  runner: JobRunner;
  rateLimits: RateLimitStore;
  metrics: Metrics;
  catalogue: CatalogueData;
  services: Services;
}

export interface ContextOverrides {
  clock?: Clock;
  log?: Logger;
  db?: Database;
}

/** Connects, migrates, seeds the catalogue and builds the services. */
export async function createContext(
  config: Config,
  overrides: ContextOverrides = {},
): Promise<AppContext> {
  const log = overrides.log ?? createLogger(config.logLevel);
  const clock = overrides.clock ?? systemClock;
  const db = overrides.db ?? Database.connect(config.databaseUrl);
  await migrateToLatest(db.db, db.dialect);
  const data = catalogueData();
  await seedCatalogue(db, data);

  const timing = new Timing(config.timing);
  const events = new EventWriter(clock);
  const queue = new JobQueue(clock);
  const runner = new JobRunner({
    db,
    clock,
    timing,
    events,
    queue,
    log: subsystem(log, 'jobs'),
    definitions: jobDefinitions(),
  });
  queue.onEnqueue = () => runner.wake();

  const services: Services = {
    catalogue: new CatalogueService(db, data),
    events: new EventsService(db, clock),
    profile: new ProfileService(db),
  };
  return {
    config,
    db,
    clock,
    timing,
    log,
    events,
    queue,
    runner,
    rateLimits: new MemoryRateLimitStore(),
    metrics: new Metrics(),
    catalogue: data,
    services,
  };
}
