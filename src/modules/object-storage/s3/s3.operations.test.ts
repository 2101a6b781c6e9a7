import * as sdk from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { S3_OPERATIONS, s3Operation, s3OperationSpec } from './s3.operations.js';

/** Values for every member an S3 command may require in its path, query or headers. */
const INPUT = {
  Bucket: 'bucket',
  Key: 'dir/key',
  UploadId: 'upload',
  PartNumber: 1,
  CopySource: 'src-bucket/src-key',
  Id: 'id',
  ObjectAttributes: ['ETag'],
  RenameSource: 'bucket/old',
  RequestRoute: 'route',
  RequestToken: 'token',
  MaxKeys: 10,
  VersionId: 'v1',
  ContentMD5: 'AAAAAAAAAAAAAAAAAAAAAA==',
  AnnotationName: 'note',
};

interface Captured {
  method: string;
  path: string;
  query: Record<string, string | string[] | null>;
  headers: Record<string, string>;
}

/** The HTTP request the AWS SDK v3 sends for a command (path style), captured unsent. */
async function wireOf(name: string): Promise<Captured> {
  let captured: Captured | undefined;
  const client = new sdk.S3Client({
    endpoint: 'http://localhost:9',
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'AK', secretAccessKey: 'SK' },
    requestHandler: {
      handle: async (req: Captured) => {
        captured = req;
        throw new Error('captured');
      },
    } as never,
  });
  const Command = (sdk as unknown as Record<string, new (i: unknown) => unknown>)[`${name}Command`];
  if (!Command) throw new Error(`no command ${name}`);
  // Listing buckets takes no bucket (one would send a directory bucket's session request first).
  const { Bucket: _b, ...noBucket } = INPUT;
  const input = /^List\w*Buckets$/.test(name) ? noBucket : INPUT;
  await client.send(new Command(input) as never).catch(() => undefined);
  client.destroy();
  if (!captured) throw new Error(`${name}: no request was sent`);
  return captured;
}

/** The operations of the AWS SDK's service model: its commands. */
const COMMANDS = Object.keys(sdk)
  .filter((k) => /^[A-Z]\w+Command$/.test(k))
  .map((k) => k.slice(0, -'Command'.length))
  .sort();

describe('S3 operation table', () => {
  it('S3_OPERATIONS: one row for every operation of the AWS SDK model, and no other model row', () => {
    // The older names botocore still has (the JS SDK dropped them): the same requests.
    const older = [
      'GetBucketLifecycle',
      'PutBucketLifecycle',
      'GetBucketNotification',
      'PutBucketNotification',
    ];
    const model = S3_OPERATIONS.filter((o) => o.model !== false).map((o) => o.name);
    expect(new Set(model).size).toBe(model.length);
    expect([...model].sort()).toEqual([...COMMANDS, ...older].sort());
    for (const name of older) expect(s3OperationSpec(name)?.sameAs).toBeDefined();
    expect(COMMANDS.length).toBeGreaterThanOrEqual(100);
  });

  it.each(COMMANDS)('s3Operation: the SDK request of %s is that operation', async (name) => {
    const r = await wireOf(name);
    const path = r.path.replace(/^\//, '');
    const [bucket, ...rest] = path.split('/');
    const query = new Map<string, string>();
    for (const [k, v] of Object.entries(r.query ?? {}))
      query.set(k, Array.isArray(v) ? (v[0] ?? '') : (v ?? ''));
    const headers = Object.fromEntries(
      Object.entries(r.headers).map(([k, v]) => [k.toLowerCase(), v]),
    );
    const spec = s3Operation({
      method: r.method,
      bucket: bucket ? decodeURIComponent(bucket) : undefined,
      key: rest.join('/') !== '' ? decodeURIComponent(rest.join('/')) : undefined,
      query,
      headers,
    });
    const row = s3OperationSpec(name);
    // An operation whose request is wire-identical to another's is answered as that one.
    expect(spec?.name).toBe(row?.sameAs ?? name);
  });

  it('s3Operation: sub-resources never fall through to the plain operation', () => {
    const ask = (method: string, bucket: string | undefined, key: string | undefined, q: string) =>
      s3Operation({
        method,
        bucket,
        key,
        query: new Map(new URLSearchParams(q)),
        headers: {},
      })?.name;
    expect(ask('DELETE', 'b', undefined, 'policy')).toBe('DeleteBucketPolicy');
    expect(ask('DELETE', 'b', undefined, 'lifecycle')).toBe('DeleteBucketLifecycle');
    expect(ask('DELETE', 'b', undefined, 'encryption')).toBe('DeleteBucketEncryption');
    expect(ask('DELETE', 'b', undefined, 'publicAccessBlock')).toBe('DeletePublicAccessBlock');
    expect(ask('DELETE', 'b', 'k', 'tagging')).toBe('DeleteObjectTagging');
    expect(ask('PUT', 'b', 'k', 'retention')).toBe('PutObjectRetention');
    expect(ask('PUT', 'b', 'k', 'legal-hold')).toBe('PutObjectLegalHold');
    expect(ask('GET', 'b', undefined, 'versions')).toBe('ListObjectVersions');
    expect(ask('GET', 'b', 'k', 'attributes')).toBe('GetObjectAttributes');
    expect(ask('GET', 'b', 'k', 'versionId=3')).toBe('GetObject');
    expect(ask('POST', 'b', 'k', 'select')).toBe('SelectObjectContent');
    expect(ask('POST', 'b', 'k', '')).toBeUndefined();
    expect(ask('POST', 'b', 'k', 'X-Amz-Signature=s')).toBe('PostObjectUrl');
    expect(ask('POST', 'b', 'k', 'uploads&X-Amz-Signature=s')).toBe('CreateMultipartUpload');
    expect(ask('PATCH', 'b', 'k', '')).toBeUndefined();
    expect(ask('PUT', undefined, undefined, '')).toBeUndefined();
  });
});
