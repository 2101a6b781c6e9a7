import type { RawEnv } from './env.js';
import { ConfigError } from './config-error.js';

/** Where object, image and other bytes are kept (src/storage). */
export type BlobConfig =
  | { readonly backend: 'local' }
  | {
      readonly backend: 's3';
      /** STRATUS_BLOB_S3_ENDPOINT: the cluster's URL (unset: AWS S3's own endpoints). */
      readonly endpoint: string | undefined;
      readonly bucket: string;
      readonly region: string;
      readonly accessKeyId: string | undefined;
      readonly secretAccessKey: string | undefined;
      /** Path-style requests (`<endpoint>/<bucket>/<key>`): MinIO, Ceph RGW, Stratus. */
      readonly forcePathStyle: boolean;
      /** A prefix of every key Stratus writes in the bucket (several installations, one bucket). */
      readonly prefix: string;
    };

const set = (v: string | undefined): string | undefined =>
  v === undefined || v === '' ? undefined : v;

/**
 * STRATUS_BLOB_BACKEND=local (default: files under STRATUS_DATA_DIR) or s3 (an S3-compatible
 * cluster: STRATUS_BLOB_S3_BUCKET is required; _ENDPOINT, _REGION, _ACCESS_KEY_ID,
 * _SECRET_ACCESS_KEY, _FORCE_PATH_STYLE and _PREFIX are optional).
 */
export function blobConfig(env: RawEnv): BlobConfig {
  const backend = set(env.STRATUS_BLOB_BACKEND) ?? 'local';
  if (backend === 'local') return { backend };
  if (backend !== 's3')
    throw new ConfigError('STRATUS_BLOB_BACKEND', `must be local or s3 (got "${backend}")`);
  const bucket = set(env.STRATUS_BLOB_S3_BUCKET);
  if (!bucket)
    throw new ConfigError('STRATUS_BLOB_S3_BUCKET', 'is required with STRATUS_BLOB_BACKEND=s3');
  const endpoint = set(env.STRATUS_BLOB_S3_ENDPOINT);
  if (endpoint !== undefined) {
    let u: URL | undefined;
    try {
      u = new URL(endpoint);
    } catch {
      u = undefined;
    }
    if (!u || !['http:', 'https:'].includes(u.protocol))
      throw new ConfigError(
        'STRATUS_BLOB_S3_ENDPOINT',
        `must be an http(s) URL (got "${endpoint}")`,
      );
  }
  const accessKeyId = set(env.STRATUS_BLOB_S3_ACCESS_KEY_ID);
  const secretAccessKey = set(env.STRATUS_BLOB_S3_SECRET_ACCESS_KEY);
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined))
    throw new ConfigError(
      accessKeyId === undefined
        ? 'STRATUS_BLOB_S3_ACCESS_KEY_ID'
        : 'STRATUS_BLOB_S3_SECRET_ACCESS_KEY',
      'the access key id and the secret access key go together',
    );
  const fps = set(env.STRATUS_BLOB_S3_FORCE_PATH_STYLE)?.toLowerCase();
  if (fps !== undefined && !['true', 'false', '1', '0', 'on', 'off'].includes(fps))
    throw new ConfigError(
      'STRATUS_BLOB_S3_FORCE_PATH_STYLE',
      `must be true or false (got "${fps}")`,
    );
  const prefix = set(env.STRATUS_BLOB_S3_PREFIX) ?? '';
  if (prefix !== '' && !/^[A-Za-z0-9._\-/]{1,200}$/.test(prefix))
    throw new ConfigError(
      'STRATUS_BLOB_S3_PREFIX',
      'must be letters, digits, ".", "_", "-" and "/"',
    );
  return {
    backend,
    endpoint,
    bucket,
    region: set(env.STRATUS_BLOB_S3_REGION) ?? 'us-east-1',
    accessKeyId,
    secretAccessKey,
    // Custom endpoints (MinIO, RGW) are path-style unless told otherwise.
    forcePathStyle: fps === undefined ? endpoint !== undefined : ['true', '1', 'on'].includes(fps),
    prefix: prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`,
  };
}
