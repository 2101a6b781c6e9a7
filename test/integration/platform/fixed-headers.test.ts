import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { responseHead, VARYING_HEADERS as VARYING } from '../../helpers/wire.js';

/** One answer's header lines from a real socket, in order, as [name, value]. */
async function wireHeaders(port: number, path: string, token?: string): Promise<string[][]> {
  const auth = token ? `Authorization: Bearer ${token}\r\n` : '';
  const head = await responseHead(
    port,
    `GET ${path} HTTP/1.1\r\nHost: x\r\n${auth}Connection: close\r\n\r\n`,
  );
  return head
    .split('\r\n')
    .slice(1)
    .map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 2)]);
}

/**
 * The headers every answer carries are written as pre-validated lines on the server's sockets
 * (src/http/fixed-headers.ts); `inject` does not use that response class, so it is the reference.
 */
describe('the headers of every answer, on a real socket', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await buildTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await t.close();
  });

  it('getProfile, getRegions, a 404 and the sign-in page: each header once, the same as inject', async () => {
    for (const [path, token] of [
      ['/v4/profile', t.admin.token],
      ['/v4/regions', undefined],
      ['/v4/nothing-here', undefined],
      ['/oauth/authorize', undefined],
    ] as const) {
      const wire = await wireHeaders(port, path, token);
      const names = wire.map(([n]) => n);
      expect(new Set(names).size, `${path}: ${names.join(', ')}`).toBe(names.length);
      const injected = await t.get(path, { token: token ?? null });
      const expected = Object.fromEntries(
        Object.entries(injected.headers)
          .filter(([k]) => !VARYING.has(k) && k !== 'connection' && k !== 'keep-alive')
          .map(([k, v]) => [k, String(v)]),
      );
      const got = Object.fromEntries(
        wire.filter(([k]) => !VARYING.has(k as string) && k !== 'connection' && k !== 'keep-alive'),
      );
      expect(got, path).toEqual(expected);
      expect(names.slice(0, 3), path).toEqual([
        'access-control-allow-origin',
        'access-control-allow-credentials',
        'access-control-allow-headers',
      ]);
    }
  });

  it('getAuthorize: a route that sets its own cache-control sends only its own', async () => {
    const wire = await wireHeaders(port, '/oauth/authorize');
    expect(wire.filter(([n]) => n === 'cache-control')).toEqual([['cache-control', 'no-store']]);
  });
});
