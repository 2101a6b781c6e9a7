import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { DIALECT } from '../helpers/build-test-app.js';
import { createDatabase, dropDatabase } from '../helpers/pg-server.js';
import { type Proc, start } from '../scale/processes.js';
import { failure, resolver } from '../integration/domains/fixtures.js';

const TOKEN = 'dns-cli-test-token-0123456789';

async function freshStore(): Promise<{ env: Record<string, string>; drop: () => Promise<void> }> {
  if (DIALECT === 'postgres') {
    const admin = inject('pgAdminUrl');
    const name = `dns_${randomBytes(6).toString('hex')}`;
    const url = await createDatabase(admin, name);
    return { env: { DATABASE_URL: url }, drop: () => dropDatabase(admin, name) };
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'stratus-dns-'));
  return { env: { STRATUS_DATA_DIR: dir }, drop: () => rm(dir, { recursive: true, force: true }) };
}

describe('stratus dns', () => {
  const procs: Proc[] = [];
  const drops: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const p of procs) await p.stop();
    for (const d of drops) await d();
  });

  it('stratus dns: a DNS-only process answers what another process changes through the API, at the next question', async () => {
    const store = await freshStore();
    drops.push(store.drop);
    const api = await start(
      ['serve'],
      { ...store.env, STRATUS_ADMIN_TOKEN: TOKEN },
      /listening on http/,
    );
    procs.push(api);
    const dns = await start(
      ['dns'],
      { ...store.env, STRATUS_DNS_HOST: '127.0.0.1', STRATUS_DNS_PORT: '0' },
      /DNS server is answering on/,
    );
    procs.push(dns);
    const port = Number(/answering on 127\.0\.0\.1:(\d+)/.exec(dns.stdout())?.[1]);
    expect(port).toBeGreaterThan(0);
    const call = async (method: string, url: string, body?: unknown) => {
      const res = await fetch(`${api.base}${url}`, {
        method,
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const d = await call('POST', '/v4/domains', {
      domain: 'cli.test',
      type: 'master',
      soa_email: 'admin@cli.test',
    });
    expect(d.status, JSON.stringify(d.body)).toBe(200);
    const r = resolver(port);
    expect(await failure(r.resolve4('www.cli.test'))).toBe('ENOTFOUND');
    const rec = await call('POST', `/v4/domains/${d.body.id}/records`, {
      type: 'A',
      name: 'www',
      target: '192.0.2.80',
    });
    expect(rec.status).toBe(200);
    expect(await r.resolve4('www.cli.test')).toEqual(['192.0.2.80']);
    await call('DELETE', `/v4/domains/${d.body.id}/records/${rec.body.id}`);
    expect(await failure(r.resolve4('www.cli.test'))).toBe('ENOTFOUND');
    expect(await dns.stop()).toBe(0);
  }, 120_000);

  it('stratus dns: refuses to start without STRATUS_DNS_PORT', async () => {
    const store = await freshStore();
    drops.push(store.drop);
    await expect(start(['dns'], store.env, /answering/, 90_000)).rejects.toThrow(
      /STRATUS_DNS_PORT/,
    );
  }, 120_000);
});
