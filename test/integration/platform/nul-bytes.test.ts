import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

/** Found by the fuzzer (test/fuzz): PostgreSQL refuses NUL in text, which used to end in a 500. */
describe('NUL characters in input', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('createTag: a NUL in a body field is a 400 naming the field, and nothing is created', async () => {
    const r = await t.post('/v4/tags', { label: 'ab\u0000c' });
    expect(r.status, r.text).toBe(400);
    expect(r.body).toEqual({
      errors: [{ field: 'label', reason: 'Must not contain NUL characters' }],
    });
    expect((await t.get('/v4/tags')).body.data).toEqual([]);
  });

  it('allocateIP, createImage, shareIPv4s: a NUL deeper in the body names its path', async () => {
    const cases: [string, unknown, string][] = [
      ['/v4/networking/ips', { type: 'ipv4', region: 'us-\u0000east', public: true }, 'region'],
      ['/v4/images', { disk_id: 1, label: 'x\u0000' }, 'label'],
      ['/v4/networking/ipv4/share', { compute_id: 1, ips: ['1.2.3.4', '\u0000'] }, 'ips.1'],
    ];
    for (const [url, body, field] of cases) {
      const r = await t.post(url, body);
      expect(r.status, `${url}: ${r.text}`).toBe(400);
      expect(r.body.errors[0].field, url).toBe(field);
    }
  });

  it('resetClientSecret, updateBucketAccess: a NUL in a path parameter names no resource (404)', async () => {
    const a = await t.post('/v4/account/oauth-clients/%00/reset-secret');
    expect(a.status, a.text).toBe(404);
    const b = await t.put('/v4/object-storage/buckets/%00/b/access', { acl: 'private' });
    expect(b.status, b.text).toBe(404);
    expect(b.body).toEqual({ errors: [{ reason: 'Not found' }] });
  });

  it('getComputeInstances: a NUL in a query parameter or in an X-Filter value is a 400', async () => {
    const q = await t.get('/v4/compute/instances?page=1&x=%00');
    expect(q.status, q.text).toBe(400);
    expect(q.body.errors[0].field).toBe('x');
    const f = await t.get('/v4/compute/instances', { filter: { label: 'a\u0000' } });
    expect(f.status, f.text).toBe(400);
    expect(f.body).toEqual({
      errors: [{ reason: 'X-Filter must not contain NUL characters', field: 'X-Filter' }],
    });
  });
});
