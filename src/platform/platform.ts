import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { Database } from '../db/database.js';
import type { EntityRegistry } from '../entities/entities.js';
import type { Metrics } from '../http/metrics.js';
import type { RateLimitStore } from '../http/rate-limit.js';
import type { JobQueue } from '../jobs/queue.js';
import type { JobRunner } from '../jobs/runner.js';
import type { Timing } from '../jobs/timing.js';
import type { ControllableClock } from '../lib/clock.js';
import type { ComputeDriver } from '../machines/driver.js';
import type { StateService } from '../modules/controls/state.service.js';
import type { EventWriter } from '../modules/events/events.writer.js';
import type { BlobStores } from '../storage/index.js';
import type { Sealer } from './sealer.js';

/**
 * What every area's services are built from: the shared infrastructure, which knows no area.
 * Built once per process by `createContext` (src/context.ts), before any area.
 */
export interface Platform {
  config: Config;
  db: Database;
  /** The one clock; the emulator controls switch it to manual time and move it forward. */
  clock: ControllableClock;
  timing: Timing;
  log: Logger;
  /** Writes events inside the transaction of the change. */
  events: EventWriter;
  /** Enqueues durable jobs inside the transaction of the change. */
  queue: JobQueue;
  /** Runs the jobs of every area (in this process unless it is an API-only one). */
  runner: JobRunner;
  /** Every area's entity types (grants, event references, cascades, tags, transfers). */
  entities: EntityRegistry;
  /** Seals the secrets Stratus must read back (object storage keys, TLS keys, TOTP seeds). */
  sealer: Sealer;
  /** The blob store of an area's bytes (`objects`, `images`): local disk or an S3 cluster. */
  blobs: BlobStores;
  /** What runs compute instances: the simulated driver (default) or QEMU (src/machines). */
  machines: ComputeDriver;
}

/**
 * What routes see beside their area's services: the platform, and what is built from every area
 * once all are (reset and snapshots, the rate limits, the metrics).
 */
export interface Runtime extends Platform {
  /** Reset, snapshot export and import of the whole state. */
  state: StateService;
  rateLimits: RateLimitStore;
  metrics: Metrics;
}
