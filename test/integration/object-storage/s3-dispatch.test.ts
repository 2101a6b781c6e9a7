import * as sdk from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3_OPERATIONS } from '../../../src/modules/object-storage/s3/s3.operations.js';
import { buildS3App, CLUSTER, failure, type S3TestApp } from './fixtures.js';

let t: S3TestApp;
let s3: sdk.S3Client;

/** Values for every member an S3 command may require. */
const INPUT = {
  Bucket: 'keep',
  Key: 'kept.txt',
  UploadId: 'upload',
  PartNumber: 1,
  CopySource: 'keep/kept.txt',
  Id: 'id',
  ObjectAttributes: ['ETag'],
  RenameSource: 'keep/kept.txt',
  AnnotationName: 'note',
  Body: '<x/>',
  ContentMD5: '1B2M2Y8AsgTpgAmY7PhCfg==',
};

const served = () => new Set(t.ctx.areas.objectStorage.s3.served());

/** Every SDK command the data plane does not serve (S3 Express and Object Lambda aside). */
const unserved = () =>
  S3_OPERATIONS.filter(
    (o) =>
      o.model !== false &&
      o.sameAs === undefined &&
      !served().has(o.name) &&
      `${o.name}Command` in sdk &&
      // Sent to other endpoints by the SDK (a directory bucket's session, an Object Lambda host).
      !['CreateSession', 'ListDirectoryBuckets', 'WriteGetObjectResponse'].includes(o.name),
  ).map((o) => o.name);

beforeAll(async () => {
  t = await buildS3App();
  await t.post('/v4/object-storage/buckets', { cluster: CLUSTER, label: 'keep' });
  s3 = t.client((await t.post('/v4/object-storage/keys', { label: 'k' })).body);
  await s3.send(new sdk.PutObjectCommand({ Bucket: 'keep', Key: 'kept.txt', Body: 'precious' }));
});
afterAll(() => t.dispose());

async function intact(): Promise<void> {
  await s3.send(new sdk.HeadBucketCommand({ Bucket: 'keep' }));
  const got = await s3.send(new sdk.GetObjectCommand({ Bucket: 'keep', Key: 'kept.txt' }));
  expect(await got.Body?.transformToString()).toBe('precious');
}

describe('S3 dispatch: every operation by name, or 501', () => {
  it('served(): a handler for every served operation, each a row of the table', () => {
    const names = new Set(S3_OPERATIONS.map((o) => o.name));
    for (const op of served()) expect(names.has(op), op).toBe(true);
    expect(unserved().length).toBeGreaterThan(40);
  });

  it('every unserved operation of the model: 501 NotImplemented naming it, nothing changed', async () => {
    const Commands = sdk as unknown as Record<string, new (i: unknown) => never>;
    for (const name of unserved()) {
      const Command = Commands[`${name}Command`] as new (i: unknown) => never;
      const e = await failure(s3.send(new Command(INPUT)));
      expect(e.name, name).toBe('NotImplemented');
      expect(e.status, name).toBe(501);
      expect(e.message, name).toContain(name);
    }
    await intact();
  });

  it('an Object Lambda response write (POST /WriteGetObjectResponse) is 501 too', async () => {
    const r = await fetch(`${t.endpoint}/WriteGetObjectResponse`, {
      method: 'POST',
      headers: { 'x-amz-request-route': 'r', 'x-amz-request-token': 't' },
      body: 'x',
    });
    expect(r.status).toBe(501);
    expect(await r.text()).toContain('WriteGetObjectResponse');
  });

  it('DeleteBucketPolicy/DeleteBucketLifecycle/DeleteBucketEncryption/DeletePublicAccessBlock/DeleteBucketOwnershipControls/DeleteBucketWebsite: the bucket stays', async () => {
    const ops = [
      new sdk.DeleteBucketPolicyCommand({ Bucket: 'keep' }),
      new sdk.DeleteBucketLifecycleCommand({ Bucket: 'keep' }),
      new sdk.DeleteBucketEncryptionCommand({ Bucket: 'keep' }),
      new sdk.DeletePublicAccessBlockCommand({ Bucket: 'keep' }),
      new sdk.DeleteBucketOwnershipControlsCommand({ Bucket: 'keep' }),
      new sdk.DeleteBucketWebsiteCommand({ Bucket: 'keep' }),
    ];
    // An empty bucket is what a fall-through DeleteBucket would remove.
    await t.post('/v4/object-storage/buckets', { cluster: CLUSTER, label: 'empty' });
    for (const cmd of ops) {
      (cmd.input as { Bucket: string }).Bucket = 'empty';
      await s3.send(cmd as never).catch(() => undefined);
    }
    await s3.send(new sdk.HeadBucketCommand({ Bucket: 'empty' }));
  });

  it('DeleteObjectTagging and PutObjectRetention/PutObjectLegalHold: the object and its bytes stay', async () => {
    await s3.send(new sdk.DeleteObjectTaggingCommand({ Bucket: 'keep', Key: 'kept.txt' }));
    const retention = await failure(
      s3.send(
        new sdk.PutObjectRetentionCommand({
          Bucket: 'keep',
          Key: 'kept.txt',
          Retention: { Mode: 'GOVERNANCE', RetainUntilDate: new Date(Date.now() + 60_000) },
        }),
      ),
    );
    expect(retention.name).toBe('InvalidRequest');
    const hold = await failure(
      s3.send(
        new sdk.PutObjectLegalHoldCommand({
          Bucket: 'keep',
          Key: 'kept.txt',
          LegalHold: { Status: 'ON' },
        }),
      ),
    );
    expect(hold.name).toBe('InvalidRequest');
    await intact();
  });

  it('an unknown method is 405 MethodNotAllowed; a POST to a key without a sub-resource too', async () => {
    expect((await fetch(`${t.endpoint}/keep/kept.txt`, { method: 'PATCH' })).status).toBe(405);
    const post = await fetch(`${t.endpoint}/keep/kept.txt`, { method: 'POST', body: 'x' });
    expect(post.status).toBe(405);
    expect(await post.text()).toContain('<Code>MethodNotAllowed</Code>');
    await intact();
  });
});

describe('docs/fidelity.md', () => {
  it('the S3 operations table names every operation with what the server does', async () => {
    const { readFile } = await import('node:fs/promises');
    const doc = await readFile(new URL('../../../docs/fidelity.md', import.meta.url), 'utf8');
    const rows = new Map(
      [...doc.matchAll(/^\| (\w+) \| `[^`]+` \| ([^|]+) \| (yes|no) \|/gm)].map((m) => [
        m[1] as string,
        (m[2] as string).trim(),
      ]),
    );
    for (const o of S3_OPERATIONS) {
      const want = o.sameAs
        ? `as ${o.sameAs}`
        : served().has(o.servedAs ?? o.name)
          ? 'served'
          : '501';
      expect(rows.get(o.name), o.name).toBe(want);
    }
    expect(rows.size).toBe(S3_OPERATIONS.length);
  });
});
