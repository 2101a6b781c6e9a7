import { describe, expect, it } from 'vitest';
import { createTestUser } from '../../helpers/auth.js';
import { secondAccount, useTestApp } from './fixtures.js';

describe('account', () => {
  const app = useTestApp();

  it('getAccount: answers the caller account with euuid, capabilities, balance and billing source', async () => {
    const t = app();
    const r = await t.get('/v4/account');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      euuid: t.admin.euuid,
      email: 'owner@example.com',
      balance: 0,
      balance_uninvoiced: 0,
      billing_source: 'compute',
      active_since: '2026-03-01T12:00:00',
      active_promotions: [],
      credit_card: { last_four: null, expiry: null },
    });
    expect(r.body.capabilities).toContain('Computes');
  });

  it('getAccount: two accounts each see their own', async () => {
    const t = app();
    const other = await secondAccount(t);
    const r = await t.get('/v4/account', { token: other.token });
    expect(r.body.euuid).toBe(other.euuid);
    expect(r.body.email).toBe('other-owner@example.org');
    await t.put('/v4/account', { company: 'First' }, { token: other.token });
    expect((await t.get('/v4/account')).body.company).toBe('');
  });

  it('updateAccount: stores the fields and ignores read-only and unknown ones', async () => {
    const t = app();
    const body = {
      address_1: '123 Main Street',
      address_2: 'Suite A',
      city: 'Philadelphia',
      company: 'Compute LLC',
      country: 'US',
      email: 'billing@example.com',
      first_name: 'John',
      last_name: 'Smith',
      phone: '215-555-1212',
      state: 'PA',
      tax_id: 'ATU99999999',
      zip: '19102-1234',
    };
    const r = await t.put('/v4/account', { ...body, euuid: 'nope', balance: 99, colour: 'red' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ...body, euuid: t.admin.euuid, balance: 0 });
    expect(r.body).not.toHaveProperty('colour');
    expect((await t.get('/v4/account')).body).toMatchObject(body);
  });

  it('updateAccount: reports every over-long field at once, naming each', async () => {
    const t = app();
    const r = await t.put('/v4/account', {
      address_1: 'a'.repeat(65),
      address_2: 'a'.repeat(65),
      city: 'c'.repeat(25),
      company: 'c'.repeat(129),
      email: `${'e'.repeat(120)}@example.com`,
      first_name: 'f'.repeat(51),
      last_name: 'l'.repeat(51),
      phone: '1'.repeat(33),
      state: 's'.repeat(25),
      tax_id: 't'.repeat(26),
    });
    expect(r.status).toBe(400);
    const fields = r.body.errors.map((e: { field: string }) => e.field).sort();
    expect(fields).toEqual(
      [
        'address_1',
        'address_2',
        'city',
        'company',
        'email',
        'first_name',
        'last_name',
        'phone',
        'state',
        'tax_id',
      ].sort(),
    );
  });

  it('updateAccount: accepts fields at their length limits', async () => {
    const t = app();
    const r = await t.put('/v4/account', {
      address_1: 'a'.repeat(64),
      city: 'c'.repeat(24),
      company: 'c'.repeat(128),
      first_name: 'f'.repeat(50),
      phone: '1'.repeat(32),
      state: 's'.repeat(24),
      tax_id: 't'.repeat(25),
    });
    expect(r.status).toBe(200);
  });

  it('updateAccount: names and company must not contain < > ( ) " =', async () => {
    const t = app();
    for (const ch of ['<', '>', '(', ')', '"', '=']) {
      const r = await t.put('/v4/account', {
        first_name: `a${ch}`,
        last_name: `b${ch}`,
        company: ch,
      });
      expect(r.status).toBe(400);
      expect(r.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
        'company',
        'first_name',
        'last_name',
      ]);
    }
    expect((await t.put('/v4/account', { company: "O'Brien & Sons, Ltd." })).status).toBe(200);
  });

  it('updateAccount: country must be an ISO 3166 alpha-2 code', async () => {
    const t = app();
    for (const bad of ['XX', 'USA', 'U', 'UK', '12']) {
      const r = await t.put('/v4/account', { country: bad });
      expect(r.status).toBe(400);
      expect(r.body.errors[0].field).toBe('country');
    }
    for (const good of ['DE', 'gb', 'AX', 'ZW']) {
      expect((await t.put('/v4/account', { country: good })).status).toBe(200);
    }
    expect((await t.get('/v4/account')).body.country).toBe('ZW');
  });

  it('updateAccount: a US state must be a two-letter code, military AA/AE/AP included', async () => {
    const t = app();
    expect((await t.put('/v4/account', { country: 'US', state: 'Pennsylvania' })).status).toBe(400);
    expect((await t.put('/v4/account', { country: 'US', state: 'ON' })).body.errors[0].field).toBe(
      'state',
    );
    for (const s of ['PA', 'dc', 'PR', 'AA', 'AE', 'AP']) {
      expect((await t.put('/v4/account', { country: 'US', state: s })).status).toBe(200);
    }
    expect((await t.get('/v4/account')).body.state).toBe('AP');
  });

  it('updateAccount: a Canadian state must be a province code; elsewhere any province name', async () => {
    const t = app();
    expect((await t.put('/v4/account', { country: 'CA', state: 'PA' })).status).toBe(400);
    expect((await t.put('/v4/account', { country: 'CA', state: 'qc' })).body.state).toBe('QC');
    expect((await t.put('/v4/account', { country: 'DE', state: 'Bayern' })).status).toBe(200);
    // Moving to the US checks the state the account keeps.
    const r = await t.put('/v4/account', { country: 'US' });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].field).toBe('state');
  });

  it('updateAccount: zip has ASCII letters, digits and hyphens, at most 9 of them', async () => {
    const t = app();
    for (const bad of ['1234567890', '12 345', '12345_6789', 'ÄB-12']) {
      const r = await t.put('/v4/account', { zip: bad });
      expect(r.status).toBe(400);
      expect(r.body.errors[0].field).toBe('zip');
    }
    for (const good of ['19102-1234', 'SW1A-1AA', '', '123456789']) {
      expect((await t.put('/v4/account', { zip: good })).status).toBe(200);
    }
  });

  it('updateAccount: email must be valid', async () => {
    const t = app();
    const r = await t.put('/v4/account', { email: 'not-an-email' });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].field).toBe('email');
  });

  it('updateAccount: a wrong type names the field', async () => {
    const t = app();
    const r = await t.put('/v4/account', { city: 5 });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].field).toBe('city');
  });

  it('updateAccount: records account_update with the acting username', async () => {
    const t = app();
    await t.put('/v4/account', { city: 'Berlin' });
    const ev = (await t.get('/v4/account/events')).body.data[0];
    expect(ev).toMatchObject({
      action: 'account_update',
      username: 'owner',
      entity: { type: 'account', label: t.admin.euuid, url: '/v4/account' },
    });
  });

  it('getAccountSettings: answers the settings the reference lists, and the newer ones of the real wire', async () => {
    const t = app();
    const r = await t.get('/v4/account/settings');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      managed: false,
      longview_subscription: null,
      network_helper: true,
      backups_enabled: false,
      object_storage: 'disabled',
      interfaces_for_new_computes: 'legacy_config_default_but_compute_allowed',
      maintenance_policy: 'compute/migrate',
    });
  });

  it('updateAccountSettings: changes backups_enabled, network_helper and interfaces_for_new_computes only', async () => {
    const t = app();
    const r = await t.put('/v4/account/settings', {
      backups_enabled: true,
      network_helper: false,
      managed: true,
      object_storage: 'active',
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      backups_enabled: true,
      network_helper: false,
      managed: false,
      object_storage: 'disabled',
    });
    const ev = (await t.get('/v4/account/events')).body.data[0];
    expect(ev).toMatchObject({ action: 'account_settings_update', username: 'owner' });
  });

  it('updateAccountSettings: maintenance_policy is checked with the real words and stored', async () => {
    const t = app();
    const r = await t.put('/v4/account/settings', { maintenance_policy: 'compute/power_off_on' });
    expect(r.status).toBe(200);
    expect(r.body.maintenance_policy).toBe('compute/power_off_on');
    expect((await t.get('/v4/account/settings')).body.maintenance_policy).toBe(
      'compute/power_off_on',
    );
    const unknown = await t.put('/v4/account/settings', { maintenance_policy: 'compute/other' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual([
      { field: 'maintenance_policy', reason: 'Maintenance policy not found.' },
    ]);
    const format = await t.put('/v4/account/settings', {
      maintenance_policy: 'power off',
      network_helper: false,
    });
    expect(format.body.errors).toEqual([
      { field: 'maintenance_policy', reason: 'Unsupported maintenance policy slug format.' },
    ]);
    // Nothing of a refused update is written.
    expect((await t.get('/v4/account/settings')).body).toMatchObject({
      maintenance_policy: 'compute/power_off_on',
      network_helper: true,
    });
  });

  it('updateAccountSettings: a non-boolean names the field', async () => {
    const t = app();
    const r = await t.put('/v4/account/settings', { backups_enabled: 'yes' });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].field).toBe('backups_enabled');
  });

  it('getAccount: a restricted user without account access gets 403 Unauthorized', async () => {
    const t = app();
    const u = await createTestUser(t);
    for (const [method, url] of [
      ['GET', '/v4/account'],
      ['PUT', '/v4/account'],
      ['GET', '/v4/account/settings'],
      ['PUT', '/v4/account/settings'],
    ] as const) {
      const r = await t.request(method, url, {
        token: u.token,
        ...(method === 'PUT' ? { body: {} } : {}),
      });
      expect(r.status, `${method} ${url}`).toBe(403);
      expect(r.body).toEqual({ errors: [{ reason: 'Unauthorized' }] });
    }
  });

  it('updateAccount: read_only account access may read but not write', async () => {
    const t = app();
    const u = await createTestUser(t, { global: { account_access: 'read_only' } });
    expect((await t.get('/v4/account', { token: u.token })).status).toBe(200);
    expect((await t.get('/v4/account/settings', { token: u.token })).status).toBe(200);
    expect((await t.put('/v4/account', { city: 'X' }, { token: u.token })).status).toBe(403);
    expect(
      (await t.put('/v4/account/settings', { backups_enabled: true }, { token: u.token })).status,
    ).toBe(403);
    const rw = await createTestUser(t, { global: { account_access: 'read_write' } });
    expect((await t.put('/v4/account', { city: 'X' }, { token: rw.token })).status).toBe(200);
  });

  it('updateAccount: needs the account:read_write scope', async () => {
    const t = app();
    const u = await createTestUser(t, { restricted: false, scopes: 'account:read_only' });
    expect((await t.get('/v4/account', { token: u.token })).status).toBe(200);
    expect((await t.put('/v4/account', { city: 'X' }, { token: u.token })).status).toBe(401);
  });
});
