import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { op, operatorToken, secondAccount } from '../controls/helpers.js';

describe('beta programs and agreements', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  it('getBetaPrograms: the active programs, any token; an ended one only by id', async () => {
    const r = await t.get('/v4/betas');
    expect(r.status).toBe(200);
    expect(r.body.data.map((b: { id: string }) => b.id)).toEqual(['gpu_ada_beta', 'vpc_ipv6_beta']);
    expect(r.body.data[0]).toMatchObject({
      label: 'GPU Ada Series Beta',
      ended: null,
      greenlight_only: false,
      started: '2024-05-01T00:00:00',
    });
    const ended = await t.get('/v4/betas/metadata_beta');
    expect(ended.body).toMatchObject({ id: 'metadata_beta', ended: '2024-03-01T00:00:00' });
    expect((await t.get('/v4/betas/nope')).status).toBe(404);
    const gl = await t.get('/v4/betas', { filter: { greenlight_only: true } });
    expect(gl.body.data.map((b: { id: string }) => b.id)).toEqual(['vpc_ipv6_beta']);
    const narrow = await createTestUser(t, { restricted: false, scopes: 'volumes:read_only' });
    expect((await t.get('/v4/betas', { token: narrow.token })).status).toBe(200);
  });

  it('enrollBetaProgram: an active open program once; not an ended, Greenlight-only or unknown one', async () => {
    const e = await t.post('/v4/account/betas', { id: 'gpu_ada_beta' });
    expect(e.status).toBe(200);
    expect(e.body).toEqual({});
    const list = await t.get('/v4/account/betas');
    expect(list.body.data).toEqual([
      {
        id: 'gpu_ada_beta',
        label: 'GPU Ada Series Beta',
        description: expect.any(String),
        started: '2024-05-01T00:00:00',
        ended: null,
        enrolled: '2026-03-01T12:00:00',
      },
    ]);
    expect((await t.get('/v4/account/betas/gpu_ada_beta')).body.enrolled).toBe(
      '2026-03-01T12:00:00',
    );
    expect((await t.get('/v4/account/betas/metadata_beta')).status).toBe(404);
    for (const id of ['gpu_ada_beta', 'metadata_beta', 'vpc_ipv6_beta', 'nope']) {
      const r = await t.post('/v4/account/betas', { id });
      expect(r.status, id).toBe(400);
      expect(r.body.errors[0].field).toBe('id');
    }
    const other = await secondAccount(t);
    expect((await t.get('/v4/account/betas', { token: other.token })).body.results).toBe(0);
  });

  it('beta programs: unrestricted users only', async () => {
    const u = await createTestUser(t, { global: { account_access: 'read_write' } });
    expect((await t.get('/v4/betas', { token: u.token })).status).toBe(403);
    expect(
      (await t.post('/v4/account/betas', { id: 'gpu_ada_beta' }, { token: u.token })).status,
    ).toBe(403);
    expect((await t.get('/v4/account/betas', { token: u.token })).status).toBe(403);
  });

  it('getAccountAgreements: as recorded for a new account; acknowledging keeps what is true', async () => {
    expect((await t.get('/v4/account/agreements')).body).toEqual({
      eu_model: false,
      master_service_agreement: false,
      privacy_policy: true,
    });
    const ack = await t.post('/v4/account/agreements', {
      master_service_agreement: true,
      eu_model: false,
    });
    expect(ack.status).toBe(200);
    expect(ack.body).toEqual({});
    expect((await t.get('/v4/account/agreements')).body).toEqual({
      eu_model: false,
      master_service_agreement: true,
      privacy_policy: true,
    });
    // false does not withdraw an acknowledgement.
    await t.post('/v4/account/agreements', { master_service_agreement: false });
    expect((await t.get('/v4/account/agreements')).body.master_service_agreement).toBe(true);
    const ro = await createTestUser(t, { global: { account_access: 'read_only' } });
    expect((await t.get('/v4/account/agreements', { token: ro.token })).status).toBe(200);
    expect(
      (await t.post('/v4/account/agreements', { eu_model: true }, { token: ro.token })).status,
    ).toBe(403);
  });

  it('account programs state: a reset of the account drops its enrolments and acknowledgements', async () => {
    await t.post('/v4/account/betas', { id: 'gpu_ada_beta' });
    await t.post('/v4/account/agreements', { eu_model: true });
    const euuid = (await t.get('/v4/account')).body.euuid;
    expect((await op(t, await operatorToken(t)).post('/_stratus/reset', { euuid })).status).toBe(
      200,
    );
    expect((await t.get('/v4/account/betas')).body.results).toBe(0);
    expect((await t.get('/v4/account/agreements')).body.eu_model).toBe(false);
  });
});
