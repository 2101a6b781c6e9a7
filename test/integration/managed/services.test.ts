import { createServer, type Server } from 'node:http';
import {
  type AddressInfo,
  createServer as createTcpServer,
  type Server as TcpServer,
} from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

const fieldsOf = (r: { body: { errors: { field?: string }[] } }) =>
  r.body.errors.map((e) => e.field ?? null).sort();

/** A local HTTP server whose answer the test changes. */
async function httpTarget() {
  const state = { status: 200, body: 'all systems go' };
  const server: Server = createServer((_req, res) => {
    res.writeHead(state.status, { 'content-type': 'text/plain' });
    res.end(state.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    state,
    url: `http://localhost:${port}/health`,
    close: () => new Promise((r) => server.close(r)),
  };
}

async function tcpTarget(banner: string) {
  const server: TcpServer = createTcpServer((s) => s.end(banner));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { port, close: () => new Promise((r) => server.close(r)) };
}

describe('managed services and their checks', () => {
  let t: TestApp;
  const closers: (() => Promise<unknown>)[] = [];
  beforeEach(async () => {
    t = await buildTestApp();
    expect((await t.post('/v4/account/settings/managed-enable')).status).toBe(200);
  });
  afterEach(async () => {
    await t.close();
    for (const c of closers.splice(0)) await c();
  });

  /** Runs the checks that are due, after moving the clock past the next one. */
  const check = async () => {
    t.clock.advance(5_000);
    await t.runDue();
  };
  const service = async (id: number) => (await t.get(`/v4/managed/services/${id}`)).body;

  it('createManagedService: pending, event managed_service_create; the address is checked by type', async () => {
    const r = await t.post('/v4/managed/services', {
      label: 'web',
      service_type: 'url',
      address: 'https://example.com/status?x=1#top',
      timeout: 10,
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      label: 'web',
      status: 'pending',
      address: 'https://example.com/status?x=1',
      body: null,
      consultation_group: '',
      notes: null,
      region: null,
      credentials: [],
    });
    const ev = await t.get('/v4/account/events', { filter: { action: 'managed_service_create' } });
    expect(ev.body.data[0].entity).toMatchObject({ type: 'managed_service', id: r.body.id });
    const bad = await t.post('/v4/managed/services', {
      label: 'x',
      service_type: 'tcp',
      address: 'no-port-here',
      timeout: 0,
      body: 'b'.repeat(101),
    });
    expect(fieldsOf(bad)).toEqual(['address', 'body', 'label', 'timeout']);
    const notUrl = await t.post('/v4/managed/services', {
      label: 'ftp',
      service_type: 'url',
      address: 'ftp://example.com',
      timeout: 5,
    });
    expect(fieldsOf(notUrl)).toEqual(['address']);
    const kind = await t.post('/v4/managed/services', {
      label: 'smtp',
      service_type: 'smtp',
      address: 'mail.example.com:25',
      timeout: 5,
    });
    expect(kind.status).toBe(400);
  });

  it('createManagedService: a private address needs its region; a public one may not have one; credentials must exist', async () => {
    const base = { label: 'db1', service_type: 'tcp', timeout: 5 };
    const r1 = await t.post('/v4/managed/services', { ...base, address: '192.168.1.5:5432' });
    expect(fieldsOf(r1)).toEqual(['region']);
    const r2 = await t.post('/v4/managed/services', {
      ...base,
      address: '192.168.1.5:5432',
      region: 'us-east',
    });
    expect(r2.status).toBe(200);
    const r3 = await t.post('/v4/managed/services', {
      ...base,
      address: 'db.example.com:5432',
      region: 'us-east',
    });
    expect(fieldsOf(r3)).toEqual(['region']);
    const r4 = await t.post('/v4/managed/services', {
      ...base,
      address: 'db.example.com:5432',
      credentials: [9999],
    });
    expect(fieldsOf(r4)).toEqual(['credentials[0]']);
    const cred = (await t.post('/v4/managed/credentials', { label: 'pg', password: 'pw' })).body;
    const r5 = await t.post('/v4/managed/services', {
      ...base,
      address: 'db.example.com:5432',
      credentials: [cred.id],
    });
    expect(r5.body.credentials).toEqual([cred.id]);
    // Revoking the credential takes it off the service.
    expect((await t.post(`/v4/managed/credentials/${cred.id}/revoke`)).status).toBe(200);
    expect((await service(r5.body.id)).credentials).toEqual([]);
  });

  it('managed checks: an answering URL is ok; a failing one opens an issue with its ticket; recovery resolves it', async () => {
    const target = await httpTarget();
    closers.push(target.close);
    const r = await t.post('/v4/managed/services', {
      label: 'api',
      service_type: 'url',
      address: target.url,
      timeout: 5,
      body: 'systems go',
    });
    await t.runDue();
    expect((await service(r.body.id)).status).toBe('ok');
    expect((await t.get('/v4/managed/issues')).body.results).toBe(0);

    target.state.body = 'maintenance';
    await check();
    expect((await service(r.body.id)).status).toBe('problem');
    const issues = (await t.get('/v4/managed/issues')).body;
    expect(issues.results).toBe(1);
    const issue = issues.data[0];
    expect(issue).toMatchObject({ services: [r.body.id], entity: { type: 'ticket' } });
    expect(issue.entity.url).toBe(`/v4/support/tickets/${issue.entity.id}`);
    const tk = (await t.get(`/v4/support/tickets/${issue.entity.id}`)).body;
    expect(tk).toMatchObject({ opened_by: 'Compute', status: 'new', closable: false });
    expect(tk.description).toContain('systems go');
    expect((await t.get(`/v4/managed/issues/${issue.id}`)).body).toEqual(issue);

    // Still failing: no second issue.
    target.state.status = 503;
    await check();
    expect((await t.get('/v4/managed/issues')).body.results).toBe(1);

    target.state.status = 200;
    target.state.body = 'all systems go';
    await check();
    expect((await service(r.body.id)).status).toBe('ok');
    const closed = (await t.get(`/v4/support/tickets/${issue.entity.id}`)).body;
    expect(closed.status).toBe('closed');
    const replies = (await t.get(`/v4/support/tickets/${issue.entity.id}/replies`)).body;
    expect(replies.data[0]).toMatchObject({ from_compute: true });
  });

  it('managed checks: TCP services connect, and look for the expected banner', async () => {
    const target = await tcpTarget('SSH-2.0-OpenSSH_9.2\r\n');
    closers.push(target.close);
    const up = await t.post('/v4/managed/services', {
      label: 'ssh',
      service_type: 'tcp',
      address: `localhost:${target.port}`,
      timeout: 5,
      body: 'OpenSSH',
    });
    const wrong = await t.post('/v4/managed/services', {
      label: 'ssh2',
      service_type: 'tcp',
      address: `localhost:${target.port}`,
      timeout: 2,
      body: 'Dropbear',
    });
    const closedPort = await tcpTarget('');
    await closedPort.close();
    const down = await t.post('/v4/managed/services', {
      label: 'gone',
      service_type: 'tcp',
      address: `localhost:${closedPort.port}`,
      timeout: 2,
    });
    await t.runDue();
    expect((await service(up.body.id)).status).toBe('ok');
    expect((await service(wrong.body.id)).status).toBe('problem');
    expect((await service(down.body.id)).status).toBe('problem');
    expect((await t.get('/v4/managed/issues')).body.results).toBe(2);
  });

  it('disableManagedService and enableManagedService: no checks while disabled; pending again when enabled', async () => {
    const target = await httpTarget();
    closers.push(target.close);
    const r = await t.post('/v4/managed/services', {
      label: 'api',
      service_type: 'url',
      address: target.url,
      timeout: 5,
    });
    await t.runDue();
    const d = await t.post(`/v4/managed/services/${r.body.id}/disable`);
    expect(d.body.status).toBe('disabled');
    target.state.status = 500;
    await check();
    expect((await service(r.body.id)).status).toBe('disabled');
    expect((await t.get('/v4/managed/issues')).body.results).toBe(0);
    const e = await t.post(`/v4/managed/services/${r.body.id}/enable`);
    expect(e.body.status).toBe('pending');
    await t.runDue();
    expect((await service(r.body.id)).status).toBe('problem');
  });

  it('updateManagedService: a new address is checked at once; deleteManagedService ends its checks', async () => {
    const target = await httpTarget();
    closers.push(target.close);
    const r = await t.post('/v4/managed/services', {
      label: 'api',
      service_type: 'url',
      address: `${target.url}x`,
      timeout: 5,
      body: 'nothing like this',
    });
    await t.runDue();
    expect((await service(r.body.id)).status).toBe('problem');
    const u = await t.put(`/v4/managed/services/${r.body.id}`, {
      body: null,
      notes: 'see runbook',
    });
    expect(u.body).toMatchObject({ status: 'pending', notes: 'see runbook', body: null });
    await t.runDue();
    expect((await service(r.body.id)).status).toBe('ok');
    expect((await t.del(`/v4/managed/services/${r.body.id}`)).status).toBe(200);
    const ev = await t.get('/v4/account/events', { filter: { action: 'managed_service_delete' } });
    expect(ev.body.results).toBe(1);
    await check();
    const jobs = await t.ctx.db.db
      .selectFrom('jobs')
      .selectAll()
      .where('name', '=', 'managed.check')
      .execute();
    expect(jobs).toEqual([]);
  });

  it('managed checks off (STRATUS_MANAGED_CHECKS=off): every check passes without a connection', async () => {
    const off = await buildTestApp({ env: { STRATUS_MANAGED_CHECKS: 'off' } });
    try {
      await off.post('/v4/account/settings/managed-enable');
      const r = await off.post('/v4/managed/services', {
        label: 'nowhere',
        service_type: 'tcp',
        address: 'localhost:1',
        timeout: 1,
      });
      await off.runDue();
      expect((await off.get(`/v4/managed/services/${r.body.id}`)).body.status).toBe('ok');
    } finally {
      await off.close();
    }
  });
});
