import http from 'node:http';
import {
  GetObjectCommand,
  ListObjectsV2Command,
  PutBucketWebsiteCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildS3App, CLUSTER, type S3TestApp } from './fixtures.js';

/** Every name resolves to this machine, as wildcard DNS for `*.localhost` would. */
const agent = new http.Agent({
  lookup: ((_host: string, opts: { all?: boolean }, cb: (...a: unknown[]) => void) =>
    opts?.all
      ? cb(null, [{ address: '127.0.0.1', family: 4 }])
      : cb(null, '127.0.0.1', 4)) as never,
});

/** A request to 127.0.0.1 with the Host header a virtual-host-style client sends. */
function viaHost(port: number, host: string, pathname: string, method = 'GET') {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: pathname, method, headers: { host } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('S3 data plane: virtual-host-style addressing', () => {
  let t: S3TestApp;
  let port: number;
  let key: { access_key: string; secret_key: string };
  let vhost: S3Client;
  beforeAll(async () => {
    t = await buildS3App(undefined, { STRATUS_S3_VIRTUAL_HOSTS: 'on' });
    port = Number(new URL(t.base).port);
    await t.post('/v4/object-storage/buckets', { cluster: CLUSTER, label: 'site' });
    key = (await t.post('/v4/object-storage/keys', { label: 'vh' })).body;
    vhost = new S3Client({
      endpoint: `http://localhost:${port}/_stratus/s3/${CLUSTER}`,
      region: CLUSTER,
      forcePathStyle: false,
      credentials: { accessKeyId: key.access_key, secretAccessKey: key.secret_key },
      requestHandler: new NodeHttpHandler({ httpAgent: agent }),
    });
  });
  afterAll(async () => {
    vhost.destroy();
    await t.dispose();
  });

  it('AWS SDK (forcePathStyle false): <bucket>.localhost requests put, get and list, signed', async () => {
    await vhost.send(
      new PutObjectCommand({ Bucket: 'site', Key: 'dir/index.html', Body: '<h1>hi</h1>' }),
    );
    const got = await vhost.send(new GetObjectCommand({ Bucket: 'site', Key: 'dir/index.html' }));
    expect(await got.Body?.transformToString()).toBe('<h1>hi</h1>');
    const list = await vhost.send(new ListObjectsV2Command({ Bucket: 'site' }));
    expect(list.Contents?.map((o) => o.Key)).toEqual(['dir/index.html']);
    // The same object, path style.
    const path = await t
      .client(key)
      .send(new GetObjectCommand({ Bucket: 'site', Key: 'dir/index.html' }));
    expect(await path.Body?.transformToString()).toBe('<h1>hi</h1>');
  });

  it('pre-signed GET in virtual-host style works; the Host is signed, so it cannot name another bucket', async () => {
    const url = new URL(
      await getSignedUrl(vhost, new GetObjectCommand({ Bucket: 'site', Key: 'dir/index.html' }), {
        expiresIn: 600,
      }),
    );
    expect(url.host).toBe(`site.localhost:${port}`);
    const ok = await viaHost(port, url.host, `${url.pathname}${url.search}`);
    expect(ok.status).toBe(200);
    expect(ok.body).toBe('<h1>hi</h1>');
    const other = await viaHost(port, `nope.localhost:${port}`, `${url.pathname}${url.search}`);
    expect(other.status).toBe(403);
    expect(other.body).toContain('<Code>SignatureDoesNotMatch</Code>');
  });

  it('an anonymous read of a public-read object by <bucket>.<domain>', async () => {
    await vhost.send(
      new PutObjectCommand({ Bucket: 'site', Key: 'open.txt', Body: 'public', ACL: 'public-read' }),
    );
    const r = await viaHost(port, `site.localhost:${port}`, `/_stratus/s3/${CLUSTER}/open.txt`);
    expect(r).toEqual({ status: 200, body: 'public' });
    const denied = await viaHost(
      port,
      `site.localhost:${port}`,
      `/_stratus/s3/${CLUSTER}/dir/index.html`,
    );
    expect(denied.status).toBe(403);
  });

  it('getObjectStorageBucket: hostname is <bucket>.<domain> with STRATUS_S3_VIRTUAL_HOSTS', async () => {
    const r = await t.get(`/v4/object-storage/buckets/${CLUSTER}/site`, {
      headers: { host: `localhost:${port}` },
    });
    expect(r.body.hostname).toBe(`site.localhost:${port}/_stratus/s3/${CLUSTER}`);
    const cluster = await t.get(`/v4/object-storage/clusters/${CLUSTER}`, {
      headers: { host: `localhost:${port}` },
    });
    expect(r.body.hostname).toBe(`site.${cluster.body.domain}`);
  });

  it('static_site_domain: reaches the website endpoint of buckets with a website configuration', async () => {
    const cluster = await t.get(`/v4/object-storage/clusters/${CLUSTER}`, {
      headers: { host: `localhost:${port}` },
    });
    const site = new URL(`http://${cluster.body.static_site_domain}`);
    expect(site.pathname).toBe(`/_stratus/s3-website/${CLUSTER}`);
    await t.post('/v4/object-storage/buckets', { cluster: CLUSTER, label: 'www' });
    await vhost.send(
      new PutBucketWebsiteCommand({
        Bucket: 'www',
        WebsiteConfiguration: { IndexDocument: { Suffix: 'index.html' } },
      }),
    );
    await vhost.send(
      new PutObjectCommand({
        Bucket: 'www',
        Key: 'index.html',
        Body: 'home',
        ContentType: 'text/html',
        ACL: 'public-read',
      }),
    );
    const at = (p: string, host = `localhost:${port}`, method = 'GET') =>
      viaHost(port, host, `${site.pathname}${p}`, method);
    expect(await at('/www/')).toEqual({ status: 200, body: 'home' });
    expect(await at('/www')).toEqual({ status: 200, body: 'home' });
    expect(await at('/', `www.localhost:${port}`)).toEqual({ status: 200, body: 'home' });
    expect((await at('/www/', undefined, 'POST')).status).toBe(405);
    expect((await at('/nosuchbucket/')).status).toBe(404);
  });
});
