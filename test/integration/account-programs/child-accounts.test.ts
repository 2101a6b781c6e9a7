import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { proxyUsername } from '../../../src/modules/child-accounts/child-accounts.service.js';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { op, operatorToken, secondAccount } from '../controls/helpers.js';

describe('parent and child accounts', () => {
  let t: TestApp;
  let o: ReturnType<typeof op>;
  let opToken: string;
  let parentEuuid: string;
  let child: { token: string; accountId: number; euuid: string };
  beforeEach(async () => {
    t = await buildTestApp();
    opToken = await operatorToken(t);
    o = op(t, opToken);
    await t.put('/v4/account', { company: 'Acme Hosting Partners Inc' });
    parentEuuid = (await t.get('/v4/account')).body.euuid;
    const c = await secondAccount(t, 'childowner');
    child = {
      token: c.token,
      accountId: c.accountId,
      euuid: (await t.get('/v4/account', { token: c.token })).body.euuid,
    };
  });
  afterEach(async () => {
    await t.close();
  });

  const link = () =>
    o.post('/_stratus/child-accounts', { parent_euuid: parentEuuid, child_euuid: child.euuid });

  it('link (emulator control): the child gets its proxy user, named after the parent; billing moves to the partner', async () => {
    const r = await link();
    expect(r.status, r.text).toBe(200);
    const name = proxyUsername('Acme Hosting Partners Inc', child.euuid);
    expect(name).toMatch(/^Acme-Hosting-Pa_[0-9a-f]{16}$/);
    expect(r.body).toEqual({
      parent_euuid: parentEuuid,
      child_euuid: child.euuid,
      proxy_user: name,
    });
    const users = await t.get('/v4/account/users', { token: child.token });
    expect(users.body.data.map((u: { username: string }) => u.username)).toContain(name);
    expect((await t.get('/v4/account', { token: child.token })).body.billing_source).toBe(
      'partner',
    );
    // A child cannot be linked twice, nor become a parent, nor be its own parent.
    expect((await link()).status).toBe(400);
    const third = await secondAccount(t, 'third');
    const thirdEuuid = (await t.get('/v4/account', { token: third.token })).body.euuid;
    expect(
      (
        await o.post('/_stratus/child-accounts', {
          parent_euuid: child.euuid,
          child_euuid: thirdEuuid,
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await o.post('/_stratus/child-accounts', {
          parent_euuid: thirdEuuid,
          child_euuid: thirdEuuid,
        })
      ).status,
    ).toBe(400);
  });

  it('getChildAccounts: a parent lists and views its children as accounts; others get 403', async () => {
    expect((await t.get('/v4/account/child-accounts')).status).toBe(403);
    await link();
    const list = await t.get('/v4/account/child-accounts');
    expect(list.status).toBe(200);
    expect(list.body.results).toBe(1);
    expect(list.body.data[0]).toMatchObject({
      euuid: child.euuid,
      billing_source: 'partner',
      email: 'childowner@example.com',
      credit_card: { last_four: null, expiry: null },
    });
    const one = await t.get(`/v4/account/child-accounts/${child.euuid}`);
    expect(one.body).toEqual(list.body.data[0]);
    expect(one.headers['x-accepted-oauth-scopes']).toBe('child_account:read_only');
    expect((await t.get('/v4/account/child-accounts/NOT-A-CHILD')).status).toBe(404);
    // The child is not a parent.
    expect((await t.get('/v4/account/child-accounts', { token: child.token })).status).toBe(403);
  });

  it('postChildAccountToken: a 15-minute token of the proxy user that acts in the child account', async () => {
    await link();
    const r = await t.post(`/v4/account/child-accounts/${child.euuid}/token`);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({
      scopes: '*',
      created: '2026-03-01T12:00:00',
      expiry: '2026-03-01T12:15:00',
    });
    expect(r.body.label).toMatch(/^owner_\d+_\d+$/);
    const asProxy = await t.get('/v4/account', { token: r.body.token });
    expect(asProxy.body.euuid).toBe(child.euuid);
    const me = await t.get('/v4/profile', { token: r.body.token });
    expect(me.body.username).toBe(proxyUsername('Acme Hosting Partners Inc', child.euuid));
    t.clock.advance(15 * 60_000 + 1000);
    expect((await t.get('/v4/account', { token: r.body.token })).status).toBe(401);
  });

  it('postChildAccountToken: the proxy user is what the child allows; a deleted one is made again', async () => {
    await link();
    const proxy = proxyUsername('Acme Hosting Partners Inc', child.euuid);
    expect(
      (await t.put(`/v4/account/users/${proxy}`, { restricted: true }, { token: child.token }))
        .status,
    ).toBe(200);
    const tk = (await t.post(`/v4/account/child-accounts/${child.euuid}/token`)).body.token;
    expect((await t.get('/v4/account/users', { token: tk })).status).toBe(403);
    expect((await t.del(`/v4/account/users/${proxy}`, { token: child.token })).status).toBe(200);
    const again = await t.post(`/v4/account/child-accounts/${child.euuid}/token`);
    expect(again.status, again.text).toBe(200);
    expect((await t.get('/v4/profile', { token: again.body.token })).body.username).toBe(proxy);
  });

  it('child accounts grants: restricted parent users need child_account_access; scopes child_account:*', async () => {
    await link();
    const plain = await createTestUser(t, { global: { account_access: 'read_write' } });
    expect((await t.get('/v4/account/child-accounts', { token: plain.token })).status).toBe(403);
    const granted = await createTestUser(t, { global: { child_account_access: true } });
    expect((await t.get('/v4/account/child-accounts', { token: granted.token })).status).toBe(200);
    const grants = await t.get(`/v4/account/users/${granted.username}/grants`);
    expect(grants.body.global.child_account_access).toBe(true);
    const ro = await createTestUser(t, { restricted: false, scopes: 'child_account:read_only' });
    expect((await t.get('/v4/account/child-accounts', { token: ro.token })).status).toBe(200);
    expect(
      (
        await t.post(`/v4/account/child-accounts/${child.euuid}/token`, undefined, {
          token: ro.token,
        })
      ).status,
    ).toBe(401);
  });

  it('unlink (emulator control): the proxy user and its tokens go; the child bills on its own again', async () => {
    await link();
    const tk = (await t.post(`/v4/account/child-accounts/${child.euuid}/token`)).body.token;
    const r = await t.del(`/_stratus/child-accounts/${child.euuid}`, { token: opToken });
    expect(r.status).toBe(200);
    expect((await t.get('/v4/account', { token: tk })).status).toBe(401);
    expect((await t.get('/v4/account', { token: child.token })).body.billing_source).toBe(
      'compute',
    );
    expect((await t.get('/v4/account/child-accounts')).status).toBe(403);
  });

  it('child accounts state: a reset of the child keeps the link (and its proxy user)', async () => {
    await link();
    expect((await o.post('/_stratus/reset', { euuid: child.euuid })).status).toBe(200);
    expect((await t.get('/v4/account/child-accounts')).body.results).toBe(1);
    expect((await t.post(`/v4/account/child-accounts/${child.euuid}/token`)).status).toBe(200);
  });
});
