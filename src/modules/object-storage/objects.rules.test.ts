import { describe, expect, it } from 'vitest';
import { envToConfig } from '../../config/config.js';
import { bucketHostname, toApiCluster } from './objects.clusters.js';
import { bucketLabelProblem, pemFromApi } from './objects.rules.js';
import { cannedAclDocument, grantsFromXml, storedAcl } from './s3/s3.acl.js';
import { canonicalQuery, parseAmzDate, uriEncode } from './s3/sigv4.js';

describe('object storage rules', () => {
  it('bucketLabelProblem: 3..63 lower-case letters, digits, hyphens; alphanumeric ends', () => {
    for (const ok of ['abc', 'my-bucket-1', '0ab', 'a'.repeat(63)])
      expect(bucketLabelProblem(ok), ok).toBeUndefined();
    for (const bad of ['ab', 'a'.repeat(64), 'ABC', 'a_b', '-ab', 'ab-', 'a.b', 'a b'])
      expect(bucketLabelProblem(bad), bad).toBeDefined();
  });

  it('pemFromApi: the two characters \\ and n are line breaks', () => {
    expect(pemFromApi('-----BEGIN X-----\\nAAA\\n-----END X-----\\n')).toBe(
      '-----BEGIN X-----\nAAA\n-----END X-----',
    );
  });

  it("grantsFromXml: a canned ACL's document maps back to that canned ACL", async () => {
    const accounts = { byId: async (id: string) => id, byEmail: async () => undefined };
    for (const acl of ['private', 'public-read', 'public-read-write', 'authenticated-read']) {
      const grants = await grantsFromXml(cannedAclDocument(acl, 'owner'), 'owner', accounts);
      expect(storedAcl(grants, 'owner')).toEqual({ acl, grants: null });
    }
  });

  it("envToConfig: STRATUS_S3_ENDPOINT must be an http(s) URL; it names the clusters' domain", () => {
    expect(() => envToConfig({ STRATUS_S3_ENDPOINT: 'ftp://x' })).toThrow(/STRATUS_S3_ENDPOINT/);
    expect(() => envToConfig({ STRATUS_S3_ENDPOINT: 'not a url' })).toThrow(/STRATUS_S3_ENDPOINT/);
    const c = envToConfig({ STRATUS_S3_ENDPOINT: 'https://s3.example.com/' });
    expect(c.s3Endpoint).toBe('https://s3.example.com');
    expect(toApiCluster(c.s3Endpoint as string, 'us-east-1').domain).toBe(
      's3.example.com/_stratus/s3/us-east-1',
    );
    expect(bucketHostname(c.s3Endpoint as string, 'us-east-1', 'b1')).toBe(
      's3.example.com/_stratus/s3/us-east-1/b1',
    );
  });
});

describe("S3's own listener", () => {
  it('envToConfig: STRATUS_S3_PORT is a port, unset means no listener', () => {
    expect(envToConfig({}).s3Port).toBeUndefined();
    expect(envToConfig({ STRATUS_S3_PORT: '9000' }).s3Port).toBe(9000);
    for (const bad of ['http', '70000', '-1'])
      expect(() => envToConfig({ STRATUS_S3_PORT: bad }), bad).toThrow(/STRATUS_S3_PORT/);
  });
});

describe('SigV4 canonical forms', () => {
  it('uriEncode: RFC 3986, slashes kept only in paths', () => {
    expect(uriEncode("a b/c~d*e'(f)!", true)).toBe('a%20b/c~d%2Ae%27%28f%29%21');
    expect(uriEncode('a/b')).toBe('a%2Fb');
    expect(uriEncode('é')).toBe('%C3%A9');
  });

  it('canonicalQuery: sorted by name then value, the signature left out', () => {
    expect(
      canonicalQuery(
        [
          ['b', '2'],
          ['a', 'x y'],
          ['X-Amz-Signature', 'zz'],
          ['a', '1'],
        ],
        'X-Amz-Signature',
      ),
    ).toBe('a=1&a=x%20y&b=2');
  });

  it('parseAmzDate: basic ISO 8601 only', () => {
    expect(parseAmzDate('20260301T120000Z')).toBe(Date.UTC(2026, 2, 1, 12));
    expect(parseAmzDate('2026-03-01T12:00:00Z')).toBeNaN();
  });
});

describe('virtual-host-style addressing', () => {
  it('parseS3Host: <bucket>.s3.localhost, <bucket>.localhost, <bucket>.<cluster>.<suffix>, <cluster>.<suffix>; else path style', async () => {
    const { parseS3Host, virtualHostSuffixes } = await import('./objects.clusters.js');
    const s = virtualHostSuffixes('https://s3.example.com');
    const clusters = ['us-east-1', 'eu-central-1'];
    expect(parseS3Host('photos.localhost:8080', s, clusters)).toEqual({ bucket: 'photos' });
    expect(parseS3Host('photos.s3.localhost:8080', s, clusters)).toEqual({ bucket: 'photos' });
    expect(parseS3Host('my.dotted.bucket.s3.example.com', s, clusters)).toEqual({
      bucket: 'my.dotted.bucket',
    });
    expect(parseS3Host('Photos.LOCALHOST', s, clusters)).toEqual({ bucket: 'photos' });
    expect(parseS3Host('us-east-1.localhost', s, clusters)).toEqual({ cluster: 'us-east-1' });
    expect(parseS3Host('b1.eu-central-1.s3.localhost', s, clusters)).toEqual({
      bucket: 'b1',
      cluster: 'eu-central-1',
    });
    expect(parseS3Host('localhost:8080', s, clusters)).toEqual({});
    expect(parseS3Host('s3.localhost:8080', s, clusters)).toEqual({});
    expect(parseS3Host('127.0.0.1:8080', s, clusters)).toEqual({});
    expect(parseS3Host('s3.example.com', s, clusters)).toEqual({});
    expect(parseS3Host('photos.other.net', s, clusters)).toEqual({});
    expect(parseS3Host(undefined, s, clusters)).toEqual({});
  });

  it('bucketHostname: path style by default, <bucket>.<domain> with virtual hosts', async () => {
    const { bucketHostname } = await import('./objects.clusters.js');
    expect(bucketHostname('http://localhost:8080', 'us-east-1', 'b')).toBe(
      'localhost:8080/_stratus/s3/us-east-1/b',
    );
    expect(bucketHostname('http://localhost:8080', 'us-east-1', 'b', true)).toBe(
      'b.localhost:8080/_stratus/s3/us-east-1',
    );
    expect(() => envToConfig({ STRATUS_S3_VIRTUAL_HOSTS: 'maybe' })).toThrow(
      /STRATUS_S3_VIRTUAL_HOSTS/,
    );
  });
});
