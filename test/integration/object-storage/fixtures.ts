import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import {
  type BlobBackend,
  type BlobCluster,
  startBlobCluster,
  TEST_BLOB_BACKEND,
} from '../../helpers/blob-cluster.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

export const CLUSTER = 'us-east-1';

export interface S3TestApp extends TestApp {
  /** http://127.0.0.1:<port> of the listening server. */
  base: string;
  /** The cluster's S3 endpoint (path-style). */
  endpoint: string;
  dataDir: string;
  /** Where its bytes are kept: local disk, or an external S3 cluster (another Stratus). */
  backend: BlobBackend;
  /** The external cluster of the s3 backend. */
  cluster?: BlobCluster;
  client(key: { access_key: string; secret_key: string }, cluster?: string): S3Client;
  dispose(): Promise<void>;
}

/**
 * A listening test app on a temporary data directory, its clock at the real time (SigV4). Its
 * bytes are kept on `backend` (default: STRATUS_TEST_BLOB_BACKEND, else the local disk).
 */
export async function buildS3App(
  backend: BlobBackend = TEST_BLOB_BACKEND,
  env: Record<string, string> = {},
): Promise<S3TestApp> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'stratus-obj-'));
  const cluster = backend === 's3' ? await startBlobCluster() : undefined;
  const t = await buildTestApp({ dataDir, env: { ...(cluster?.env ?? {}), ...env } });
  t.clock.set(Date.now());
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const addr = t.app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  const base = `http://127.0.0.1:${port}`;
  const endpoint = `${base}/_stratus/s3/${CLUSTER}`;
  const clients: S3Client[] = [];
  return Object.assign(t, {
    base,
    endpoint,
    dataDir,
    backend,
    ...(cluster ? { cluster } : {}),
    client(key: { access_key: string; secret_key: string }, cluster = CLUSTER) {
      const c = new S3Client({
        endpoint: `${base}/_stratus/s3/${cluster}`,
        region: cluster,
        forcePathStyle: true,
        credentials: { accessKeyId: key.access_key, secretAccessKey: key.secret_key },
      });
      clients.push(c);
      return c;
    },
    async dispose() {
      for (const c of clients) c.destroy();
      await t.close();
      await cluster?.dispose();
      await rm(dataDir, { recursive: true, force: true });
    },
  });
}

/** Headers that make the control plane answer with this server's address (object-url). */
export function hostOf(t: S3TestApp): Record<string, string> {
  return { host: new URL(t.base).host };
}

/** What an SDK call's failure says: its S3 error code, HTTP status and message. */
export async function failure(p: Promise<unknown>): Promise<{
  name: string;
  status: number | undefined;
  message: string;
  headers?: Record<string, string>;
}> {
  try {
    await p;
  } catch (err) {
    const e = err as {
      name: string;
      message: string;
      $metadata?: { httpStatusCode?: number };
      $response?: { headers?: Record<string, string> };
    };
    return {
      name: e.name,
      status: e.$metadata?.httpStatusCode,
      message: e.message,
      ...(e.$response?.headers ? { headers: e.$response.headers } : {}),
    };
  }
  return { name: 'no error', status: 200, message: '' };
}
