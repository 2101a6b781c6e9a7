import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

/** Found by the fuzzer (test/fuzz): ids past PostgreSQL's `integer` used to end in a 500. */
describe('integers past the integer range in bodies', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('createImage, shareIPv4s, createTag: an id beyond 2147483647 is a 400 naming the field', async () => {
    const cases: [string, unknown, string][] = [
      ['/v4/images', { disk_id: 2147483648 }, 'disk_id'],
      ['/v4/networking/ipv4/share', { compute_id: 9007199254740991, ips: [] }, 'compute_id'],
      ['/v4/tags', { label: 'abc', volumes: [1, 9007199254740991] }, 'volumes.1'],
      ['/v4/volumes', { label: 'v', region: 'us-east', compute_id: -2147483649 }, 'compute_id'],
    ];
    for (const [url, body, field] of cases) {
      const r = await t.post(url, body);
      expect(r.status, `${url}: ${r.text}`).toBe(400);
      expect(r.body.errors[0].field, url).toBe(field);
      expect(r.body.errors[0].reason, url).toMatch(/must be between -2147483648 and 2147483647$/);
    }
    expect((await t.get('/v4/tags')).body.data).toEqual([]);
    expect((await t.get('/v4/volumes')).body.data).toEqual([]);
  });

  it('createVolume: a bounded integer keeps its own bound and message', async () => {
    const r = await t.post('/v4/volumes', { label: 'v', region: 'us-east', size: 2 ** 40 });
    expect(r.status).toBe(400);
    expect(r.body.errors[0]).toEqual({
      field: 'size',
      reason: 'size must be between 10 and 10240',
    });
  });
});
