import {
  CreateBucketCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetBucketVersioningCommand,
  GetObjectLegalHoldCommand,
  GetObjectLockConfigurationCommand,
  GetObjectRetentionCommand,
  HeadObjectCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  PutObjectLegalHoldCommand,
  PutObjectLockConfigurationCommand,
  PutObjectRetentionCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildS3App, CLUSTER, failure, type S3TestApp } from './fixtures.js';

let t: S3TestApp;
let s3: S3Client;
const DAY = 86_400_000;
const inDays = (n: number) => new Date(Date.now() + n * DAY);

beforeAll(async () => {
  t = await buildS3App();
  s3 = t.client((await t.post('/v4/object-storage/keys', { label: 'k' })).body);
  await s3.send(new CreateBucketCommand({ Bucket: 'locked', ObjectLockEnabledForBucket: true }));
  await t.post('/v4/object-storage/buckets', { cluster: CLUSTER, label: 'plain' });
});
afterAll(() => t.dispose());

describe('S3 object lock', () => {
  it('CreateBucket with object lock: versioning on for good; the configuration is there', async () => {
    expect((await s3.send(new GetBucketVersioningCommand({ Bucket: 'locked' }))).Status).toBe(
      'Enabled',
    );
    const suspend = await failure(
      s3.send(
        new PutBucketVersioningCommand({
          Bucket: 'locked',
          VersioningConfiguration: { Status: 'Suspended' },
        }),
      ),
    );
    expect(suspend).toMatchObject({ name: 'InvalidBucketState', status: 409 });
    const conf = await s3.send(new GetObjectLockConfigurationCommand({ Bucket: 'locked' }));
    expect(conf.ObjectLockConfiguration?.ObjectLockEnabled).toBe('Enabled');
    expect(
      (await failure(s3.send(new GetObjectLockConfigurationCommand({ Bucket: 'plain' })))).name,
    ).toBe('ObjectLockConfigurationNotFoundError');
  });

  it('PutObjectLockConfiguration: an existing bucket gets object lock once versioning is Enabled (409 before, and while suspended)', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'later' }));
    const conf = {
      Bucket: 'later',
      ObjectLockConfiguration: {
        ObjectLockEnabled: 'Enabled' as const,
        Rule: { DefaultRetention: { Mode: 'GOVERNANCE' as const, Days: 1 } },
      },
    };
    const lock = () => failure(s3.send(new PutObjectLockConfigurationCommand(conf)));
    expect(await lock()).toMatchObject({ name: 'InvalidBucketState', status: 409 });
    const versioning = (Status: 'Enabled' | 'Suspended') =>
      s3.send(
        new PutBucketVersioningCommand({ Bucket: 'later', VersioningConfiguration: { Status } }),
      );
    await versioning('Suspended');
    expect(await lock()).toMatchObject({ name: 'InvalidBucketState', status: 409 });
    await versioning('Enabled');
    expect((await lock()).name).toBe('no error');
    const got = await s3.send(new GetObjectLockConfigurationCommand({ Bucket: 'later' }));
    expect(got.ObjectLockConfiguration?.Rule?.DefaultRetention).toMatchObject({
      Mode: 'GOVERNANCE',
      Days: 1,
    });
    // Versioning of a locked bucket cannot be suspended any more.
    expect((await failure(versioning('Suspended'))).status).toBe(409);
  });

  it('PutObjectLockConfiguration: a default retention applies to new versions; refused on a plain bucket', async () => {
    await s3.send(
      new PutObjectLockConfigurationCommand({
        Bucket: 'locked',
        ObjectLockConfiguration: {
          ObjectLockEnabled: 'Enabled',
          Rule: { DefaultRetention: { Mode: 'GOVERNANCE', Days: 1 } },
        },
      }),
    );
    const put = await s3.send(new PutObjectCommand({ Bucket: 'locked', Key: 'd', Body: 'x' }));
    const r = await s3.send(
      new GetObjectRetentionCommand({ Bucket: 'locked', Key: 'd', VersionId: put.VersionId }),
    );
    expect(r.Retention?.Mode).toBe('GOVERNANCE');
    expect(r.Retention?.RetainUntilDate?.getTime()).toBeGreaterThan(Date.now() + DAY - 60_000);
    const plain = await failure(
      s3.send(
        new PutObjectLockConfigurationCommand({
          Bucket: 'plain',
          ObjectLockConfiguration: { ObjectLockEnabled: 'Enabled' },
        }),
      ),
    );
    expect(plain).toMatchObject({ name: 'InvalidBucketState', status: 409 });
    const bad = await failure(
      s3.send(
        new PutObjectLockConfigurationCommand({
          Bucket: 'locked',
          ObjectLockConfiguration: {
            ObjectLockEnabled: 'Enabled',
            Rule: { DefaultRetention: { Mode: 'GOVERNANCE', Days: 0 } },
          },
        }),
      ),
    );
    expect(bad.name).toBe('InvalidRetentionPeriod');
    await s3.send(
      new PutObjectLockConfigurationCommand({
        Bucket: 'locked',
        ObjectLockConfiguration: { ObjectLockEnabled: 'Enabled' },
      }),
    );
    // The version is still retained: deleting it needs the bypass.
    const e = await failure(
      s3.send(new DeleteObjectCommand({ Bucket: 'locked', Key: 'd', VersionId: put.VersionId })),
    );
    expect(e.name).toBe('AccessDenied');
    await s3.send(
      new DeleteObjectCommand({
        Bucket: 'locked',
        Key: 'd',
        VersionId: put.VersionId,
        BypassGovernanceRetention: true,
      }),
    );
  });

  it('COMPLIANCE: the version cannot be deleted, shortened or changed; a delete without id only adds a marker', async () => {
    const put = await s3.send(
      new PutObjectCommand({
        Bucket: 'locked',
        Key: 'c',
        Body: 'x',
        ObjectLockMode: 'COMPLIANCE',
        ObjectLockRetainUntilDate: inDays(2),
      }),
    );
    const del = (bypass = false) =>
      failure(
        s3.send(
          new DeleteObjectCommand({
            Bucket: 'locked',
            Key: 'c',
            VersionId: put.VersionId,
            BypassGovernanceRetention: bypass,
          }),
        ),
      );
    expect((await del()).name).toBe('AccessDenied');
    expect((await del(true)).name).toBe('AccessDenied');
    const retain = (Mode: 'GOVERNANCE' | 'COMPLIANCE', days: number) =>
      failure(
        s3.send(
          new PutObjectRetentionCommand({
            Bucket: 'locked',
            Key: 'c',
            VersionId: put.VersionId,
            Retention: { Mode, RetainUntilDate: inDays(days) },
            BypassGovernanceRetention: true,
          }),
        ),
      );
    expect((await retain('COMPLIANCE', 1)).name).toBe('AccessDenied');
    expect((await retain('GOVERNANCE', 5)).name).toBe('AccessDenied');
    expect((await retain('COMPLIANCE', 5)).name).toBe('no error');
    const marker = await s3.send(new DeleteObjectCommand({ Bucket: 'locked', Key: 'c' }));
    expect(marker.DeleteMarker).toBe(true);
    // Past the date, the version can go (the client signs at the emulator's time).
    t.clock.set(Date.now() + 6 * DAY);
    const later = t.client((await t.post('/v4/object-storage/keys', { label: 'later' })).body);
    later.config.systemClockOffset = 6 * DAY;
    await later.send(
      new DeleteObjectCommand({ Bucket: 'locked', Key: 'c', VersionId: put.VersionId }),
    );
    t.clock.set(Date.now());
  });

  it('GOVERNANCE: shortening needs the bypass; DeleteObjects reports locked versions per key', async () => {
    const put = await s3.send(
      new PutObjectCommand({
        Bucket: 'locked',
        Key: 'g',
        Body: 'x',
        ObjectLockMode: 'GOVERNANCE',
        ObjectLockRetainUntilDate: inDays(3),
      }),
    );
    const shorten = (bypass: boolean) =>
      failure(
        s3.send(
          new PutObjectRetentionCommand({
            Bucket: 'locked',
            Key: 'g',
            VersionId: put.VersionId,
            Retention: { Mode: 'GOVERNANCE', RetainUntilDate: inDays(1) },
            BypassGovernanceRetention: bypass,
          }),
        ),
      );
    expect((await shorten(false)).name).toBe('AccessDenied');
    expect((await shorten(true)).name).toBe('no error');
    const many = await s3.send(
      new DeleteObjectsCommand({
        Bucket: 'locked',
        Delete: { Objects: [{ Key: 'g', VersionId: put.VersionId }] },
      }),
    );
    expect(many.Errors?.map((e) => [e.Key, e.Code])).toEqual([['g', 'AccessDenied']]);
    const head = await s3.send(
      new HeadObjectCommand({ Bucket: 'locked', Key: 'g', VersionId: put.VersionId }),
    );
    expect(head.ObjectLockMode).toBe('GOVERNANCE');
  });

  it('legal hold: ON keeps the version whatever the bypass; OFF releases it', async () => {
    const put = await s3.send(
      new PutObjectCommand({
        Bucket: 'locked',
        Key: 'h',
        Body: 'x',
        ObjectLockLegalHoldStatus: 'ON',
      }),
    );
    const hold = await s3.send(
      new GetObjectLegalHoldCommand({ Bucket: 'locked', Key: 'h', VersionId: put.VersionId }),
    );
    expect(hold.LegalHold?.Status).toBe('ON');
    const del = () =>
      failure(
        s3.send(
          new DeleteObjectCommand({
            Bucket: 'locked',
            Key: 'h',
            VersionId: put.VersionId,
            BypassGovernanceRetention: true,
          }),
        ),
      );
    expect((await del()).name).toBe('AccessDenied');
    await s3.send(
      new PutObjectLegalHoldCommand({
        Bucket: 'locked',
        Key: 'h',
        VersionId: put.VersionId,
        LegalHold: { Status: 'OFF' },
      }),
    );
    expect((await del()).name).toBe('no error');
  });

  it('lock headers and retention on a bucket without object lock are refused', async () => {
    const e = await failure(
      s3.send(
        new PutObjectCommand({
          Bucket: 'plain',
          Key: 'x',
          Body: 'x',
          ObjectLockMode: 'GOVERNANCE',
          ObjectLockRetainUntilDate: inDays(1),
        }),
      ),
    );
    expect(e).toMatchObject({ name: 'InvalidRequest', status: 400 });
    const partial = await failure(
      s3.send(
        new PutObjectCommand({
          Bucket: 'locked',
          Key: 'y',
          Body: 'y',
          ObjectLockMode: 'GOVERNANCE',
        }),
      ),
    );
    expect(partial.name).toBe('InvalidArgument');
  });
});
