import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, isPretty } from '../../../src/logger.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

describe('request logs', () => {
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

  const requestLines = () =>
    lines.filter((l) => JSON.parse(l).subsystem === 'http' && 'status' in JSON.parse(l));

  it('request log: one line per request with id, method, path, operation, status, duration and account; reqId once', async () => {
    lines.length = 0;
    const euuid = (await t.get('/v4/account')).body.euuid as string;
    await t.get('/v4/volumes?page=1', { headers: { 'x-request-id': 'abc-123' } });
    await t.get('/v4/nowhere', { token: null });
    const got = requestLines();
    expect(got).toHaveLength(3);
    // The request id appears once per line (the child logger's binding, not a second copy).
    for (const l of got) expect(l.match(/"reqId"/g)).toHaveLength(1);
    const [, vols, missing] = got.map((l) => JSON.parse(l));
    expect(vols).toMatchObject({
      level: 30,
      reqId: 'abc-123',
      method: 'GET',
      path: '/v4/volumes',
      operation: 'getVolumes',
      status: 200,
      account: euuid,
      msg: 'GET /v4/volumes 200',
    });
    expect(typeof vols.ms).toBe('number');
    expect(missing).toMatchObject({
      method: 'GET',
      path: '/v4/nowhere',
      status: 404,
      account: null,
    });
    // Tokens never reach the log.
    expect(lines.join('\n')).not.toContain(t.admin.token);
  });

  it('request log: a path whose segment is a credential is logged by its route pattern', async () => {
    lines.length = 0;
    const secret = 'f'.repeat(64);
    await t.request('PUT', `/_stratus/image-uploads/${secret}`, { token: null, body: 'x' });
    const [line] = requestLines().map((l) => JSON.parse(l));
    expect(line.path).toBe('/_stratus/image-uploads/:token');
    expect(lines.join('\n')).not.toContain(secret);
  });

  it('logger: pino-pretty lines on a terminal (LOG_FORMAT=auto), JSON otherwise', () => {
    expect(isPretty('auto', true)).toBe(true);
    expect(isPretty('auto', false)).toBe(false);
    expect(isPretty('json', true)).toBe(false);
    expect(isPretty('pretty', false)).toBe(true);
    const out: string[] = [];
    const sink = new PassThrough();
    sink.on('data', (c: Buffer) => out.push(c.toString()));
    createLogger('info', 'pretty', sink).info({ method: 'GET' }, 'GET /v4/profile 200');
    const text = out.join('');
    expect(text).toContain('GET /v4/profile 200');
    expect(text).toMatch(/INFO/);
    expect(() => JSON.parse(text)).toThrow();
  });
});
