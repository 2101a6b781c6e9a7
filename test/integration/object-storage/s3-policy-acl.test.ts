import {
  DeleteBucketPolicyCommand,
  GetBucketAclCommand,
  GetBucketPolicyCommand,
  GetBucketPolicyStatusCommand,
  GetObjectAclCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutBucketAclCommand,
  PutBucketPolicyCommand,
  PutObjectAclCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapAccount } from '../../../src/modules/identity/bootstrap.js';
import { buildS3App, CLUSTER, failure, type S3TestApp } from './fixtures.js';

let t: S3TestApp;
let owner: S3Client;
let other: S3Client;
let ownerId: string;
let otherId: string;
let otherEmail: string;

const anonymous = (path: string) => fetch(`${t.endpoint}/${path}`);
const policy = (statements: unknown[]) =>
  JSON.stringify({ Version: '2012-10-17', Statement: statements });

beforeAll(async () => {
  t = await buildS3App();
  owner = t.client((await t.post('/v4/object-storage/keys', { label: 'owner' })).body);
  otherEmail = 'other@example.com';
  const acct = await bootstrapAccount(t.ctx.db, t.clock, { email: otherEmail, username: 'other' });
  other = t.client(
    (await t.post('/v4/object-storage/keys', { label: 'other' }, { token: acct.token })).body,
  );
  ownerId = (await t.get('/v4/account')).body.euuid;
  otherId = (await t.get('/v4/account', { token: acct.token })).body.euuid;
  for (const label of ['pol', 'acl', 'acl-obj'])
    await t.post('/v4/object-storage/buckets', { cluster: CLUSTER, label });
  for (const Key of ['public/a.txt', 'private/b.txt'])
    await owner.send(new PutObjectCommand({ Bucket: 'pol', Key, Body: Key }));
});
afterAll(() => t.dispose());

describe('S3 bucket policies', () => {
  it('PutBucketPolicy/GetBucketPolicy/DeleteBucketPolicy: stored as given; none is NoSuchBucketPolicy', async () => {
    expect((await failure(owner.send(new GetBucketPolicyCommand({ Bucket: 'pol' })))).name).toBe(
      'NoSuchBucketPolicy',
    );
    const doc = policy([
      {
        Effect: 'Allow',
        Principal: '*',
        Action: 's3:GetObject',
        Resource: 'arn:aws:s3:::pol/public/*',
      },
    ]);
    await owner.send(new PutBucketPolicyCommand({ Bucket: 'pol', Policy: doc }));
    expect((await owner.send(new GetBucketPolicyCommand({ Bucket: 'pol' }))).Policy).toBe(doc);
    expect((await anonymous('pol/public/a.txt')).status).toBe(200);
    expect((await anonymous('pol/private/b.txt')).status).toBe(403);
    await owner.send(new DeleteBucketPolicyCommand({ Bucket: 'pol' }));
    expect((await anonymous('pol/public/a.txt')).status).toBe(403);
  });

  it('PutBucketPolicy: malformed documents are MalformedPolicy (bad JSON, action, resource of another bucket, operator, NotPrincipal in an Allow)', async () => {
    const bad = [
      '{not json',
      policy([
        { Effect: 'Allow', Principal: '*', Action: 'ec2:Run', Resource: 'arn:aws:s3:::pol/*' },
      ]),
      policy([
        {
          Effect: 'Allow',
          Principal: '*',
          Action: 's3:GetObject',
          Resource: 'arn:aws:s3:::elsewhere/*',
        },
      ]),
      policy([
        { Effect: 'Maybe', Principal: '*', Action: 's3:GetObject', Resource: 'arn:aws:s3:::pol/*' },
      ]),
      policy([
        {
          Effect: 'Allow',
          Principal: '*',
          Action: 's3:GetObject',
          Resource: 'arn:aws:s3:::pol/*',
          Condition: { StringLooksLike: { 's3:prefix': 'x' } },
        },
      ]),
      // NotPrincipal is for Deny statements only.
      policy([
        {
          Effect: 'Allow',
          NotPrincipal: { AWS: '*' },
          Action: 's3:ListBucket',
          Resource: 'arn:aws:s3:::pol',
        },
      ]),
    ];
    for (const Policy of bad) {
      const e = await failure(owner.send(new PutBucketPolicyCommand({ Bucket: 'pol', Policy })));
      expect(e, Policy).toMatchObject({ name: 'MalformedPolicy', status: 400 });
    }
  });

  it('HeadObject of a missing key: 404 to whoever may list that key (s3:prefix is the key), 403 to others', async () => {
    await owner.send(
      new PutBucketPolicyCommand({
        Bucket: 'pol',
        Policy: policy([
          {
            Effect: 'Allow',
            Principal: { AWS: '*' },
            Action: 's3:ListBucket',
            Resource: 'arn:aws:s3:::pol',
            Condition: { StringLike: { 's3:prefix': 'public/*' } },
          },
        ]),
      }),
    );
    const head = (Key: string) =>
      failure(other.send(new HeadObjectCommand({ Bucket: 'pol', Key })));
    expect((await head('public/missing')).status).toBe(404);
    expect((await head('private/missing')).status).toBe(403);
    await owner.send(new DeleteBucketPolicyCommand({ Bucket: 'pol' }));
  });

  it('conditions: aws:SourceIp and s3:prefix narrow an Allow', async () => {
    await owner.send(
      new PutBucketPolicyCommand({
        Bucket: 'pol',
        Policy: policy([
          {
            Effect: 'Allow',
            Principal: '*',
            Action: 's3:ListBucket',
            Resource: 'arn:aws:s3:::pol',
            Condition: { StringEquals: { 's3:prefix': 'public/' } },
          },
          {
            Effect: 'Allow',
            Principal: { AWS: '*' },
            Action: 's3:GetObject',
            Resource: 'arn:aws:s3:::pol/*',
            Condition: { IpAddress: { 'aws:SourceIp': '10.0.0.0/8' } },
          },
        ]),
      }),
    );
    expect((await anonymous('pol?list-type=2&prefix=public/')).status).toBe(200);
    expect((await anonymous('pol?list-type=2&prefix=private/')).status).toBe(403);
    // The test's address is 127.0.0.1, outside 10/8.
    expect((await anonymous('pol/public/a.txt')).status).toBe(403);
    await owner.send(
      new PutBucketPolicyCommand({
        Bucket: 'pol',
        Policy: policy([
          {
            Effect: 'Allow',
            Principal: { AWS: '*' },
            Action: 's3:GetObject',
            Resource: 'arn:aws:s3:::pol/*',
            Condition: { IpAddress: { 'aws:SourceIp': ['127.0.0.0/8', '::1/128'] } },
          },
        ]),
      }),
    );
    expect((await anonymous('pol/public/a.txt')).status).toBe(200);
    await owner.send(new DeleteBucketPolicyCommand({ Bucket: 'pol' }));
  });

  it('an explicit Deny wins over the ACL and an Allow, for the owner too; the owner keeps its policy', async () => {
    await owner.send(
      new PutBucketPolicyCommand({
        Bucket: 'pol',
        Policy: policy([
          { Effect: 'Allow', Principal: '*', Action: 's3:*', Resource: 'arn:aws:s3:::pol/*' },
          {
            Effect: 'Deny',
            Principal: '*',
            Action: 's3:*',
            Resource: 'arn:aws:s3:::pol/private/*',
          },
        ]),
      }),
    );
    expect(
      (await failure(owner.send(new GetObjectCommand({ Bucket: 'pol', Key: 'private/b.txt' }))))
        .name,
    ).toBe('AccessDenied');
    await owner.send(new GetObjectCommand({ Bucket: 'pol', Key: 'public/a.txt' }));
    await owner.send(new DeleteBucketPolicyCommand({ Bucket: 'pol' }));
    await owner.send(new GetObjectCommand({ Bucket: 'pol', Key: 'private/b.txt' }));
  });

  it('a policy grants another account by its canonical id; key limits still bound a limited key', async () => {
    await owner.send(
      new PutBucketPolicyCommand({
        Bucket: 'pol',
        Policy: policy([
          {
            Effect: 'Allow',
            Principal: { AWS: [`arn:aws:iam::${otherId}:root`] },
            Action: ['s3:GetObject', 's3:PutObject'],
            Resource: 'arn:aws:s3:::pol/*',
          },
        ]),
      }),
    );
    const got = await other.send(new GetObjectCommand({ Bucket: 'pol', Key: 'private/b.txt' }));
    expect(await got.Body?.transformToString()).toBe('private/b.txt');
    // A read_only key of the owner's account cannot write, whatever the policy allows.
    const ro = t.client(
      (
        await t.post('/v4/object-storage/keys', {
          label: 'ro',
          bucket_access: [{ cluster: CLUSTER, bucket_name: 'pol', permissions: 'read_only' }],
        })
      ).body,
    );
    expect(
      (await failure(ro.send(new PutObjectCommand({ Bucket: 'pol', Key: 'x', Body: 'x' })))).name,
    ).toBe('AccessDenied');
    await owner.send(new DeleteBucketPolicyCommand({ Bucket: 'pol' }));
  });

  it('GetBucketPolicyStatus: public with an unconditioned Allow to everyone or a public ACL', async () => {
    const status = async () =>
      (await owner.send(new GetBucketPolicyStatusCommand({ Bucket: 'pol' }))).PolicyStatus
        ?.IsPublic;
    expect(await status()).toBe(false);
    await owner.send(
      new PutBucketPolicyCommand({
        Bucket: 'pol',
        Policy: policy([
          {
            Effect: 'Allow',
            Principal: '*',
            Action: 's3:GetObject',
            Resource: 'arn:aws:s3:::pol/*',
          },
        ]),
      }),
    );
    expect(await status()).toBe(true);
    await owner.send(
      new PutBucketPolicyCommand({
        Bucket: 'pol',
        Policy: policy([
          {
            Effect: 'Allow',
            Principal: '*',
            Action: 's3:GetObject',
            Resource: 'arn:aws:s3:::pol/*',
            Condition: { IpAddress: { 'aws:SourceIp': '10.0.0.0/8' } },
          },
        ]),
      }),
    );
    expect(await status()).toBe(false);
    await owner.send(new DeleteBucketPolicyCommand({ Bucket: 'pol' }));
    await owner.send(new PutBucketAclCommand({ Bucket: 'pol', ACL: 'public-read' }));
    expect(await status()).toBe(true);
    await owner.send(new PutBucketAclCommand({ Bucket: 'pol', ACL: 'private' }));
  });
});

describe('S3 ACLs', () => {
  it('PutBucketAcl: x-amz-grant-* headers grant another account (by id and by e-mail)', async () => {
    expect((await failure(other.send(new ListObjectsV2Command({ Bucket: 'acl' })))).name).toBe(
      'AccessDenied',
    );
    await owner.send(
      new PutBucketAclCommand({
        Bucket: 'acl',
        GrantRead: `id="${otherId}"`,
        GrantFullControl: `id="${ownerId}"`,
      }),
    );
    await other.send(new ListObjectsV2Command({ Bucket: 'acl' }));
    const acl = await owner.send(new GetBucketAclCommand({ Bucket: 'acl' }));
    expect(acl.Owner?.ID).toBe(ownerId);
    expect(acl.Grants?.map((g) => [g.Grantee?.Type, g.Grantee?.ID, g.Permission])).toEqual(
      expect.arrayContaining([
        ['CanonicalUser', otherId, 'READ'],
        ['CanonicalUser', ownerId, 'FULL_CONTROL'],
      ]),
    );
    // By e-mail: resolved to the account and shown by its canonical id.
    await owner.send(
      new PutBucketAclCommand({
        Bucket: 'acl',
        GrantWrite: `emailAddress="${otherEmail}"`,
        GrantFullControl: `id="${ownerId}"`,
      }),
    );
    const byMail = await owner.send(new GetBucketAclCommand({ Bucket: 'acl' }));
    expect(byMail.Grants?.find((g) => g.Permission === 'WRITE')?.Grantee?.ID).toBe(otherId);
    await other.send(new PutObjectCommand({ Bucket: 'acl', Key: 'from-other', Body: 'x' }));
    expect((await failure(other.send(new ListObjectsV2Command({ Bucket: 'acl' })))).name).toBe(
      'AccessDenied',
    );
  });

  it('PutBucketAcl: a grant to an unknown account or e-mail is refused, the ACL unchanged', async () => {
    const before = await owner.send(new GetBucketAclCommand({ Bucket: 'acl' }));
    const unknownId = await failure(
      owner.send(new PutBucketAclCommand({ Bucket: 'acl', GrantRead: 'id="no-such-user"' })),
    );
    expect(unknownId).toMatchObject({ name: 'InvalidArgument', status: 400 });
    const unknownMail = await failure(
      owner.send(
        new PutBucketAclCommand({ Bucket: 'acl', GrantRead: 'emailAddress="nobody@example.com"' }),
      ),
    );
    expect(unknownMail).toMatchObject({ name: 'UnresolvableGrantByEmailAddress', status: 400 });
    const doc = await failure(
      owner.send(
        new PutBucketAclCommand({
          Bucket: 'acl',
          AccessControlPolicy: {
            Owner: { ID: ownerId },
            Grants: [{ Grantee: { Type: 'CanonicalUser', ID: 'ghost' }, Permission: 'READ' }],
          },
        }),
      ),
    );
    expect(doc.name).toBe('InvalidArgument');
    expect((await owner.send(new GetBucketAclCommand({ Bucket: 'acl' }))).Grants).toEqual(
      before.Grants,
    );
  });

  it('PutObjectAcl: an AccessControlPolicy document grants a group and an account', async () => {
    await owner.send(new PutObjectCommand({ Bucket: 'acl-obj', Key: 'o.txt', Body: 'o' }));
    expect((await anonymous('acl-obj/o.txt')).status).toBe(403);
    await owner.send(
      new PutObjectAclCommand({
        Bucket: 'acl-obj',
        Key: 'o.txt',
        AccessControlPolicy: {
          Owner: { ID: ownerId },
          Grants: [
            { Grantee: { Type: 'CanonicalUser', ID: ownerId }, Permission: 'FULL_CONTROL' },
            {
              Grantee: { Type: 'Group', URI: 'http://acs.amazonaws.com/groups/global/AllUsers' },
              Permission: 'READ',
            },
            { Grantee: { Type: 'CanonicalUser', ID: otherId }, Permission: 'READ_ACP' },
          ],
        },
      }),
    );
    expect((await anonymous('acl-obj/o.txt')).status).toBe(200);
    const seen = await other.send(new GetObjectAclCommand({ Bucket: 'acl-obj', Key: 'o.txt' }));
    expect(seen.Grants).toHaveLength(3);
    // The control plane shows grants it cannot name as `custom`.
    const api = await t.get(`/v4/object-storage/buckets/${CLUSTER}/acl-obj/object-acl?name=o.txt`);
    expect(api.body.acl).toBe('custom');
    expect(api.body.acl_xml).toContain(otherId);
  });

  it('an object another account writes is its own: the bucket owner reads it only when granted', async () => {
    await owner.send(
      new PutBucketAclCommand({
        Bucket: 'acl-obj',
        GrantWrite: `id="${otherId}"`,
        GrantFullControl: `id="${ownerId}"`,
      }),
    );
    await other.send(new PutObjectCommand({ Bucket: 'acl-obj', Key: 'theirs', Body: 't' }));
    expect(
      (await failure(owner.send(new GetObjectCommand({ Bucket: 'acl-obj', Key: 'theirs' })))).name,
    ).toBe('AccessDenied');
    await other.send(
      new PutObjectCommand({
        Bucket: 'acl-obj',
        Key: 'shared',
        Body: 's',
        ACL: 'bucket-owner-full-control',
      }),
    );
    const got = await owner.send(new GetObjectCommand({ Bucket: 'acl-obj', Key: 'shared' }));
    expect(await got.Body?.transformToString()).toBe('s');
    const acl = await owner.send(new GetObjectAclCommand({ Bucket: 'acl-obj', Key: 'shared' }));
    expect(acl.Owner?.ID).toBe(otherId);
  });
});
