import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as m0044 from '../../../src/db/migrations/0044-tfa-flag.js';
import { insertUser } from '../../../src/modules/identity/identity.repository.js';
import { saveCredentials } from '../../../src/modules/oauth/credentials.js';
import { totpCode } from '../../../src/modules/oauth/totp.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import {
  answerSecurityQuestions,
  authorizeQuery,
  type Client,
  createClient,
  givePassword,
  PASSWORD,
  signIn,
} from './fixtures.js';

/**
 * `two_factor_auth` of the profile has one source of truth, the sign-in's TOTP state: only the
 * tfa-enable/confirm/disable operations change it, and the flag always says what sign-in
 * enforces.
 */
describe('profile two_factor_auth and the sign-in', () => {
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

  const enableTfa = async (): Promise<string> => {
    await answerSecurityQuestions(t);
    const secret = (await t.post('/v4/profile/tfa-enable')).body.secret as string;
    const ok = await t.post('/v4/profile/tfa-enable-confirm', {
      tfa_code: totpCode(secret, t.clock.nowMs()),
    });
    expect(ok.status).toBe(200);
    t.clock.advance(30_000);
    return secret;
  };

  it('updateProfile: two_factor_auth true without TFA is refused; the flag and sign-in agree', async () => {
    const r = await t.put('/v4/profile', { two_factor_auth: true, timezone: 'UTC' });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([
      {
        field: 'two_factor_auth',
        reason:
          'Enable two-factor authentication with POST /profile/tfa-enable, then POST /profile/tfa-enable-confirm',
      },
    ]);
    const me = (await t.get('/v4/profile')).body;
    expect(me.two_factor_auth).toBe(false);
    // Nothing of the refused update was applied.
    expect(me.timezone).not.toBe('UTC');
    // Sign-in asks for no code, as the flag says.
    expect((await signIn(t, authorizeQuery(c))).statusCode).toBe(200);
  });

  it('updateProfile: two_factor_auth false does not turn an enabled TFA off', async () => {
    const secret = await enableTfa();
    const r = await t.put('/v4/profile', { two_factor_auth: false });
    expect(r.status).toBe(400);
    expect(r.body.errors[0]).toEqual({
      field: 'two_factor_auth',
      reason: 'Disable two-factor authentication with POST /profile/tfa-disable',
    });
    expect((await t.get('/v4/profile')).body.two_factor_auth).toBe(true);
    const q = authorizeQuery(c);
    expect((await signIn(t, q)).statusCode).toBe(401);
    expect(
      (await signIn(t, q, 'owner', PASSWORD, totpCode(secret, t.clock.nowMs()))).statusCode,
    ).toBe(200);
  });

  it('updateProfile: the profile sent back as read (current two_factor_auth) is accepted', async () => {
    await enableTfa();
    const me = (await t.get('/v4/profile')).body;
    const r = await t.put('/v4/profile', {
      email: me.email,
      timezone: 'Europe/Paris',
      email_notifications: me.email_notifications,
      lish_auth_method: me.lish_auth_method,
      authorized_keys: me.authorized_keys,
      two_factor_auth: me.two_factor_auth,
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ timezone: 'Europe/Paris', two_factor_auth: true });
    expect((await t.put('/v4/profile', { two_factor_auth: true })).status).toBe(200);
  });

  it('tfaDisable: turns the flag and the sign-in check off together', async () => {
    await enableTfa();
    expect((await t.post('/v4/profile/tfa-disable')).status).toBe(200);
    expect((await t.get('/v4/profile')).body.two_factor_auth).toBe(false);
    expect((await signIn(t, authorizeQuery(c))).statusCode).toBe(200);
  });

  it('migrate 0044: a flag that disagrees with the sign-in state is corrected', async () => {
    const db = t.ctx.db;
    const otherId = await insertUser(
      db,
      {
        accountId: t.admin.accountId,
        username: 'second',
        email: 'second@example.com',
        restricted: false,
      },
      '2026-03-01T12:00:00',
    );
    // The owner: flag on, no secret (set by the old PUT /profile). The other: a secret, flag off.
    await db.db
      .updateTable('users')
      .set({ two_factor_auth: 1 })
      .where('id', '=', t.admin.userId)
      .execute();
    await saveCredentials(db, otherId, { tfa_secret: 'v1:sealed' });
    await m0044.up({ db: db.db as never, dialect: db.dialect });
    const rows = await db.db
      .selectFrom('users')
      .select(['username', 'two_factor_auth'])
      .orderBy('id')
      .execute();
    expect(rows).toEqual([
      { username: 'owner', two_factor_auth: 0 },
      { username: 'second', two_factor_auth: 1 },
    ]);
  });
});
