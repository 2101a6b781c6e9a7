import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { createVolume, op, operatorToken } from './helpers.js';

const TEAM = 'team-token-0123456789';

describe('emulator controls: reset with a seed file', () => {
  let t: TestApp;
  let token: string;
  let dir: string;
  let seed: string;
  const write = (doc: unknown) => writeFile(seed, JSON.stringify(doc));
  const good = (requests: unknown[] = []) => ({
    accounts: [{ email: 'team@example.com', username: 'team', token: TEAM }],
    requests,
  });

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'stratus-reset-seed-'));
    seed = path.join(dir, 'seed.json');
    await write(good());
    t = await buildTestApp({ env: { STRATUS_SEED: seed } });
    token = await operatorToken(t);
  });
  afterEach(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('reset: a seed file made invalid since the start is a 400 naming the place; nothing is reset', async () => {
    expect((await op(t, token).post('/_stratus/reset')).status).toBe(200);
    await createVolume(t, 'kept', TEAM);
    await write({ accounts: [{ email: 'team@example.com', username: 'ci', token: TEAM }] });
    const r = await op(t, token).post('/_stratus/reset');
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      errors: [
        {
          reason: `STRATUS_SEED: ${seed}: accounts[0].username: Username must be between 3 and 32 characters (got "ci"). Nothing was reset.`,
        },
      ],
    });
    const vols = await t.get('/v4/volumes', { token: TEAM });
    expect(vols.body.data.map((v: { label: string }) => v.label)).toEqual(['kept']);
  });

  it('reset: a seed request refused after the reset is a 400 with the refused answer', async () => {
    await write(
      good([
        {
          as: 'team',
          method: 'POST',
          path: '/v4/volumes',
          body: { label: 'nowhere', region: 'xx-nowhere', size: 20 },
        },
      ]),
    );
    const r = await op(t, token).post('/_stratus/reset');
    expect(r.status).toBe(400);
    expect(r.body.errors).toHaveLength(1);
    expect(r.body.errors[0].reason).toMatch(
      /^The state was reset, then STRATUS_SEED: requests\[0\] POST \/v4\/volumes: 400 \{"errors":\[\{.*"field":"region"/,
    );
    // The reset itself happened: the seeded account exists, without the refused volume.
    expect((await t.get('/v4/volumes', { token: TEAM })).body.results).toBe(0);
  });
});

describe('emulator controls: seed now', () => {
  let t: TestApp;
  let token: string;
  beforeEach(async () => {
    t = await buildTestApp();
    token = await operatorToken(t);
  });
  afterEach(async () => {
    await t.close();
  });

  it('seed: accounts, users, tokens, then requests, beside the current state', async () => {
    await createVolume(t, 'mine');
    const r = await op(t, token).post('/_stratus/seed', {
      accounts: [
        {
          email: 'qa@example.com',
          username: 'qa-lead',
          users: [
            {
              username: 'qa-reader',
              email: 'r@example.com',
              restricted: true,
              tokens: [{ token: 'qa-reader-0123456789', scopes: 'volumes:read_only' }],
            },
          ],
        },
      ],
      requests: [
        {
          as: 'qa-lead',
          method: 'POST',
          path: '/v4/volumes',
          body: { label: 'qa', region: 'us-east', size: 20 },
        },
      ],
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({
      accounts: [{ euuid: expect.any(String), username: 'qa-lead', token: expect.any(String) }],
      requests: 1,
    });
    const lead = r.body.accounts[0].token as string;
    expect((await t.get('/v4/volumes', { token: lead })).body.data[0].label).toBe('qa');
    expect((await t.get('/v4/profile', { token: 'qa-reader-0123456789' })).body).toMatchObject({
      username: 'qa-reader',
      restricted: true,
    });
    // The state that was there stays.
    expect((await t.get('/v4/volumes')).body.data[0].label).toBe('mine');
  });

  it('seed: a username or token already taken is a 400 naming the place; nothing is written', async () => {
    const taken = await op(t, token).post('/_stratus/seed', {
      accounts: [
        { email: 'a@example.com', username: 'fresh-one' },
        { email: 'b@example.com', username: 'OWNER' },
      ],
    });
    expect(taken.status).toBe(400);
    expect(taken.body.errors).toEqual([
      { field: 'accounts[1].username', reason: 'Username "OWNER" is taken.' },
    ]);
    const token2 = await op(t, token).post('/_stratus/seed', {
      accounts: [{ email: 'c@example.com', username: 'fresh-two', token: t.admin.token }],
    });
    expect(token2.body.errors).toEqual([
      { field: 'accounts[0].token', reason: 'This token is taken.' },
    ]);
    const bad = await op(t, token).post('/_stratus/seed', {
      accounts: [{ email: 'c@example.com', username: 'x' }],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('accounts[0].username');
    const users = await t.ctx.db.db.selectFrom('users').select('username').execute();
    expect(users.map((u) => u.username)).toEqual(['owner']);
  });
});
