import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/logger.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { VARYING_HEADERS as VARYING } from '../../helpers/wire.js';
const stable = (h: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(h).filter(([k]) => !VARYING.has(k)));

/**
 * `HEAD` is answered for every `GET` (docs/fidelity.md) without a HEAD route per GET
 * (src/http/head-routes.ts): the GET's status and headers, its Content-Length, no body.
 */
describe('HEAD of GET routes', () => {
  let t: TestApp;
  const lines: string[] = [];
  beforeAll(async () => {
    const sink = new PassThrough();
    sink.on('data', (c: Buffer) => {
      for (const l of c.toString().split('\n')) if (l.trim() !== '') lines.push(l);
    });
    t = await buildTestApp({ log: createLogger('info', 'json', sink) });
  });
  afterAll(async () => {
    await t.close();
  });

  it('getRegions: HEAD has the GET status, headers and Content-Length, and no body', async () => {
    for (const url of ['/v4/regions', '/v4beta/regions', '/v4/regions/']) {
      const get = await t.get(url, { token: null });
      const head = await t.request('HEAD', url, { token: null });
      expect(head.status, url).toBe(200);
      expect(head.text, url).toBe('');
      expect(head.headers['content-length'], url).toBe(String(Buffer.byteLength(get.text)));
      expect(stable(head.headers), url).toEqual(stable(get.headers));
    }
  });

  it('getProfile: HEAD is authenticated as the GET is (401 without a token, 200 with one)', async () => {
    const anonymous = await t.request('HEAD', '/v4/profile', { token: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.text).toBe('');
    const get = await t.get('/v4/profile');
    const head = await t.request('HEAD', '/v4/profile');
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers['content-length']).toBe(String(Buffer.byteLength(get.text)));
    expect(head.headers['x-oauth-scopes']).toBe(get.headers['x-oauth-scopes']);
  });

  it('any path: HEAD of an unknown path is 404, of a path without GET 405 naming its methods', async () => {
    const missing = await t.request('HEAD', '/v4/nowhere');
    expect(missing.status).toBe(404);
    const postOnly = await t.request('HEAD', '/v4/account/events/1/seen');
    expect(postOnly.status).toBe(405);
    expect(postOnly.headers.allow).toBe('POST');
  });

  it('request log: a HEAD is logged and handled as a HEAD, with the GET route operation', async () => {
    lines.length = 0;
    await t.request('HEAD', '/v4/regions', { token: null });
    const logged = lines
      .map((l) => JSON.parse(l))
      .filter((l) => l.subsystem === 'http' && 'status' in l);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({
      method: 'HEAD',
      path: '/v4/regions',
      operation: 'getRegions',
      status: 200,
    });
  });

  it('API reference: a route that declares HEAD (its static files) answers it itself', async () => {
    const get = await t.get('/_stratus/docs/static/index.css', { token: null });
    expect(get.status).toBe(200);
    const head = await t.request('HEAD', '/_stratus/docs/static/index.css', { token: null });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers['content-type']).toBe(get.headers['content-type']);
    expect(head.headers['content-length']).toBe(String(Buffer.byteLength(get.text)));
  });
});
