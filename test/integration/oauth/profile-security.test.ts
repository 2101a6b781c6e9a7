import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { totpCode } from '../../../src/modules/oauth/totp.js';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import {
  answerSecurityQuestions,
  authorizeQuery,
  type Client,
  createClient,
  form,
  givePassword,
  PASSWORD,
} from './fixtures.js';

describe('profile security: trusted devices and preferences', () => {
  let t: TestApp;
  let c: Client;
  let secret: string;
  beforeEach(async () => {
    t = await buildTestApp();
    await givePassword(t, 'owner');
    c = await createClient(t);
    await answerSecurityQuestions(t);
    secret = (await t.post('/v4/profile/tfa-enable')).body.secret;
    await t.post('/v4/profile/tfa-enable-confirm', { tfa_code: totpCode(secret, t.clock.nowMs()) });
    t.clock.advance(30_000);
  });
  afterEach(async () => {
    await t.close();
  });

  const signIn = (fields: Record<string, string>, cookie?: string) =>
    form(
      t,
      '/oauth/login',
      { ...authorizeQuery(c), username: 'owner', password: PASSWORD, ...fields },
      { 'user-agent': 'TestBrowser/1.0', ...(cookie ? { cookie } : {}) },
    );

  /** Signs in with a code and "trust this device"; answers the cookie pair. */
  async function trust(): Promise<string> {
    const r = await signIn({ tfa_code: totpCode(secret, t.clock.nowMs()), trust_device: 'on' });
    expect(r.statusCode).toBe(200);
    const set = String(r.headers['set-cookie']);
    expect(set).toContain('HttpOnly');
    expect(set).toContain('SameSite=Lax');
    return set.split(';')[0] ?? '';
  }

  it('signIn: a trusted device skips the two-factor code; getDevices lists it', async () => {
    const cookie = await trust();
    expect((await signIn({}, cookie)).statusCode).toBe(200);
    expect((await signIn({}, 'stratus_device=forged')).statusCode).toBe(401);
    const list = await t.get('/v4/profile/devices');
    expect(list.body.results).toBe(1);
    expect(list.body.data[0]).toMatchObject({
      user_agent: 'TestBrowser/1.0',
      last_remote_addr: '127.0.0.1',
      created: '2026-03-01T12:00:30',
      expiry: '2026-03-31T12:00:30',
    });
    const one = await t.get(`/v4/profile/devices/${list.body.data[0].id}`);
    expect(one.body.id).toBe(list.body.data[0].id);
  });

  it('revokeTrustedDevice: the device asks for the code again', async () => {
    const cookie = await trust();
    const id = (await t.get('/v4/profile/devices')).body.data[0].id;
    expect((await t.del(`/v4/profile/devices/${id}`)).status).toBe(200);
    expect((await signIn({}, cookie)).statusCode).toBe(401);
    expect((await t.get(`/v4/profile/devices/${id}`)).status).toBe(404);
  });

  it('getDevices: a device expires after 30 days; another user sees none of them', async () => {
    const cookie = await trust();
    const u = await createTestUser(t, { restricted: false });
    expect((await t.get('/v4/profile/devices', { token: u.token })).body.results).toBe(0);
    const id = (await t.get('/v4/profile/devices')).body.data[0].id;
    expect((await t.del(`/v4/profile/devices/${id}`, { token: u.token })).status).toBe(404);
    t.clock.advance(30 * 24 * 3600 * 1000);
    expect((await t.get('/v4/profile/devices')).body.results).toBe(0);
    expect((await signIn({}, cookie)).statusCode).toBe(401);
  });

  it('updateUserPreferences: any JSON object is kept as given, per user', async () => {
    expect((await t.get('/v4/profile/preferences')).body).toEqual({});
    const prefs = { theme: 'dark', sortKeys: { volumes: 'label' }, pinned: [1, 2], n: null };
    const put = await t.put('/v4/profile/preferences', prefs);
    expect(put.status).toBe(200);
    expect(put.body).toEqual(prefs);
    expect((await t.get('/v4/profile/preferences')).body).toEqual(prefs);
    await t.put('/v4/profile/preferences', { theme: 'light' });
    expect((await t.get('/v4/profile/preferences')).body).toEqual({ theme: 'light' });
    const u = await createTestUser(t, { restricted: false });
    expect((await t.get('/v4/profile/preferences', { token: u.token })).body).toEqual({});
  });

  it('updateUserPreferences: refuses a non-object and more than 65535 characters', async () => {
    expect((await t.put('/v4/profile/preferences', [1, 2])).status).toBe(400);
    expect((await t.put('/v4/profile/preferences', { big: 'x'.repeat(65535) })).status).toBe(400);
    expect((await t.get('/v4/profile/preferences')).body).toEqual({});
  });

  it('postProfilePhoneNumber: refuses an invalid number; verify refuses after 5 wrong codes and after 10 minutes', async () => {
    const bad = await t.post('/v4/profile/phone-number', { iso_code: 'US', phone_number: '12' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('phone_number');
    expect((await t.post('/v4/profile/phone-number/verify', { otp_code: '123456' })).status).toBe(
      400,
    );
    expect(
      (await t.post('/v4/profile/phone-number', { iso_code: 'GB', phone_number: '020 7946 0018' }))
        .status,
    ).toBe(200);
    const sms = await t.ctx.db.db
      .selectFrom('sms_outbox')
      .select(['body', 'phone_number'])
      .executeTakeFirstOrThrow();
    expect(sms.phone_number).toBe('+442079460018');
    const code = /(\d{6})/.exec(sms.body)?.[1] ?? '';
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++)
      expect((await t.post('/v4/profile/phone-number/verify', { otp_code: wrong })).status).toBe(
        400,
      );
    expect((await t.post('/v4/profile/phone-number/verify', { otp_code: code })).status).toBe(400);
    await t.post('/v4/profile/phone-number', { iso_code: 'GB', phone_number: '020 7946 0018' });
    const late = await t.ctx.db.db
      .selectFrom('sms_outbox')
      .select('body')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    t.clock.advance(10 * 60 * 1000);
    const lateCode = /(\d{6})/.exec(late.body)?.[1] ?? '';
    expect((await t.post('/v4/profile/phone-number/verify', { otp_code: lateCode })).status).toBe(
      400,
    );
    expect((await t.get('/v4/profile')).body.verified_phone_number).toBeNull();
  });
});
