import http from 'node:http';
import {
  DeleteBucketCorsCommand,
  DeleteBucketWebsiteCommand,
  GetBucketCorsCommand,
  GetBucketWebsiteCommand,
  PutBucketCorsCommand,
  PutBucketPolicyCommand,
  PutBucketWebsiteCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildS3App, CLUSTER, failure, type S3TestApp } from './fixtures.js';

let t: S3TestApp;
let s3: S3Client;

beforeAll(async () => {
  t = await buildS3App();
  s3 = t.client((await t.post('/v4/object-storage/keys', { label: 'k' })).body);
  for (const label of ['cors', 'site', 'jump'])
    await t.post('/v4/object-storage/buckets', { cluster: CLUSTER, label });
});
afterAll(() => t.dispose());

const preflight = (path: string, origin: string, method: string, headers?: string) =>
  fetch(`${t.endpoint}/${path}`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': method,
      ...(headers ? { 'access-control-request-headers': headers } : {}),
    },
  });

describe('S3 CORS from stored rules', () => {
  it('PutBucketCors/GetBucketCors/DeleteBucketCors: the rules as given; none is NoSuchCORSConfiguration', async () => {
    await s3.send(
      new PutBucketCorsCommand({
        Bucket: 'cors',
        CORSConfiguration: {
          CORSRules: [
            {
              ID: 'app',
              AllowedOrigins: ['https://app.example', 'https://*.tools.example'],
              AllowedMethods: ['GET', 'PUT'],
              AllowedHeaders: ['content-type', 'x-amz-*'],
              ExposeHeaders: ['ETag', 'x-amz-version-id'],
              MaxAgeSeconds: 600,
            },
            { AllowedOrigins: ['*'], AllowedMethods: ['HEAD'] },
          ],
        },
      }),
    );
    const got = await s3.send(new GetBucketCorsCommand({ Bucket: 'cors' }));
    expect(got.CORSRules?.[0]).toMatchObject({
      ID: 'app',
      AllowedOrigins: ['https://app.example', 'https://*.tools.example'],
      AllowedMethods: ['GET', 'PUT'],
      MaxAgeSeconds: 600,
    });
    const api = await t.get(`/v4/object-storage/buckets/${CLUSTER}/cors`);
    expect(api.status).toBe(200);
    await s3.send(new DeleteBucketCorsCommand({ Bucket: 'cors' }));
    expect((await failure(s3.send(new GetBucketCorsCommand({ Bucket: 'cors' })))).name).toBe(
      'NoSuchCORSConfiguration',
    );
  });

  it('preflight: origin, method and requested headers are matched against the rules', async () => {
    await s3.send(
      new PutBucketCorsCommand({
        Bucket: 'cors',
        CORSConfiguration: {
          CORSRules: [
            {
              AllowedOrigins: ['https://app.example', 'https://*.tools.example'],
              AllowedMethods: ['GET', 'PUT'],
              AllowedHeaders: ['content-type', 'x-amz-*'],
              ExposeHeaders: ['ETag'],
              MaxAgeSeconds: 600,
            },
          ],
        },
      }),
    );
    const ok = await preflight(
      'cors/f.txt',
      'https://app.example',
      'PUT',
      'Content-Type, X-Amz-Meta-A',
    );
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(ok.headers.get('access-control-allow-methods')).toBe('GET, PUT');
    expect(ok.headers.get('access-control-allow-headers')).toBe('content-type, x-amz-meta-a');
    expect(ok.headers.get('access-control-max-age')).toBe('600');
    expect(ok.headers.get('access-control-expose-headers')).toBe('ETag');
    expect((await preflight('cors/f.txt', 'https://a.tools.example', 'GET')).status).toBe(200);
    expect((await preflight('cors/f.txt', 'https://evil.example', 'GET')).status).toBe(403);
    expect((await preflight('cors/f.txt', 'https://app.example', 'DELETE')).status).toBe(403);
    expect(
      (await preflight('cors/f.txt', 'https://app.example', 'PUT', 'authorization')).status,
    ).toBe(403);
  });

  it('actual requests carry the headers of the matching rule only', async () => {
    await s3.send(new PutObjectCommand({ Bucket: 'cors', Key: 'f.txt', Body: 'f' }));
    await s3.send(
      new PutBucketPolicyCommand({
        Bucket: 'cors',
        Policy: JSON.stringify({
          Version: '2012-10-17',
          Statement: [
            {
              Effect: 'Allow',
              Principal: '*',
              Action: 's3:GetObject',
              Resource: 'arn:aws:s3:::cors/*',
            },
          ],
        }),
      }),
    );
    const from = (origin: string) => fetch(`${t.endpoint}/cors/f.txt`, { headers: { origin } });
    const ok = await from('https://app.example');
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(ok.headers.get('access-control-expose-headers')).toBe('ETag');
    expect((await from('https://evil.example')).headers.get('access-control-allow-origin')).toBe(
      null,
    );
  });

  it('actual requests: a refused one carries the CORS headers too; Access-Control-Request-Method is the method matched (RGW)', async () => {
    const put = (origin: string, acrm?: string, method = 'PUT') =>
      fetch(`${t.endpoint}/cors/anon.txt`, {
        method,
        ...(method === 'PUT' ? { body: '' } : {}),
        headers: { origin, ...(acrm ? { 'access-control-request-method': acrm } : {}) },
      });
    const refused = await put('https://other.example');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBe(null);
    // Anonymous PUT: refused (403), and the rule for PUT from this origin still answers.
    const app = await put('https://app.example');
    expect(app.status).toBe(403);
    expect(app.headers.get('access-control-allow-origin')).toBe('https://app.example');
    // The rule allows GET and PUT, not DELETE: a DELETE is matched through
    // Access-Control-Request-Method when it names one.
    const del = await put('https://app.example', undefined, 'DELETE');
    expect(del.status).toBe(403);
    expect(del.headers.get('access-control-allow-origin')).toBe(null);
    const viaGet = await put('https://app.example', 'GET', 'DELETE');
    expect(viaGet.status).toBe(403);
    expect(viaGet.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(viaGet.headers.get('access-control-allow-methods')).toBe('GET, PUT');
    expect(
      (await put('https://app.example', 'DELETE')).headers.get('access-control-allow-origin'),
    ).toBe(null);
  });

  it('PutBucketCors: an unsupported method is refused', async () => {
    const e = await failure(
      s3.send(
        new PutBucketCorsCommand({
          Bucket: 'cors',
          CORSConfiguration: { CORSRules: [{ AllowedOrigins: ['*'], AllowedMethods: ['PATCH'] }] },
        }),
      ),
    );
    expect(e).toMatchObject({ name: 'InvalidRequest', status: 400 });
  });
});

/** A website request, as a browser sends it (redirects not followed). */
function site(path: string, host?: string) {
  const port = Number(new URL(t.base).port);
  return new Promise<{ status: number; body: string; location?: string }>((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: `/_stratus/s3-website/${CLUSTER}${path}`,
        headers: host ? { host } : {},
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString(),
            ...(res.headers.location ? { location: res.headers.location } : {}),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('S3 static websites from their configuration', () => {
  it('PutBucketWebsite/GetBucketWebsite/DeleteBucketWebsite; no configuration is NoSuchWebsiteConfiguration', async () => {
    expect((await site('/site/')).status).toBe(404);
    expect((await site('/site/')).body).toContain('NoSuchWebsiteConfiguration');
    await s3.send(
      new PutBucketWebsiteCommand({
        Bucket: 'site',
        WebsiteConfiguration: {
          IndexDocument: { Suffix: 'index.html' },
          ErrorDocument: { Key: 'oops.html' },
          RoutingRules: [
            {
              Condition: { KeyPrefixEquals: 'old/' },
              Redirect: { ReplaceKeyPrefixWith: 'new/', HttpRedirectCode: '302' },
            },
            {
              Condition: { HttpErrorCodeReturnedEquals: '404', KeyPrefixEquals: 'gone/' },
              Redirect: { HostName: 'archive.example', Protocol: 'https' },
            },
          ],
        },
      }),
    );
    const got = await s3.send(new GetBucketWebsiteCommand({ Bucket: 'site' }));
    expect(got.IndexDocument?.Suffix).toBe('index.html');
    expect(got.ErrorDocument?.Key).toBe('oops.html');
    expect(got.RoutingRules).toHaveLength(2);
  });

  it('serves index documents, the error document with 404, routing rules and object redirects', async () => {
    const pub = { ACL: 'public-read' as const, ContentType: 'text/html' };
    for (const [Key, Body] of [
      ['index.html', 'home'],
      ['docs/index.html', 'docs home'],
      ['oops.html', 'oops'],
    ])
      await s3.send(new PutObjectCommand({ Bucket: 'site', Key, Body, ...pub }));
    await s3.send(
      new PutObjectCommand({
        Bucket: 'site',
        Key: 'moved.html',
        Body: '',
        WebsiteRedirectLocation: '/docs/',
        ...pub,
      }),
    );
    expect(await site('/site/')).toMatchObject({ status: 200, body: 'home' });
    expect(await site('/site/docs/')).toMatchObject({ status: 200, body: 'docs home' });
    const folder = await site('/site/docs');
    expect(folder.status).toBe(302);
    expect(folder.location).toMatch(/\/site\/docs\/$/);
    expect(await site('/site/missing.html')).toMatchObject({ status: 404, body: 'oops' });
    const old = await site('/site/old/page.html');
    expect(old.status).toBe(302);
    expect(old.location).toMatch(/\/site\/new\/page\.html$/);
    const gone = await site('/site/gone/x.html');
    expect(gone).toMatchObject({ status: 301, location: 'https://archive.example/gone/x.html' });
    expect(await site('/site/moved.html')).toMatchObject({ status: 301, location: '/docs/' });
    // Virtual-host style: <bucket>.<static site host>.
    expect(await site('/', `site.localhost:${new URL(t.base).port}`)).toMatchObject({
      status: 200,
      body: 'home',
    });
  });

  it('a private object of a public bucket is not served (403, with the error document)', async () => {
    await t.put(`/v4/object-storage/buckets/${CLUSTER}/site/access`, { acl: 'public-read' });
    await s3.send(new PutObjectCommand({ Bucket: 'site', Key: 'secret.html', Body: 'secret' }));
    const r = await site('/site/secret.html');
    expect(r.status).toBe(403);
    expect(r.body).toBe('oops');
    expect((await fetch(`${t.endpoint}/site/secret.html`)).status).toBe(403);
  });

  it('RedirectAllRequestsTo sends every request elsewhere; the configuration is exclusive', async () => {
    await s3.send(
      new PutBucketWebsiteCommand({
        Bucket: 'jump',
        WebsiteConfiguration: {
          RedirectAllRequestsTo: { HostName: 'www.example', Protocol: 'https' },
        },
      }),
    );
    expect(await site('/jump/a/b')).toMatchObject({
      status: 301,
      location: 'https://www.example/a/b',
    });
    const e = await failure(
      s3.send(
        new PutBucketWebsiteCommand({
          Bucket: 'jump',
          WebsiteConfiguration: {
            RedirectAllRequestsTo: { HostName: 'www.example' },
            IndexDocument: { Suffix: 'index.html' },
          },
        }),
      ),
    );
    expect(e.name).toBe('InvalidArgument');
    await s3.send(new DeleteBucketWebsiteCommand({ Bucket: 'jump' }));
    expect((await site('/jump/a')).status).toBe(404);
  });
});
