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
import { type ControllableClock, EmulatorClock } from './lib/clock.js';
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
import { OpsService } from './modules/compute/ops.service.js';
import { MigrateService } from './modules/compute/migrate.service.js';
import { RebuildService } from './modules/compute/rebuild.service.js';
import { CloneService } from './modules/compute/clone.service.js';
import { BackupsService } from './modules/compute/backups.service.js';
import { IpsService } from './modules/networking/ips.service.js';
import { ForwardDns } from './modules/networking/forward-dns.js';
import { FirewallsService } from './modules/networking/firewalls.service.js';
import { AssignService } from './modules/networking/assign.service.js';
import { Ipv6Service } from './modules/networking/ipv6.service.js';
import { VlansService } from './modules/networking/vlans.service.js';
import { FeedCache } from './modules/events/events.feed.js';
import { EventsService } from './modules/events/events.service.js';
import { EventWriter } from './modules/events/events.writer.js';
import { IpAllocator, loadPools } from './modules/networking/ip-allocator.js';
import { ProfileService } from './modules/profile/profile.service.js';
import { AccountService } from './modules/account/account.service.js';
import { PaymentMethodsService } from './modules/billing/payment-methods.service.js';
import { BillingService } from './modules/billing/billing.service.js';
import { GrantsService } from './modules/account/grants.service.js';
import { UsersService } from './modules/account/users.service.js';
import { SshKeysService } from './modules/profile/sshkeys.service.js';
import { TokensService } from './modules/profile/tokens.service.js';
import { NbConfigsService } from './modules/nodebalancers/configs.service.js';
import { NodeBalancersService } from './modules/nodebalancers/nodebalancers.service.js';
import { NbNodesService } from './modules/nodebalancers/nodes.service.js';
import { TagsService } from './modules/tags/tags.service.js';
import { AppsService } from './modules/oauth/apps.js';
import { AuthorizeService } from './modules/oauth/authorize.service.js';
import { ClientsService } from './modules/oauth/clients.service.js';
import { DevicesService } from './modules/oauth/devices.js';
import { LoginsService } from './modules/oauth/logins.js';
import { PhoneService } from './modules/oauth/phone.service.js';
import { PreferencesService } from './modules/oauth/preferences.js';
import { SecurityQuestionsService } from './modules/oauth/security-questions.js';
import { TfaService } from './modules/oauth/tfa.service.js';
import { TokenService } from './modules/oauth/token.service.js';
import { VolumesService } from './modules/volumes/volumes.service.js';
import { SubnetsService } from './modules/vpcs/subnets.service.js';
import { VpcsService } from './modules/vpcs/vpcs.service.js';
import { TransfersService } from './modules/transfers/transfers.service.js';
import { NoticesService } from './modules/account-notices/notices.service.js';
import { MaintenanceService } from './modules/account-notices/maintenance.service.js';
import { type BlobStores, createBlobStores } from './storage/index.js';
import { ImagesService } from './modules/images/images.service.js';
import { imageBlobsStateHook } from './modules/images/images.blobs.js';
import { StackScriptsService } from './modules/stackscripts/stackscripts.service.js';
import {
  createObjectStorage,
  type ObjectStorage,
  objectBlobsStateHook,
} from './modules/object-storage/objects.module.js';
import { Sealer, sealerStateHook } from './modules/object-storage/objects.crypto.js';
import { ControlsService } from './modules/controls/controls.service.js';
import { FaultSet } from './modules/controls/faults.js';
import { OperatorAuth } from './modules/controls/operator.js';
import { DbRateLimitStore } from './modules/controls/rate-limit-store.js';
import { readSeedFile, seedIdentities } from './modules/controls/seed.js';
import { StateService, type StateHook, startLock } from './modules/controls/state.service.js';
import { ensureDefaultAccount } from './modules/identity/bootstrap.js';

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
  firewalls: FirewallsService;
  assign: AssignService;
  ipv6: Ipv6Service;
  vlans: VlansService;
  stats: StatsService;
  computeOps: OpsService;
  computeMigrate: MigrateService;
  computeRebuild: RebuildService;
  computeClone: CloneService;
  computeBackups: BackupsService;
  volumes: VolumesService;
  vpcs: VpcsService;
  subnets: SubnetsService;
  tags: TagsService;
  nodebalancers: NodeBalancersService;
  nbConfigs: NbConfigsService;
  nbNodes: NbNodesService;
  images: ImagesService;
  stackscripts: StackScriptsService;
  oauthClients: ClientsService;
  oauthAuthorize: AuthorizeService;
  oauthTokens: TokenService;
  oauthLogins: LoginsService;
  oauthApps: AppsService;
  oauthTfa: TfaService;
  oauthDevices: DevicesService;
  oauthPreferences: PreferencesService;
  oauthPhone: PhoneService;
  oauthSecurityQuestions: SecurityQuestionsService;
  objectStorage: ObjectStorage;
  paymentMethods: PaymentMethodsService;
  transfers: TransfersService;
  notices: NoticesService;
  maintenance: MaintenanceService;
}

/** Everything a process needs, wired explicitly. Nothing is created at import time. */
export interface AppContext {
  config: Config;
  db: Database;
  /** The one clock; the emulator controls switch it to manual time and move it forward. */
  clock: ControllableClock;
  timing: Timing;
  log: Logger;
  events: EventWriter;
  queue: JobQueue;
  runner: JobRunner;
  rateLimits: RateLimitStore;
  metrics: Metrics;
  catalogue: CatalogueData;
  /** The billing engine: billable periods, balance, invoices, payments, cancel. */
  billing: BillingService;
  /** Every area's entity types (grants, event references, cascades, …). */
  entities: EntityRegistry;
  ips: IpAllocator;
  services: Services;
  /** Emulator controls: timing, clock and faults at run time (src/modules/controls). */
  controls: ControlsService;
  /** Reset, snapshot export and import of the whole state. */
  state: StateService;
  /** The operator token of `/_stratus/*`. */
  operator: OperatorAuth;
  /** Fault rules applied to API requests. */
  faults: FaultSet;
  /**
   * State kept outside the database (object data on disk): reset and import call each hook.
   * Areas that keep such state add theirs here.
   */
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
}

/** Connects, migrates, seeds the catalogue and builds the services. */
export async function createContext(
  config: Config,
  overrides: ContextOverrides = {},
): Promise<AppContext> {
  const log = overrides.log ?? createLogger(config.logLevel);
  const clock = overrides.clock ?? new EmulatorClock();
  const db = overrides.db ?? Database.connect(config.databaseUrl);
  await migrateToLatest(db.db, db.dialect);
  const data = catalogueData();
  // Processes starting together each rewrite the catalogue: one at a time (PostgreSQL).
  await db.transaction(async (tx) => {
    await startLock(tx);
    await seedCatalogue(tx, data);
  });

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
  const billing = new BillingService({ db, clock, events });

  const catalogue = new CatalogueService(db, data);
  const ips = new IpAllocator(
    loadPools(
      config.ipPoolsFile,
      data.regions.map((r) => r.id),
    ),
  );
  // Secrets Stratus must read back (object storage keys, TLS keys, TOTP) are sealed with it.
  const sealer = new Sealer(db, config.encryptionKey);
  const firewalls = new FirewallsService({ db, clock, events, entities });
  const instances = new InstancesService({ db, clock, events, queue, catalogue, ips, firewalls });
  const vpcs = new VpcsService({ db, clock, events, catalogue });
  const nodebalancers = new NodeBalancersService({
    db,
    clock,
    events,
    catalogue,
    ips,
    entities,
    cascade: { clock, timing, events, queue, entities, log: subsystem(log, 'nodebalancers') },
    firewalls,
    sealer,
  });
  const blobs = overrides.blobStores ?? (await createBlobStores(config.dataDir, config.blob));
  const imageBlobs = blobs('images');
  const securityQuestions = new SecurityQuestionsService(db, clock);
  const services: Services = {
    instances,
    power: new PowerService({ db, clock, events, queue }, instances),
    disks: new DisksService({ db, clock, events, queue, catalogue }, instances),
    configs: new ConfigsService({ db, clock, events, catalogue }, instances),
    interfaces: new InterfacesService({ db, clock, events }, instances),
    ips: new IpsService({
      db,
      clock,
      events,
      ips,
      instances,
      forwardDns: new ForwardDns(config.rdnsResolver),
    }),
    firewalls,
    assign: new AssignService({ db, ips, clock }),
    ipv6: new Ipv6Service({ db, clock, ips }),
    vlans: new VlansService(
      db,
      data.regions.filter((r) => r.capabilities.includes('Vlans')).map((r) => r.id),
    ),
    stats: new StatsService({ db, clock, catalogue, firewalls }, instances),
    computeOps: new OpsService({ db, clock, events, queue, catalogue, ips }, instances),
    computeMigrate: new MigrateService({ db, clock, events, queue, catalogue, ips }, instances),
    computeRebuild: new RebuildService({ db, clock, events, queue, catalogue }, instances),
    computeClone: new CloneService({ db, clock, events, queue, catalogue, ips }, instances),
    computeBackups: new BackupsService({ db, clock, events, queue, catalogue }, instances),
    catalogue,
    events: new EventsService(db, clock, new FeedCache(config.feedCacheMb * 1024 * 1024)),
    profile: new ProfileService(db, events),
    account: new AccountService(db, events, (tx, id) => billing.uninvoicedCents(tx, id)),
    users: new UsersService(db, clock, events),
    grants: new GrantsService(db, entities),
    tokens: new TokensService(db, clock, events),
    sshKeys: new SshKeysService(db, clock, events),
    volumes: new VolumesService({ db, clock, events, queue, catalogue }),
    vpcs,
    subnets: new SubnetsService(vpcs),
    tags: new TagsService({ db, clock, events, catalogue, entities }),
    nodebalancers,
    nbConfigs: new NbConfigsService({ db, clock, events, sealer }, nodebalancers),
    nbNodes: new NbNodesService({ db, clock, events, sealer }, nodebalancers),
    images: new ImagesService({
      db,
      clock,
      events,
      queue,
      catalogue,
      bytes: imageBlobs,
    }),
    stackscripts: new StackScriptsService({ db, clock, events, catalogue }),
    oauthClients: new ClientsService(db, clock, events),
    oauthAuthorize: new AuthorizeService(db, clock, sealer),
    oauthTokens: new TokenService(db, clock),
    oauthLogins: new LoginsService(db, clock),
    oauthApps: new AppsService(db),
    oauthTfa: new TfaService(db, clock, events, sealer, securityQuestions),
    oauthDevices: new DevicesService(db, clock),
    oauthPreferences: new PreferencesService(db),
    oauthPhone: new PhoneService(db, clock),
    oauthSecurityQuestions: securityQuestions,
    objectStorage: createObjectStorage({
      config,
      db,
      clock,
      events,
      catalogue: data,
      log,
      sealer,
      blobs: blobs('objects'),
    }),
    paymentMethods: new PaymentMethodsService({ db, clock, events }),
    transfers: new TransfersService({ db, clock, events, queue, entities }),
    notices: new NoticesService({ db, clock, catalogue: data }),
    maintenance: new MaintenanceService({ db, clock, queue }),
  };
  const faults = new FaultSet();
  const stateHooks: StateHook[] = [
    objectBlobsStateHook(services.objectStorage.data),
    imageBlobsStateHook(db, imageBlobs),
    sealerStateHook(sealer),
  ];
  const state = new StateService({
    db,
    clock,
    catalogue: data,
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
  const controls = new ControlsService({ db, clock, timing, faults, runner });
  // Settings stored by the controls (another process, an earlier run) apply from the start.
  await controls.refresh();
  return {
    config,
    db,
    clock,
    timing,
    log,
    events,
    queue,
    runner,
    rateLimits: db.dialect === 'postgres' ? new DbRateLimitStore(db) : new MemoryRateLimitStore(),
    metrics: new Metrics(),
    catalogue: data,
    billing,
    entities,
    ips,
    services,
    controls,
    state,
    operator: new OperatorAuth(db, config.operatorToken),
    faults,
    stateHooks,
  };
}

/** The version written into snapshots. */
export const STRATUS_VERSION = '0.1.0';
