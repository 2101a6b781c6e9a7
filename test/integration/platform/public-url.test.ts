import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, envToConfig } from '../../../src/config/config.js';
import { isPlainHost } from '../../../src/http/public-url.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

/**
 * Absolute URLs the server hands out (an image's `upload_to`, the OAuth issuer, the clusters'
 * `domain`, pre-signed URLs) come from the configured public URL when there is one, never from a
 * caller's Host header; without one, only a plain `host[:port]` Host header is used.
 */
const EVIL = { host: 'evil.example.net' };

describe('public URLs', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  /** The URLs an answer gives, requested with the given headers. */
  async function urls(app: TestApp, headers: Record<string, string>) {
    const upload = await app.post(
      '/v4/images/upload',
      { region: 'us-east', label: 'img' },
      { headers },
    );
    const meta = await app.app.inject({
      method: 'GET',
      url: '/.well-known/oauth-authorization-server',
      headers,
    });
    const cluster = await app.get('/v4/object-storage/clusters/us-east-1', { headers });
    await app.post('/v4/object-storage/buckets', { cluster: 'us-east-1', label: 'pub-url' });
    const bucket = await app.get('/v4/object-storage/buckets/us-east-1/pub-url', { headers });
    const signed = await app.post(
      '/v4/object-storage/buckets/us-east-1/pub-url/object-url',
      { name: 'a.txt', method: 'GET' },
      { headers },
    );
    const issuer = JSON.parse(meta.body);
    return {
      upload_to: upload.body.upload_to as string,
      issuer: issuer.issuer as string,
      token_endpoint: issuer.token_endpoint as string,
      domain: cluster.body.domain as string,
      static_site_domain: cluster.body.static_site_domain as string,
      hostname: bucket.body.hostname as string,
      object_url: signed.body.url as string,
    };
  }

  it('createImageUpload, issuer, getObjectStorageCluster: STRATUS_PUBLIC_URL wins over the Host header', async () => {
    t = await buildTestApp({ env: { STRATUS_PUBLIC_URL: 'https://cloud.example.com/' } });
    const u = await urls(t, EVIL);
    expect(u.upload_to).toMatch(
      /^https:\/\/cloud\.example\.com\/_stratus\/image-uploads\/[0-9a-f]{64}$/,
    );
    expect(u.issuer).toBe('https://cloud.example.com');
    expect(u.token_endpoint).toBe('https://cloud.example.com/oauth/token');
    expect(u.domain).toBe('cloud.example.com/_stratus/s3/us-east-1');
    expect(u.static_site_domain).toBe('cloud.example.com/_stratus/s3-website/us-east-1');
    expect(u.hostname).toBe('cloud.example.com/_stratus/s3/us-east-1/pub-url');
    expect(new URL(u.object_url).host).toBe('cloud.example.com');
    expect(JSON.stringify(u)).not.toContain('evil');
  });

  it('getObjectStorageCluster: STRATUS_S3_ENDPOINT names the data plane, STRATUS_PUBLIC_URL the rest', async () => {
    t = await buildTestApp({
      env: {
        STRATUS_PUBLIC_URL: 'https://cloud.example.com',
        STRATUS_S3_ENDPOINT: 'https://s3.example.com',
      },
    });
    const u = await urls(t, EVIL);
    expect(u.domain).toBe('s3.example.com/_stratus/s3/us-east-1');
    expect(new URL(u.object_url).host).toBe('s3.example.com');
    expect(u.issuer).toBe('https://cloud.example.com');
    expect(u.upload_to.startsWith('https://cloud.example.com/')).toBe(true);
  });

  it('without a public URL: a plain Host header is used, anything else is not copied', async () => {
    t = await buildTestApp();
    const plain = await urls(t, { host: 'api.internal:8443' });
    expect(plain.issuer).toBe('http://api.internal:8443');
    expect(plain.upload_to.startsWith('http://api.internal:8443/_stratus/image-uploads/')).toBe(
      true,
    );
    expect(plain.domain).toBe('api.internal:8443/_stratus/s3/us-east-1');
    for (const host of ['evil.example.net/phish?x=', 'a@evil.example.net', 'evil.example.net#']) {
      const odd = await urls(t, { host });
      expect(odd.issuer, host).toBe('http://127.0.0.1:8080');
      expect(odd.upload_to.startsWith('http://127.0.0.1:8080/_stratus/image-uploads/'), host).toBe(
        true,
      );
      expect(odd.domain, host).toBe('127.0.0.1:8080/_stratus/s3/us-east-1');
    }
  });

  it('isPlainHost: names, addresses and ports only', () => {
    for (const ok of ['localhost', 'a.b.example', 'x:1', '127.0.0.1:8080', '[::1]:80', 'h.'])
      expect(isPlainHost(ok), ok).toBe(true);
    for (const bad of ['', 'a/b', 'a?b', 'a@b', 'a b', 'a:b', '-a.example', 'a..b', 'a#'])
      expect(isPlainHost(bad), bad).toBe(false);
  });

  it('STRATUS_PUBLIC_URL: anything but an http(s) base URL stops the start, naming the variable', () => {
    for (const bad of [
      'cloud.example.com',
      'ftp://x.example',
      'https://x.example/?a=1',
      'https://u:p@x.example',
    ]) {
      expect(() => envToConfig({ STRATUS_PUBLIC_URL: bad }), bad).toThrow(ConfigError);
      expect(() => envToConfig({ STRATUS_PUBLIC_URL: bad }), bad).toThrow(/STRATUS_PUBLIC_URL/);
    }
    expect(envToConfig({ STRATUS_PUBLIC_URL: 'https://x.example/api/' }).publicUrl).toBe(
      'https://x.example/api',
    );
  });
});
