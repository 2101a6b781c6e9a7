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
