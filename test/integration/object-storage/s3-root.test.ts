import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  CreateBucketCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenS3 } from '../../../src/modules/object-storage/s3/s3.listener.js';
import { buildS3App, CLUSTER, type S3TestApp } from './fixtures.js';

const run = promisify(execFile);

let t: S3TestApp;
let root: Awaited<ReturnType<typeof listenS3>>;
let key: { access_key: string; secret_key: string };
let endpoint: string;

/** Every name resolves to this machine, as `*.localhost` does in browsers and systemd. */
const agent = new http.Agent({
  lookup: ((_host: string, opts: { all?: boolean }, cb: (...a: unknown[]) => void) =>
    opts?.all
      ? cb(null, [{ address: '127.0.0.1', family: 4 }])
      : cb(null, '127.0.0.1', 4)) as never,
});

const client = (o: { region?: string; endpoint?: string; pathStyle?: boolean } = {}) =>
  new S3Client({
    endpoint: o.endpoint ?? endpoint,
    region: o.region ?? CLUSTER,
    forcePathStyle: o.pathStyle ?? true,
    credentials: { accessKeyId: key.access_key, secretAccessKey: key.secret_key },
    requestHandler: new NodeHttpHandler({ httpAgent: agent }),
  });

beforeAll(async () => {
  t = await buildS3App();
  root = await listenS3(t.app.server, '127.0.0.1', 0);
  endpoint = `http://127.0.0.1:${root.port}`;
  key = (await t.post('/v4/object-storage/keys', { label: 'root' })).body;
});
afterAll(async () => {
  await root.close();
  await t.dispose();
});

describe('S3 at the root of its own listener (STRATUS_S3_PORT)', () => {
  it('path style /<bucket>/<key>: the cluster of the signature region, or us-east-1', async () => {
    const s3 = client();
    await s3.send(new CreateBucketCommand({ Bucket: 'rooted' }));
    await s3.send(new PutObjectCommand({ Bucket: 'rooted', Key: 'a/b.txt', Body: 'root' }));
    const got = await s3.send(new GetObjectCommand({ Bucket: 'rooted', Key: 'a/b.txt' }));
    expect(await got.Body?.transformToString()).toBe('root');
    const eu = client({ region: 'eu-central-1' });
    await eu.send(new CreateBucketCommand({ Bucket: 'euro' }));
    const api = await t.get('/v4/object-storage/buckets/eu-central-1');
    expect(api.body.data.map((b: { label: string }) => b.label)).toEqual(['euro']);
    // Signed for the region's id (clients set up from a bucket's `region`): the region's cluster.
    const byRegion = client({ region: 'eu-central' });
    await byRegion.send(new PutObjectCommand({ Bucket: 'euro', Key: 'r.txt', Body: 'region' }));
    const inEu = await t.get('/v4/object-storage/buckets/eu-central/euro/object-list');
    expect(inEu.body.data.map((o: { name: string }) => o.name)).toEqual(['r.txt']);
    byRegion.destroy();
    // Anonymous requests name no region: the default cluster.
    expect((await fetch(`${endpoint}/rooted/a/b.txt`)).status).toBe(403);
    s3.destroy();
    eu.destroy();
  });

  it('virtual hosts <bucket>.s3.localhost and <bucket>.<cluster>.s3.localhost', async () => {
    const vh = client({ endpoint: `http://s3.localhost:${root.port}`, pathStyle: false });
    const listed = await vh.send(new ListObjectsV2Command({ Bucket: 'rooted' }));
    expect(listed.Contents?.map((o) => o.Key)).toEqual(['a/b.txt']);
    const byCluster = client({
      endpoint: `http://eu-central-1.s3.localhost:${root.port}`,
      region: 'eu-central-1',
      pathStyle: false,
    });
    await byCluster.send(new PutObjectCommand({ Bucket: 'euro', Key: 'x', Body: 'x' }));
    vh.destroy();
    byCluster.destroy();
  });

  it('the API listener does not serve the root mount to requests that did not come that way', async () => {
    const r = await fetch(`${t.base}/_stratus/s3-root/rooted/a/b.txt`);
    expect(r.status).toBe(404);
  });
});

describe('S3 through boto3 and the aws CLI (python clients)', () => {
  it('boto3: SigV2 and SigV4, non-ASCII metadata, a 100-continue upload, versions of an unversioned bucket', {
    timeout: 60_000,
  }, async () => {
    const script = `
import boto3, botocore.config, sys, json
from botocore.config import Config
ep, ak, sk = sys.argv[1], sys.argv[2], sys.argv[3]
v4 = boto3.client('s3', endpoint_url=ep, aws_access_key_id=ak, aws_secret_access_key=sk, region_name='us-east-1', config=Config(signature_version='s3v4'))
v2 = boto3.client('s3', endpoint_url=ep, aws_access_key_id=ak, aws_secret_access_key=sk, region_name='us-east-1', config=Config(signature_version='s3'))
out = {}
v4.create_bucket(Bucket='boto')
def meta(params, **kw): params['headers']['x-amz-meta-note'] = 'Hello World\\xe9'
v4.meta.events.register('before-call.s3.PutObject', meta)
v4.put_object(Bucket='boto', Key='m', Body=b'm')
v4.meta.events.unregister('before-call.s3.PutObject', meta)
# botocore sends the value's UTF-8 bytes and reads header bytes as latin-1: the same bytes came back.
out['meta'] = v4.head_object(Bucket='boto', Key='m')['Metadata']['note'].encode('latin-1').decode('utf-8')
v4.put_object(Bucket='boto', Key='big', Body=b'x' * (2 * 1024 * 1024))
out['big'] = v4.head_object(Bucket='boto', Key='big')['ContentLength']
v2.put_object(Bucket='boto', Key='v2', Body=b'two')
out['v2'] = v2.get_object(Bucket='boto', Key='v2')['Body'].read().decode()
out['v2list'] = sorted(o['Key'] for o in v2.list_objects(Bucket='boto')['Contents'])
out['v2acl'] = v2.get_bucket_acl(Bucket='boto')['Grants'][0]['Permission']
out['versions'] = [(v['Key'], v['VersionId']) for v in v4.list_object_versions(Bucket='boto')['Versions']]
v4.delete_objects(Bucket='boto', Delete={'Objects': [{'Key': k, 'VersionId': 'null'} for k, _ in out['versions']]})
v4.delete_bucket(Bucket='boto')
print(json.dumps(out))
`;
    const { stdout } = await run(
      'python3',
      ['-c', script, endpoint, key.access_key, key.secret_key],
      {
        env: { ...process.env, AWS_EC2_METADATA_DISABLED: 'true' },
      },
    );
    expect(JSON.parse(stdout)).toEqual({
      meta: 'Hello Worldé',
      big: 2 * 1024 * 1024,
      v2: 'two',
      v2list: ['big', 'm', 'v2'],
      v2acl: 'FULL_CONTROL',
      versions: [
        ['big', 'null'],
        ['m', 'null'],
        ['v2', 'null'],
      ],
    });
  });

  it('aws CLI: s3 cp, ls and rm against the root listener', { timeout: 180_000 }, async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'stratus-cli-'));
    const env = {
      ...process.env,
      AWS_ACCESS_KEY_ID: key.access_key,
      AWS_SECRET_ACCESS_KEY: key.secret_key,
      AWS_DEFAULT_REGION: CLUSTER,
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_CONFIG_FILE: path.join(dir, 'none'),
      AWS_SHARED_CREDENTIALS_FILE: path.join(dir, 'none'),
    };
    const aws = (...args: string[]) => run('aws', ['--endpoint-url', endpoint, ...args], { env });
    try {
      await writeFile(path.join(dir, 'up.txt'), 'from the cli');
      await aws('s3', 'mb', 's3://cli-bucket');
      await aws('s3', 'cp', path.join(dir, 'up.txt'), 's3://cli-bucket/dir/up.txt');
      expect((await aws('s3', 'ls', 's3://cli-bucket/dir/')).stdout).toContain('up.txt');
      const s3 = client();
      const got = await s3.send(new GetObjectCommand({ Bucket: 'cli-bucket', Key: 'dir/up.txt' }));
      expect(await got.Body?.transformToString()).toBe('from the cli');
      s3.destroy();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
