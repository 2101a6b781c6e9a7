import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { BlobConfig } from '../config/blob-config.js';
import { type BlobStore, type ByteRange, meter, type PutResult } from './blob-store.js';

const KEY_RE = /^[0-9a-f]{32}$/;
/** Part size of multipart writes: memory per write is at most `QUEUE` parts of this size. */
const PART_SIZE = 8 * 1024 * 1024;
const QUEUE = 2;

type S3Config = Extract<BlobConfig, { backend: 's3' }>;

/** An S3 client for the configured cluster (its own retries, no checksums the cluster may lack). */
export function s3ClientFor(c: S3Config): S3Client {
  return new S3Client({
    region: c.region,
    forcePathStyle: c.forcePathStyle,
    ...(c.endpoint ? { endpoint: c.endpoint } : {}),
    ...(c.accessKeyId && c.secretAccessKey
      ? { credentials: { accessKeyId: c.accessKeyId, secretAccessKey: c.secretAccessKey } }
      : {}),
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

const notFound = (err: unknown): boolean => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
};

/**
 * Blobs as objects of one bucket of an S3-compatible cluster (MinIO, Ceph RGW, AWS S3, another
 * Stratus), under `<prefix><area>/<key>`. Writes stream through a multipart upload (or one PUT
 * when small), which the cluster publishes whole or not at all; a failed write is aborted, and
 * `sweepPartial` aborts the uploads a crashed process left open.
 */
export class S3BlobStore implements BlobStore {
  private readonly base: string;

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    prefix: string,
    area: string,
  ) {
    this.base = `${prefix}${area}/`;
  }

  newKey(): string {
    return randomUUID().replaceAll('-', '');
  }

  private name(key: string): string {
    if (!KEY_RE.test(key)) throw new Error(`bad blob key ${key}`);
    return `${this.base}${key}`;
  }

  async put(key: string, body: Readable, opts: { maxBytes?: number } = {}): Promise<PutResult> {
    const Key = this.name(key);
    const metered = meter(opts.maxBytes);
    let failure: unknown;
    body.on('error', (err) => metered.stream.destroy(err));
    metered.stream.on('error', (err) => {
      failure ??= err;
    });
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key, Body: body.pipe(metered.stream) },
      partSize: PART_SIZE,
      queueSize: QUEUE,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (err) {
      throw failure ?? err;
    }
    // A stream that failed after the last part was sent must not leave an object behind.
    if (failure) {
      await this.delete(key);
      throw failure;
    }
    return metered.result();
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    try {
      const res = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: this.name(key),
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
      const b = res.Body;
      // On Node the SDK's body is the response stream itself.
      if (!(b instanceof Readable))
        throw new Error('S3 blob store: the response has no stream body');
      return b;
    } catch (err) {
      if (notFound(err))
        throw Object.assign(new Error(`blob ${key} does not exist`), { code: 'ENOENT' });
      throw err;
    }
  }

  async head(key: string): Promise<{ size: number; modifiedMs: number } | null> {
    try {
      const res = await this.client.send(
        new HeadObjectCommand({ Bucket: this.bucket, Key: this.name(key) }),
      );
      return { size: res.ContentLength ?? 0, modifiedMs: res.LastModified?.getTime() ?? 0 };
    } catch (err) {
      if (notFound(err)) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.name(key) }));
    } catch (err) {
      if (!notFound(err)) throw err;
    }
  }

  async *list(prefix = ''): AsyncIterable<string> {
    let token: string | undefined;
    do {
      const res = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: `${this.base}${prefix}`,
          ...(token ? { ContinuationToken: token } : {}),
        }),
      );
      for (const o of res.Contents ?? []) {
        const k = o.Key?.slice(this.base.length) ?? '';
        if (KEY_RE.test(k)) yield k;
      }
      token = res.IsTruncated ? res.NextContinuationToken : undefined;
    } while (token);
  }

  async sweepPartial(olderThanMs: number): Promise<number> {
    let n = 0;
    let keyMarker: string | undefined;
    let idMarker: string | undefined;
    do {
      const res = await this.client.send(
        new ListMultipartUploadsCommand({
          Bucket: this.bucket,
          Prefix: this.base,
          ...(keyMarker ? { KeyMarker: keyMarker } : {}),
          ...(idMarker ? { UploadIdMarker: idMarker } : {}),
        }),
      );
      for (const u of res.Uploads ?? []) {
        if (!u.Key || !u.UploadId || (u.Initiated?.getTime() ?? 0) >= olderThanMs) continue;
        await this.client.send(
          new AbortMultipartUploadCommand({
            Bucket: this.bucket,
            Key: u.Key,
            UploadId: u.UploadId,
          }),
        );
        n++;
      }
      keyMarker = res.IsTruncated ? res.NextKeyMarker : undefined;
      idMarker = res.IsTruncated ? res.NextUploadIdMarker : undefined;
    } while (keyMarker);
    return n;
  }
}
