import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { totpCode } from '../../../src/modules/oauth/totp.js';
import {
  answerSecurityQuestions,
  authorizeQuery,
  type Client,
  createClient,
  givePassword,
  PASSWORD,
  signIn,
} from './fixtures.js';

describe('oauth sign-in, logins and two-factor authentication', () => {
  let t: TestApp;
  let c: Client;
  beforeEach(async () => {
    t = await buildTestApp();
    await givePassword(t, 'owner');
    c = await createClient(t);
  });
  afterEach(async () => {
    await t.close();
  });

  const logins = async (token?: string) =>
    (await t.get('/v4/account/logins', token === undefined ? {} : { token })).body;

  it('signIn: the password is stored as a scrypt hash, never in clear', async () => {
    const row = await t.ctx.db.db
      .selectFrom('user_credentials')
      .select('password_hash')
      .executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(row.password_hash).not.toContain(PASSWORD);
    const me = await t.get('/v4/account/users/owner');
    expect(me.body.password_created).toBe('2026-03-01T12:00:00');
  });

  it('signIn: a wrong password, an unknown user and a user without password are refused', async () => {
    const q = authorizeQuery(c);
    const wrong = await signIn(t, q, 'owner', 'not the password');
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).toContain('Invalid username or password');
    expect(wrong.body).not.toContain('name="ticket"');
    expect((await signIn(t, q, 'nobody')).statusCode).toBe(401);
    const u = await createTestUser(t, { restricted: false });
    expect((await signIn(t, q, u.username, '')).statusCode).toBe(401);
    expect((await signIn(t, q, 'OWNER')).statusCode).toBe(200);
  });

  it('getAccountLogins: every attempt is recorded with successful or failed', async () => {
    const q = authorizeQuery(c);
    await signIn(t, q, 'owner', 'bad password');
    await signIn(t, q);
    const page = await logins();
    expect(page.results).toBe(2);
    expect(page.data.map((l: { status: string }) => l.status)).toEqual(['failed', 'successful']);
    expect(page.data[0]).toMatchObject({
      username: 'owner',
      ip: '127.0.0.1',
      restricted: false,
      datetime: '2026-03-01T12:00:00',
    });
    const one = await t.get(`/v4/account/logins/${page.data[1].id}`);
    expect(one.body.status).toBe('successful');
    expect((await t.get('/v4/account/logins', { filter: { status: 'failed' } })).body.results).toBe(
      1,
    );
  });

  it('getAccountLogins: unrestricted users only; every user’s logins; getProfileLogins: one’s own', async () => {
    const u = await createTestUser(t, {
      restricted: true,
      global: { account_access: 'read_write' },
    });
    await givePassword(t, u.username);
    await signIn(t, authorizeQuery(c), u.username);
    await signIn(t, authorizeQuery(c));
    expect((await t.get('/v4/account/logins', { token: u.token })).status).toBe(403);
    expect((await logins()).results).toBe(2);
    const own = await t.get('/v4/profile/logins', { token: u.token });
    expect(own.body.results).toBe(1);
    expect(own.body.data[0]).toMatchObject({ username: u.username, restricted: true });
    const ownerLogin = (await logins()).data.find(
      (l: { username: string }) => l.username === 'owner',
    );
    expect((await t.get(`/v4/profile/logins/${ownerLogin.id}`, { token: u.token })).status).toBe(
      404,
    );
    expect((await t.get(`/v4/profile/logins/${ownerLogin.id}`)).status).toBe(200);
  });

  it('getAccountLogins: shows the last 90 days only', async () => {
    await signIn(t, authorizeQuery(c));
    t.clock.advance(91 * 24 * 3600 * 1000);
    expect((await logins()).results).toBe(0);
  });

  it('signIn: after 5 failures in 15 minutes the user is refused with 429, even with the right password', async () => {
    const q = authorizeQuery(c);
    for (let i = 0; i < 5; i++) expect((await signIn(t, q, 'owner', 'wrong')).statusCode).toBe(401);
    const locked = await signIn(t, q);
    expect(locked.statusCode).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    expect(locked.body).not.toContain('name="ticket"');
    t.clock.advance(15 * 60 * 1000 + 1000);
    expect((await signIn(t, q)).statusCode).toBe(200);
  });

  it('signIn: after 20 failures from one address, any user from it is refused', async () => {
    const q = authorizeQuery(c);
    for (let i = 0; i < 20; i++) await signIn(t, q, `ghost${i}`, 'wrong');
    expect((await signIn(t, q)).statusCode).toBe(429);
  });

  it('tfaEnable: confirm with a current code turns it on (scratch code, event tfa_enabled); sign-in then needs the code', async () => {
    await answerSecurityQuestions(t);
    const en = await t.post('/v4/profile/tfa-enable');
    expect(en.status).toBe(200);
    expect(en.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(en.body.expiry).toBe('2026-03-01T13:00:00');
    const bad = await t.post('/v4/profile/tfa-enable-confirm', {
      tfa_code: '000000' === totpCode(en.body.secret, t.clock.nowMs()) ? '111111' : '000000',
    });
    expect(bad.status).toBe(400);
    const ok = await t.post('/v4/profile/tfa-enable-confirm', {
      tfa_code: totpCode(en.body.secret, t.clock.nowMs()),
    });
    expect(ok.status).toBe(200);
    expect(ok.body.scratch).toMatch(/^[0-9a-f]{16}$/);
    expect((await t.get('/v4/profile')).body.two_factor_auth).toBe(true);
    // The TOTP secret is stored sealed (AES-256-GCM), never in clear.
    const stored = await t.ctx.db.db
      .selectFrom('user_credentials')
      .select(['tfa_secret', 'tfa_pending_secret'])
      .where('user_id', '=', t.admin.userId)
      .executeTakeFirstOrThrow();
    expect(stored.tfa_secret).toMatch(/^v1:/);
    expect(stored.tfa_secret).not.toContain(en.body.secret);
    expect(JSON.stringify(stored)).not.toContain(en.body.secret);
    const ev = await t.get('/v4/account/events');
    expect(ev.body.data[0]).toMatchObject({ action: 'tfa_enabled', entity: { type: 'profile' } });

    const q = authorizeQuery(c);
    expect((await signIn(t, q)).statusCode).toBe(401);
    t.clock.advance(30_000);
    const code = totpCode(en.body.secret, t.clock.nowMs());
    expect((await signIn(t, q, 'owner', PASSWORD, code)).statusCode).toBe(200);
    // The same code is good once.
    expect((await signIn(t, q, 'owner', PASSWORD, code)).statusCode).toBe(401);
    // The scratch code, once.
    expect((await signIn(t, q, 'owner', PASSWORD, ok.body.scratch)).statusCode).toBe(200);
    expect((await signIn(t, q, 'owner', PASSWORD, ok.body.scratch)).statusCode).toBe(401);
  });

  it('tfaConfirm: needs a pending secret that has not expired', async () => {
    await answerSecurityQuestions(t);
    expect((await t.post('/v4/profile/tfa-enable-confirm', { tfa_code: '123456' })).status).toBe(
      400,
    );
    const en = await t.post('/v4/profile/tfa-enable');
    t.clock.advance(3600 * 1000);
    const late = await t.post('/v4/profile/tfa-enable-confirm', {
      tfa_code: totpCode(en.body.secret, t.clock.nowMs()),
    });
    expect(late.status).toBe(400);
  });

  it('tfaDisable: turns it off (event tfa_disabled); sign-in no longer asks for a code', async () => {
    await answerSecurityQuestions(t);
    const en = await t.post('/v4/profile/tfa-enable');
    await t.post('/v4/profile/tfa-enable-confirm', {
      tfa_code: totpCode(en.body.secret, t.clock.nowMs()),
    });
    expect((await t.post('/v4/profile/tfa-enable')).status).toBe(400);
    expect((await t.post('/v4/profile/tfa-disable')).status).toBe(200);
    expect((await t.get('/v4/profile')).body.two_factor_auth).toBe(false);
    expect((await t.get('/v4/account/events')).body.data[0].action).toBe('tfa_disabled');
    expect((await signIn(t, authorizeQuery(c))).statusCode).toBe(200);
    expect((await t.post('/v4/profile/tfa-disable')).status).toBe(400);
  });

  it('signIn: two sign-ins racing with one TOTP code: only one passes', async () => {
    await answerSecurityQuestions(t);
    const en = await t.post('/v4/profile/tfa-enable');
    await t.post('/v4/profile/tfa-enable-confirm', {
      tfa_code: totpCode(en.body.secret, t.clock.nowMs()),
    });
    t.clock.advance(30_000);
    const code = totpCode(en.body.secret, t.clock.nowMs());
    const q = authorizeQuery(c);
    const both = await Promise.all([
      signIn(t, q, 'owner', PASSWORD, code),
      signIn(t, q, 'owner', PASSWORD, code),
    ]);
    expect(both.map((r) => r.statusCode).sort()).toEqual([200, 401]);
  });
});
