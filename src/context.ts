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
import { EntityRegistry, type EntityType } from './entities/entities.js';
import { entityDeclarations } from './entities/declarations.js';
import { InstancesService } from './modules/compute/instances.service.js';
import { PowerService } from './modules/compute/power.service.js';
import { ConfigsService } from './modules/compute/configs.service.js';
import { DisksService } from './modules/compute/disks.service.js';
import { InterfacesService } from './modules/compute/interfaces.service.js';
import { StatsService } from './modules/compute/stats.service.js';
import { IpsService } from './modules/networking/ips.service.js';
import { FeedCache } from './modules/events/events.feed.js';
import { EventsService } from './modules/events/events.service.js';
import { EventWriter } from './modules/events/events.writer.js';
import { IpAllocator, loadPools } from './modules/networking/ip-allocator.js';
import { ProfileService } from './modules/profile/profile.service.js';
import { AccountService } from './modules/account/account.service.js';
import { PaymentMethodsService } from './modules/billing/payment-methods.service.js';
import { GrantsService } from './modules/account/grants.service.js';
import { UsersService } from './modules/account/users.service.js';
import { SshKeysService } from './modules/profile/sshkeys.service.js';
import { TokensService } from './modules/profile/tokens.service.js';
import { VolumesService } from './modules/volumes/volumes.service.js';
import {
  createObjectStorage,
  type ObjectStorage,
} from './modules/object-storage/objects.module.js';

export interface Services {
  catalogue: CatalogueService;
  events: EventsService;
  profile: ProfileService;
  account: AccountService;
  users: UsersService;
  grants: GrantsService;
  tokens: TokensService;
  sshKeys: SshKeysService;
  instances: InstancesService;
  power: PowerService;
  disks: DisksService;
  configs: ConfigsService;
  interfaces: InterfacesService;
  ips: IpsService;
  stats: StatsService;
  volumes: VolumesService;
  objectStorage: ObjectStorage;
  paymentMethods: PaymentMethodsService;
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
  /** Every area's entity types (grants, event references, cascades, …). */
  entities: EntityRegistry;
  ips: IpAllocator;
  services: Services;
}

export interface ContextOverrides {
  clock?: Clock;
  log?: Logger;
  db?: Database;
  /** Entity types declared in addition to the areas' own (tests of the cross-cutting views). */
  entities?: EntityType[];
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

  const entities = new EntityRegistry([...entityDeclarations(), ...(overrides.entities ?? [])]);
  const timing = new Timing(config.timing);
  const events = new EventWriter(clock);
  const queue = new JobQueue(clock);
  const runner = new JobRunner({
    db,
    clock,
    timing,
    events,
    queue,
    entities,
    log: subsystem(log, 'jobs'),
    definitions: jobDefinitions(),
  });
  queue.onEnqueue = () => runner.wake();

  const catalogue = new CatalogueService(db, data);
  const ips = new IpAllocator(
    loadPools(
      config.ipPoolsFile,
      data.regions.map((r) => r.id),
    ),
  );
  const instances = new InstancesService({ db, clock, events, queue, catalogue, ips });
  const services: Services = {
    instances,
    power: new PowerService({ db, clock, events, queue }, instances),
    disks: new DisksService({ db, clock, events, queue, catalogue }, instances),
    configs: new ConfigsService({ db, clock, events, catalogue }, instances),
    interfaces: new InterfacesService({ db, clock, events }, instances),
    ips: new IpsService({ db, clock, events, ips, instances }),
    stats: new StatsService({ db, clock, catalogue }, instances),
    catalogue,
    events: new EventsService(db, clock, new FeedCache(config.feedCacheMb * 1024 * 1024)),
    profile: new ProfileService(db, events),
    account: new AccountService(db, events),
    users: new UsersService(db, clock, events),
    grants: new GrantsService(db, entities),
    tokens: new TokensService(db, clock, events),
    sshKeys: new SshKeysService(db, clock, events),
    volumes: new VolumesService({ db, clock, events, queue, catalogue }),
    objectStorage: createObjectStorage({ config, db, clock, events, catalogue: data, log }),
    paymentMethods: new PaymentMethodsService({ db, clock, events }),
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
    entities,
    ips,
    services,
  };
}
