import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp, type StratusApp } from '../../../src/app.js';
import { type Config, envToConfig } from '../../../src/config/config.js';
import { type AppContext, createContext } from '../../../src/context.js';
import { FakeClock } from '../../../src/lib/clock.js';
import { adminCommand } from '../../../src/modules/identity/admin-cli.js';
import { sharedDatabase } from '../../helpers/shared-database.js';

describe('stratus admin', () => {
  let config: Config;
  let ctx: AppContext;
  let app: StratusApp;
  let drop: () => Promise<void>;
  const clock = new FakeClock('2026-03-01T12:00:00Z');

  beforeEach(async () => {
    const db = await sharedDatabase('cli');
    drop = db.drop;
    config = envToConfig({ DATABASE_URL: db.url, STRATUS_RATE_LIMITS: 'off', LOG_LEVEL: 'silent' });
    // The server runs on the same database the whole time.
    ctx = await createContext(config, { clock });
    app = await buildApp(ctx);
  });
  afterEach(async () => {
    await app.close();
    await ctx.db.close();
    await drop();
  });

  /** Runs one admin command; answers its exit code, its JSON output and its error text. */
  async function admin(...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await adminCommand(config, argv, {
      out: (l) => out.push(l),
      err: (l) => err.push(l),
      clock,
    });
    return { code, json: out.length ? JSON.parse(out.join('\n')) : undefined, out, err };
  }

  const api = async (token: string, url: string) => {
    const r = await app.inject({
      method: 'GET',
      url,
      headers: { authorization: `Bearer ${token}` },
    });
    return { status: r.statusCode, body: JSON.parse(r.body) };
  };

  it('admin bootstrap: creates an account with an unrestricted user and a * token', async () => {
    const r = await admin('bootstrap', '--email', 'ops@example.com', '--username', 'ops');
    expect(r.code).toBe(0);
    expect(Object.keys(r.json).sort()).toEqual(['euuid', 'token', 'username']);
    expect(r.json.username).toBe('ops');
    expect(r.err).toEqual([]);
    // The running server accepts the token at once.
    const account = await api(r.json.token, '/v4/account');
    expect(account.status).toBe(200);
    expect(account.body).toMatchObject({ euuid: r.json.euuid, email: 'ops@example.com' });
    const profile = await api(r.json.token, '/v4/profile');
    expect(profile.body).toMatchObject({ username: 'ops', restricted: false });
    const tokens = await api(r.json.token, '/v4/profile/tokens');
    expect(tokens.body.data[0].scopes).toBe('*');
  });

  it('admin bootstrap: uses the given token', async () => {
    const token = 'my-own-token_0123456789';
    const r = await admin(
      'bootstrap',
      '--email',
      'a@example.com',
      '--username',
      'alpha',
      '--token',
      token,
    );
    expect(r.json.token).toBe(token);
    expect((await api(token, '/v4/profile')).body.username).toBe('alpha');
  });

  it('admin bootstrap: accounts made by the CLI are separate from each other', async () => {
    const a = await admin('bootstrap', '--email', 'a@example.com', '--username', 'alpha');
    const b = await admin('bootstrap', '--email', 'b@example.com', '--username', 'bravo');
    expect(a.json.euuid).not.toBe(b.json.euuid);
    const users = await api(a.json.token, '/v4/account/users');
    expect(users.body.data.map((u: { username: string }) => u.username)).toEqual(['alpha']);
    expect((await api(a.json.token, '/v4/account/users/bravo')).status).toBe(404);
  });

  it('admin bootstrap: refuses bad or missing input on stderr with a non-zero exit', async () => {
    const cases: string[][] = [
      ['bootstrap', '--username', 'ops'],
      ['bootstrap', '--email', 'ops@example.com'],
      ['bootstrap', '--email', 'nope', '--username', 'ops'],
      ['bootstrap', '--email', 'ops@example.com', '--username', 'o'],
      ['bootstrap', '--email', 'ops@example.com', '--username', 'ops', '--token', 'short'],
      ['bootstrap', '--email', 'ops@example.com', '--username', 'ops', '--colour', 'red'],
      ['bootstrap', 'extra'],
      ['launch'],
      [],
    ];
    for (const argv of cases) {
      const r = await admin(...argv);
      expect(r.code, argv.join(' ')).not.toBe(0);
      expect(r.out).toEqual([]);
      expect(r.err.join('')).not.toBe('');
    }
    const users = await admin('users');
    expect(users.json.accounts).toEqual([]);
  });

  it('admin bootstrap: a taken username or token is refused', async () => {
    const first = await admin(
      'bootstrap',
      '--email',
      'a@example.com',
      '--username',
      'alpha',
      '--token',
      'x'.repeat(20),
    );
    expect(first.code).toBe(0);
    const sameName = await admin('bootstrap', '--email', 'b@example.com', '--username', 'ALPHA');
    expect(sameName.code).not.toBe(0);
    expect(sameName.err.join('')).toMatch(/taken/);
    const sameToken = await admin(
      'bootstrap',
      '--email',
      'b@example.com',
      '--username',
      'bravo',
      '--token',
      'x'.repeat(20),
    );
    expect(sameToken.code).not.toBe(0);
    expect((await admin('users')).json.accounts).toHaveLength(1);
  });

  it('admin token: issues a token for a user of any account, with scopes, expiry and label', async () => {
    await admin('bootstrap', '--email', 'a@example.com', '--username', 'alpha');
    const b = await admin('bootstrap', '--email', 'b@example.com', '--username', 'bravo');
    const r = await admin(
      'token',
      '--username',
      'bravo',
      '--scopes',
      'account:read_only events:read_only',
      '--expiry',
      '2026-03-02T00:00:00',
      '--label',
      'ops-issued',
    );
    expect(r.code).toBe(0);
    expect(Object.keys(r.json)).toEqual(['token']);
    const tokens = await api(r.json.token, '/v4/profile/tokens');
    const issued = tokens.body.data.find((t: { label: string }) => t.label === 'ops-issued');
    expect(issued).toMatchObject({
      scopes: 'account:read_only events:read_only',
      expiry: '2026-03-02T00:00:00',
    });
    expect((await api(r.json.token, '/v4/account')).body.euuid).toBe(b.json.euuid);
    // Scopes are honoured…
    const write = await app.inject({
      method: 'PUT',
      url: '/v4/account',
      headers: { authorization: `Bearer ${r.json.token}`, 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(write.statusCode).toBe(401);
    // …and so is the expiry.
    clock.set('2026-03-02T00:00:01Z');
    expect((await api(r.json.token, '/v4/profile')).status).toBe(401);
    clock.set('2026-03-01T12:00:00Z');
  });

  it('admin token: defaults to scope * and never expires', async () => {
    await admin('bootstrap', '--email', 'a@example.com', '--username', 'alpha');
    const r = await admin('token', '--username', 'alpha');
    const tokens = await api(r.json.token, '/v4/profile/tokens');
    expect(tokens.body.data.at(-1)).toMatchObject({
      scopes: '*',
      expiry: null,
      label: 'admin-issued',
    });
  });

  it('admin token: refuses an unknown user, bad scopes, a past expiry and a bad label', async () => {
    await admin('bootstrap', '--email', 'a@example.com', '--username', 'alpha');
    const cases: string[][] = [
      ['token'],
      ['token', '--username', 'ghost'],
      ['token', '--username', 'alpha', '--scopes', 'computes:write'],
      ['token', '--username', 'alpha', '--expiry', '2026-03-01T11:00:00'],
      ['token', '--username', 'alpha', '--expiry', 'soon'],
      ['token', '--username', 'alpha', '--label', 'x'.repeat(101)],
    ];
    for (const argv of cases) {
      const r = await admin(...argv);
      expect(r.code, argv.join(' ')).not.toBe(0);
      expect(r.out).toEqual([]);
      expect(r.err.join('')).not.toBe('');
    }
  });

  it('admin users: lists accounts and their users, optionally of one account', async () => {
    const a = await admin('bootstrap', '--email', 'a@example.com', '--username', 'alpha');
    const b = await admin('bootstrap', '--email', 'b@example.com', '--username', 'bravo');
    const all = await admin('users');
    expect(all.json.accounts).toEqual([
      {
        euuid: a.json.euuid,
        email: 'a@example.com',
        users: [{ username: 'alpha', email: 'a@example.com', restricted: false }],
      },
      {
        euuid: b.json.euuid,
        email: 'b@example.com',
        users: [{ username: 'bravo', email: 'b@example.com', restricted: false }],
      },
    ]);
    const one = await admin('users', '--euuid', b.json.euuid);
    expect(one.json.accounts.map((x: { euuid: string }) => x.euuid)).toEqual([b.json.euuid]);
    const none = await admin('users', '--euuid', '00000000-0000-0000-0000-000000000000');
    expect(none.code).not.toBe(0);
    expect(none.err.join('')).toMatch(/No account/);
  });

  it('admin token: records token_create in the user account without a username', async () => {
    const a = await admin('bootstrap', '--email', 'a@example.com', '--username', 'alpha');
    await admin('token', '--username', 'alpha', '--label', 'from-ops');
    const events = await api(a.json.token, '/v4/account/events');
    expect(events.body.data[0]).toMatchObject({
      action: 'token_create',
      username: null,
      entity: { type: 'token', label: 'from-ops' },
    });
  });
});
