import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildTestApp, type TestApp } from './build-test-app.js';

export type BlobBackend = 'local' | 's3';

/** The backend of the suites that honour it: STRATUS_TEST_BLOB_BACKEND (default local). */
export const TEST_BLOB_BACKEND: BlobBackend =
  process.env.STRATUS_TEST_BLOB_BACKEND === 's3' ? 's3' : 'local';

export interface BlobCluster {
  /** STRATUS_BLOB_* settings that keep a server's bytes on this cluster. */
  env: Record<string, string>;
  /** The same settings under a prefix of their own (a server that shares the cluster). */
  freshEnv(): Record<string, string>;
  /** The cluster's own server (to look at what it holds). */
  app: TestApp;
  dispose(): Promise<void>;
}

/**
 * An external S3-compatible cluster for the S3 blob backend: a second Stratus server with local
 * storage, listening, with a bucket and an access key created through its API, as an operator
 * would on MinIO or Ceph RGW.
 */
export async function startBlobCluster(): Promise<BlobCluster> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'stratus-cluster-'));
  const app = await buildTestApp({ dataDir });
  app.clock.set(Date.now());
  await app.app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  const bucket = await app.post('/v4/object-storage/buckets', {
    cluster: 'us-east-1',
    label: 'stratus-blobs',
  });
  if (bucket.status !== 200) throw new Error(`blob cluster: bucket ${bucket.text}`);
  const key = await app.post('/v4/object-storage/keys', { label: 'stratus' });
  if (key.status !== 200) throw new Error(`blob cluster: key ${key.text}`);
  let n = 0;
  const env = {
    STRATUS_BLOB_BACKEND: 's3',
    STRATUS_BLOB_S3_ENDPOINT: `http://127.0.0.1:${port}/_stratus/s3/us-east-1`,
    STRATUS_BLOB_S3_BUCKET: 'stratus-blobs',
    STRATUS_BLOB_S3_REGION: 'us-east-1',
    STRATUS_BLOB_S3_ACCESS_KEY_ID: key.body.access_key,
    STRATUS_BLOB_S3_SECRET_ACCESS_KEY: key.body.secret_key,
    STRATUS_BLOB_S3_FORCE_PATH_STYLE: 'true',
    STRATUS_BLOB_S3_PREFIX: `t${Date.now()}/`,
  };
  return {
    env,
    freshEnv: () => ({ ...env, STRATUS_BLOB_S3_PREFIX: `t${Date.now()}-${++n}/` }),
    app,
    async dispose() {
      await app.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
