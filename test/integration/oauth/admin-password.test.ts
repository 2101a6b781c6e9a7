import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp, type StratusApp } from '../../../src/app.js';
import { type Config, envToConfig } from '../../../src/config/config.js';
import { type AppContext, createContext } from '../../../src/context.js';
import { FakeClock } from '../../../src/lib/clock.js';
import { adminCommand } from '../../../src/modules/identity/admin-cli.js';
import { verifyPassword } from '../../../src/modules/oauth/passwords.js';
import { sharedDatabase } from '../../helpers/shared-database.js';

describe('stratus admin password', () => {
  let config: Config;
  let ctx: AppContext;
  let app: StratusApp;
  let drop: () => Promise<void>;
  const clock = new FakeClock('2026-03-01T12:00:00Z');

  beforeEach(async () => {
    const db = await sharedDatabase('pw');
    drop = db.drop;
    config = envToConfig({ DATABASE_URL: db.url, STRATUS_RATE_LIMITS: 'off', LOG_LEVEL: 'silent' });
    ctx = await createContext(config, { clock });
    app = await buildApp(ctx);
  });
  afterEach(async () => {
    await app.close();
    await ctx.db.close();
    await drop();
  });

  async function admin(argv: string[], stdin = '') {
    const out: string[] = [];
    const err: string[] = [];
    const code = await adminCommand(config, argv, {
      out: (l) => out.push(l),
      err: (l) => err.push(l),
      clock,
      stdin: async () => stdin,
    });
    return { code, out, err };
  }

  const hashOf = async () =>
    (
      await ctx.db.db
        .selectFrom('user_credentials')
        .innerJoin('users', 'users.id', 'user_credentials.user_id')
        .select('password_hash')
        .where('users.username', '=', 'ops')
        .executeTakeFirstOrThrow()
    ).password_hash ?? '';

  it('admin password: sets the password from stdin (trailing newline dropped) as a scrypt hash', async () => {
    await admin(['bootstrap', '--email', 'ops@example.com', '--username', 'ops']);
    const r = await admin(['password', '--username', 'ops'], 'a long secret\n');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out[0] ?? '{}')).toEqual({ username: 'ops', password_set: true });
    expect(r.out.join('')).not.toContain('a long secret');
    const hash = await hashOf();
    expect(hash).toMatch(/^scrypt\$/);
    expect(await verifyPassword('a long secret', hash)).toBe(true);
    expect(await verifyPassword('a long secret\n', hash)).toBe(false);
  });

  it('admin password: takes --password too, and refuses short ones and unknown users', async () => {
    await admin(['bootstrap', '--email', 'ops@example.com', '--username', 'ops']);
    expect((await admin(['password', '--username', 'ops', '--password', 'another one'])).code).toBe(
      0,
    );
    expect(await verifyPassword('another one', await hashOf())).toBe(true);
    const short = await admin(['password', '--username', 'ops', '--password', 'short']);
    expect(short.code).toBe(2);
    expect(short.err[0]).toContain('8 to 128');
    const nobody = await admin(['password', '--username', 'nobody', '--password', 'long enough']);
    expect(nobody.code).toBe(2);
    expect(nobody.err[0]).toContain('No user named');
  });

  it('admin sms: prints the simulated SMS of phone verification, and the code verifies the number', async () => {
    const boot = await admin(['bootstrap', '--email', 'ops@example.com', '--username', 'ops']);
    const token = JSON.parse(boot.out[0] ?? '{}').token as string;
    const call = (method: 'POST' | 'GET' | 'DELETE', url: string, body?: object) =>
      app.inject({
        method,
        url,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        ...(body ? { payload: JSON.stringify(body) } : {}),
      });
    const sent = await call('POST', '/v4/profile/phone-number', {
      iso_code: 'us',
      phone_number: '(215) 555-0123',
    });
    expect(sent.statusCode).toBe(200);
    const r = await admin(['sms', '--username', 'ops']);
    const msg = JSON.parse(r.out[0] ?? '{}').messages[0];
    expect(msg.to).toBe('+12155550123');
    const code = /(\d{6})/.exec(msg.body)?.[1] ?? '';
    const wrong = code === '000000' ? '111111' : '000000';
    expect(
      (await call('POST', '/v4/profile/phone-number/verify', { otp_code: wrong })).statusCode,
    ).toBe(400);
    expect(
      (await call('POST', '/v4/profile/phone-number/verify', { otp_code: code })).statusCode,
    ).toBe(200);
    expect(JSON.parse((await call('GET', '/v4/profile')).body).verified_phone_number).toBe(
      '+12155550123',
    );
    // A code is good once.
    expect(
      (await call('POST', '/v4/profile/phone-number/verify', { otp_code: code })).statusCode,
    ).toBe(400);
    expect((await call('DELETE', '/v4/profile/phone-number')).statusCode).toBe(200);
    expect(JSON.parse((await call('GET', '/v4/profile')).body).verified_phone_number).toBeNull();
  });
});
