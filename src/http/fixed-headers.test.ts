import { createServer, OutgoingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { responseHead } from '../../test/helpers/wire.js';
import { fixedHeadersResponse } from './fixed-headers.js';

const FIXED = {
  'access-control-allow-origin': '*',
  'cache-control': 'max-age=0, no-cache, no-store',
  vary: 'Authorization, X-Filter',
  'x-spec-version': '4.174.0',
};

type Handler = (res: ServerResponse) => void;

/** The bytes of one answer's head (status line and headers), Date removed, from a real socket. */
async function rawHead(handler: Handler, responseClass?: typeof ServerResponse): Promise<string> {
  const server = createServer(responseClass ? { ServerResponse: responseClass } : {}, (_q, res) =>
    handler(res),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const { port } = server.address() as AddressInfo;
    const head = await responseHead(port, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    return head.replace(/\r\nDate: [^\r]*/, '');
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}

/** The same answer through Node's ServerResponse and through the fixed-headers class. */
async function both(handler: Handler): Promise<[string, string]> {
  return [await rawHead(handler), await rawHead(handler, fixedHeadersResponse(FIXED))];
}

const body = '{}';
const sizes = { 'content-type': 'application/json', 'content-length': String(body.length) };

afterEach(() => {
  vi.restoreAllMocks();
});

describe('fixedHeadersResponse', () => {
  it('writeHead: the fixed headers first, then the others: the same bytes in the same order as Node writes', async () => {
    const [plain, fixed] = await both((res) => {
      res.writeHead(200, { ...FIXED, 'x-request-id': 'req-1', ...sizes }).end(body);
    });
    expect(fixed).toBe(plain);
    expect(fixed).toContain('\r\naccess-control-allow-origin: *\r\ncache-control: max-age=0');
    expect(fixed).toContain('x-spec-version: 4.174.0\r\nx-request-id: req-1\r\n');
  });

  it('writeHead: the fixed lines are written ready-made; only the other headers reach Node', async () => {
    const store = vi.spyOn(
      OutgoingMessage.prototype as unknown as { _storeHeader: (l: string, h: unknown) => void },
      '_storeHeader',
    );
    await rawHead((res) => {
      res.writeHead(200, { ...FIXED, 'x-request-id': 'req-1', ...sizes }).end(body);
    }, fixedHeadersResponse(FIXED));
    const [firstLine, rest] = store.mock.calls[0] as [string, unknown[]];
    expect(firstLine).toBe(
      `HTTP/1.1 200 OK\r\n${Object.entries(FIXED)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('')}`,
    );
    expect(rest).toEqual(['x-request-id', 'req-1', ...Object.entries(sizes).flat()]);
  });

  it('writeHead: a fixed header given another value ends the ready-made run there, in order', async () => {
    const [plain, fixed] = await both((res) => {
      res
        .writeHead(200, {
          ...FIXED,
          'cache-control': 'no-store',
          'x-request-id': 'req-2',
          ...sizes,
        })
        .end(body);
    });
    expect(fixed).toBe(plain);
    expect(fixed).toContain('cache-control: no-store\r\nvary: Authorization, X-Filter\r\n');
    expect(fixed).not.toContain('max-age=0');
  });

  it('writeHead: a fixed header after another header keeps its place', async () => {
    const [plain, fixed] = await both((res) => {
      res.writeHead(200, { 'x-first': '1', ...FIXED, ...sizes }).end(body);
    });
    expect(fixed).toBe(plain);
    expect(fixed.indexOf('x-first')).toBeLessThan(fixed.indexOf('access-control-allow-origin'));
  });

  it('writeHead: only some fixed headers, or none, and list values, as Node writes them', async () => {
    for (const headers of [
      { vary: FIXED.vary, ...sizes },
      { ...sizes },
      { ...FIXED, 'set-cookie': ['a=1', 'b=2'], ...sizes },
      {},
    ]) {
      const [plain, fixed] = await both((res) => {
        res.writeHead(200, headers).end(body);
      });
      expect(fixed, JSON.stringify(headers)).toBe(plain);
    }
  });

  it('setHeader: headers in Node own map are left to Node, with any given to writeHead', async () => {
    const [plain, fixed] = await both((res) => {
      for (const [k, v] of Object.entries(FIXED)) res.setHeader(k, v);
      res.writeHead(200, { 'x-late': 'yes', ...sizes }).end(body);
    });
    expect(fixed).toBe(plain);
    const [plainImplicit, fixedImplicit] = await both((res) => {
      res.setHeader('vary', FIXED.vary);
      res.statusCode = 204;
      res.end();
    });
    expect(fixedImplicit).toBe(plainImplicit);
  });

  it('writeHead: a header value Node refuses is still refused', async () => {
    const [plain, fixed] = await both((res) => {
      try {
        res.writeHead(200, { ...FIXED, 'x-bad': 'a\nb', ...sizes });
        res.end(body);
      } catch (err) {
        res.writeHead(500, { 'x-error': (err as { code?: string }).code ?? 'none' }).end();
      }
    });
    expect(fixed).toBe(plain);
    expect(fixed).toContain('x-error: ERR_INVALID_CHAR');
  });

  it('fixedHeadersResponse: refuses names Node manages, names not in lower case and invalid values', () => {
    expect(() => fixedHeadersResponse({ 'content-length': '1' })).toThrow(/content-length/);
    expect(() => fixedHeadersResponse({ Vary: 'x' })).toThrow(/Vary/);
    expect(() => fixedHeadersResponse({ vary: 'a\r\nb' })).toThrow();
    expect(() => fixedHeadersResponse({ 'bad name': 'x' })).toThrow();
  });
});
