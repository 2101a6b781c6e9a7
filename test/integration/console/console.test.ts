import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { op, operatorToken, secondAccount } from '../controls/helpers.js';

/** A console build of the test: an index page and one hashed asset with its compressed twins. */
function fakeBuild(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'stratus-console-'));
  mkdirSync(path.join(dir, 'assets'));
  writeFileSync(
    path.join(dir, 'index.html'),
    '<!doctype html><title>console</title><div id="root"></div>',
  );
  const js = 'console.log("hello from the console");'.repeat(20);
  writeFileSync(path.join(dir, 'assets', 'index-AbC123.js'), js);
  writeFileSync(path.join(dir, 'assets', 'index-AbC123.js.gz'), gzipSync(js));
  writeFileSync(path.join(dir, 'assets', 'index-AbC123.js.br'), brotliCompressSync(js));
  return dir;
}

let t: TestApp;
afterEach(async () => {
  await t?.close();
});

describe('web console files', () => {
  it('console page: / and every console route serve the page, never cached', async () => {
    t = await buildTestApp({ env: { STRATUS_CONSOLE_DIR: fakeBuild() } });
    for (const url of [
      '/',
      '/console',
      '/console/instances/12',
      '/console/object-storage/a/b',
      '/console/placement-groups/3',
      '/console/reserved-ips',
    ]) {
      const r = await t.get(url, { token: null });
      expect(r.status, url).toBe(200);
      expect(r.headers['content-type']).toMatch(/^text\/html/);
      expect(r.headers['cache-control']).toBe('no-cache');
      expect(String(r.headers['content-security-policy'])).toContain("script-src 'self'");
      expect(r.text).toContain('<div id="root">');
    }
  });

  it('console assets: hashed files are immutable and sent compressed when the browser takes it', async () => {
    t = await buildTestApp({ env: { STRATUS_CONSOLE_DIR: fakeBuild() } });
    const url = '/console/assets/index-AbC123.js';
    const br = await t.get(url, { token: null, headers: { 'accept-encoding': 'br, gzip' } });
    expect(br.status).toBe(200);
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(br.headers['content-encoding']).toBe('br');
    const gz = await t.get(url, { token: null, headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    const plain = await t.get(url, { token: null, headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.text).toContain('hello from the console');
  });

  it('console assets: an unknown asset is the API 404, not the page', async () => {
    t = await buildTestApp({ env: { STRATUS_CONSOLE_DIR: fakeBuild() } });
    const r = await t.get('/console/assets/nope-123.js', { token: null });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ errors: [{ reason: 'Not found' }] });
  });

  it('console page: without a build, / says how to make one (503), and the API still answers', async () => {
    t = await buildTestApp({
      env: { STRATUS_CONSOLE_DIR: mkdtempSync(path.join(tmpdir(), 'none-')) },
    });
    const r = await t.get('/', { token: null });
    expect(r.status).toBe(503);
    expect(r.text).toContain('npm run build');
    expect((await t.get('/v4/regions', { token: null })).status).toBe(200);
    expect((await t.get('/_stratus/info', { token: null })).body.console.built).toBe(false);
  });
});

describe('server facts and operator views', () => {
  it('getServerInfo: open; version, engine, timing, workers and the base URLs by the request host', async () => {
    t = await buildTestApp({ env: { STRATUS_CONSOLE_DIR: fakeBuild() } });
    const r = await t.get('/_stratus/info', { token: null, headers: { host: 'cloud.test:9000' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      name: 'Stratus',
      engine: t.ctx.db.dialect,
      timing: 'fast',
      workers: { in_process: true, busy: [] },
      urls: {
        api: 'http://cloud.test:9000/v4',
        s3: 'http://cloud.test:9000/_stratus/s3',
        login: 'http://cloud.test:9000/oauth/authorize',
      },
      console: {
        client_id: 'stratus-console',
        redirect_uri: 'http://cloud.test:9000/console/callback',
        built: true,
      },
    });
  });

  it('getOperatorAccounts: needs the operator token; every account with its users', async () => {
    t = await buildTestApp();
    expect((await t.get('/_stratus/accounts')).status).toBe(401);
    const other = await secondAccount(t);
    const o = op(t, await operatorToken(t));
    const r = await o.get('/_stratus/accounts');
    expect(r.status).toBe(200);
    expect(r.body.results).toBe(2);
    const euuids = r.body.data.map((a: { euuid: string }) => a.euuid);
    expect(euuids).toContain(other.euuid);
    const mine = r.body.data.find((a: { email: string }) => a.email === 'owner@example.com');
    expect(mine.users).toEqual([
      { username: 'owner', email: expect.any(String), restricted: false },
    ]);
    expect((await o.get('/_stratus/accounts?page_size=5')).status).toBe(400);
  });

  it('getOperatorJobs: counts by status, the runner, and the jobs newest first, filtered by status', async () => {
    t = await buildTestApp();
    expect((await t.get('/_stratus/jobs')).status).toBe(401);
    await t.post('/v4/volumes', { label: 'v1', region: 'us-east', size: 20 });
    const o = op(t, await operatorToken(t));
    const queued = await o.get('/_stratus/jobs?status=queued');
    expect(queued.status).toBe(200);
    expect(queued.body.counts.queued).toBeGreaterThan(0);
    expect(queued.body.data.every((j: { status: string }) => j.status === 'queued')).toBe(true);
    expect(queued.body.runner).toMatchObject({
      in_process: true,
      worker_id: t.ctx.runner.workerId,
    });
    expect(queued.body.data.map((j: { name: string }) => j.name)).toContain('volumes.work');
    await t.settle();
    const after = await o.get('/_stratus/jobs?status=queued');
    expect(after.body.data.map((j: { name: string }) => j.name)).not.toContain('volumes.work');
    expect(after.body.runner.steps).toBeGreaterThan(0);
    expect((await o.get('/_stratus/jobs?status=lost')).status).toBe(400);
  });
});
