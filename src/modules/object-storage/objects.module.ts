import type { Config } from '../../config/config.js';
import { defineArea } from '../../platform/area.js';
import { catalogueModule } from '../catalogue/catalogue.module.js';
import type { Database } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import type { BlobStore } from '../../storage/index.js';
import type { CatalogueData } from '../catalogue/catalogue.data.js';
import { columnValues } from '../controls/snapshot.js';
import type { StateHook } from '../../platform/state-hook.js';
import type { EventWriter } from '../events/events.writer.js';
import type { JobQueue } from '../../jobs/queue.js';
import { lifecycleJob } from './s3/s3.lifecycle.js';
import { BucketsService } from './buckets.service.js';
import { ContentService } from './content.service.js';
import { KeysService } from './keys.service.js';
import { clusterIds, defaultCluster, virtualHostSuffixes } from './objects.clusters.js';
import type { Sealer } from '../../platform/sealer.js';
import { ObjectData } from './objects.data.js';
import { QuotasService } from './objects.quotas.js';
import { blobsOf } from './objects.repository.js';
import { objectStorageEntities } from './objects.entities.js';
import { objectStorageRoutes } from './objects.routes.js';
import { s3Plugin } from './s3/s3.plugin.js';
import { S3Service } from './s3/s3.service.js';

/** Object storage's services: the control plane's three and the data plane's. */
export interface ObjectStorage {
  buckets: BucketsService;
  content: ContentService;
  keys: KeysService;
  data: ObjectData;
  s3: S3Service;
  quotas: QuotasService;
  clusters: readonly string[];
}

export function createObjectStorage(d: {
  config: Config;
  db: Database;
  clock: Clock;
  events: EventWriter;
  queue: JobQueue;
  catalogue: CatalogueData;
  log: { error(obj: object, msg: string): void };
  /** The process's one sealer (src/modules/object-storage/objects.crypto.ts). */
  sealer: Sealer;
  /** The `objects` area of the blob store (local disk or S3). */
  blobs: BlobStore;
}): ObjectStorage {
  const clusters = clusterIds(d.catalogue);
  const sealer = d.sealer;
  const data = new ObjectData(d.db, d.blobs, d.clock, (err) =>
    d.log.error({ err }, 'object storage: transfer counts not written'),
  );
  const buckets = new BucketsService({
    db: d.db,
    clock: d.clock,
    data,
    clusters,
    virtualHosts: d.config.s3VirtualHosts,
  });
  const keys = new KeysService({ db: d.db, clock: d.clock, events: d.events, sealer, clusters });
  const content = new ContentService({ db: d.db, clock: d.clock, sealer, buckets, keys });
  const s3 = new S3Service({
    db: d.db,
    clock: d.clock,
    sealer,
    queue: d.queue,
    data,
    buckets,
    clusters,
    hostSuffixes: virtualHostSuffixes(d.config.s3Endpoint ?? d.config.publicUrl),
    defaultCluster: defaultCluster(clusters),
  });
  const quotas = new QuotasService({ db: d.db, clusters });
  return { buckets, content, keys, data, s3, quotas, clusters };
}

/**
 * Object bytes and the emulator's reset and snapshot import: once either has committed, the
 * blobs no row refers to any more are removed (the reset's objects, or those the imported state
 * does not have). Streamed snapshots carry the blobs of the objects and of open multipart
 * uploads' parts (src/modules/controls/snapshot-stream.ts).
 */
export function objectBlobsStateHook(data: ObjectData): StateHook {
  const sweepAfterCommit = async (tx: Database) => {
    tx.onCommit(async () => {
      await data.sweepOrphans(Date.now());
    });
  };
  return {
    name: 'object-storage-blobs',
    // Sent bytes still counted in memory belong to the state being replaced.
    onReset: (tx, scope) => {
      data.meter.discard(scope.accountId);
      return sweepAfterCommit(tx);
    },
    importData: (tx) => {
      data.meter.discard();
      return sweepAfterCommit(tx);
    },
    blobs: {
      area: 'objects',
      store: data.blobs,
      keys: (tables) => [
        ...columnValues(tables, 'obj_objects', 'blobs').flatMap((b) =>
          typeof b === 'string' ? blobsOf({ blobs: b }).map((r) => r.key) : [],
        ),
        ...columnValues(tables, 'obj_parts', 'blob').filter(
          (k): k is string => typeof k === 'string',
        ),
      ],
    },
  };
}

/**
 * Object storage: clusters, buckets, keys, ACLs and certificates through the API, and the S3 data
 * plane (`/_stratus/s3/…`, virtual hosts, static sites) over the same rows and blob store.
 */
export const objectStorageModule = defineArea({
  name: 'objectStorage',
  needs: [catalogueModule],
  tables: [
    'obj_buckets',
    'obj_objects',
    'obj_keys',
    'obj_key_buckets',
    'obj_uploads',
    'obj_parts',
    'obj_transfer',
  ],
  entities: objectStorageEntities,
  jobs: [lifecycleJob],
  services: ({ config, db, clock, events, queue, log, sealer, blobs }, { catalogue }) =>
    createObjectStorage({
      config,
      db,
      clock,
      events,
      queue,
      catalogue: catalogue.data,
      log,
      sealer,
      blobs: blobs('objects'),
    }),
  api: (ctx) => [objectStorageRoutes(ctx)],
  internal: (ctx) => [s3Plugin(ctx)],
  stateHooks: ({ data }) => [objectBlobsStateHook(data)],
});
