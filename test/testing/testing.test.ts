import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { StratusControlError, type StratusServer, startStratus } from '../../src/testing.js';

// The helper's own suite uses the helper as a suite of a user's would: one server for the file,
// a reset before each test.
describe('stratus/testing', () => {
  let stratus: StratusServer;
  let region: string;

  beforeAll(async () => {
    stratus = await startStratus();
    const regions = (await (await stratus.api('/regions')).json()) as { data: { id: string }[] };
    region = regions.data[0]?.id ?? '';
  });
  afterAll(async () => {
    await stratus?.stop();
  });
  beforeEach(async () => {
    await stratus.operator.reset();
  });

  it('startStratus: a server with an admin token and instant timing', async () => {
    expect(stratus.apiUrl).toBe(`${stratus.url}/v4`);
    const profile = await stratus.api('/profile');
    expect(profile.status).toBe(200);
    expect(((await profile.json()) as { username: string }).username).toBe('admin');
    const timing = (await stratus.operator.request('GET', '/_stratus/timing')) as {
      profile: string;
    };
    expect(timing.profile).toBe('instant');
    const health = (await stratus.operator.health()) as { status: string; engine: string };
    expect(health.engine).toBe('sqlite');
  });

  it('operator.reset: the state goes, the admin token stays', async () => {
    const created = await stratus.api('/volumes', {
      method: 'POST',
      body: { label: 'scratch', size: 10, region },
    });
    expect(created.status).toBe(200);
    await stratus.operator.reset();
    const after = (await (await stratus.api('/volumes')).json()) as { results: number };
    expect(after.results).toBe(0);
  });

  it('operator.setFaults: the rule answers, an empty list clears it', async () => {
    await stratus.operator.setFaults([
      { path: '/volumes', method: 'GET', response: 'maintenance', message: 'planned' },
    ]);
    const refused = await stratus.api('/volumes');
    expect(refused.status).toBe(503);
    await stratus.operator.setFaults([]);
    expect((await stratus.api('/volumes')).status).toBe(200);
  });

  it('operator.advanceClock: a manual clock moves and runs the steps due', async () => {
    await stratus.operator.setClock('manual');
    const moved = (await stratus.operator.advanceClock({ seconds: 5 })) as {
      mode: string;
      steps: number;
    };
    expect(moved.mode).toBe('manual');
    expect(moved.steps).toBeGreaterThanOrEqual(0);
    await stratus.operator.setClock('system');
  });

  it('operator.seed: a seeded user’s token answers as that user', async () => {
    await stratus.operator.seed({
      accounts: [{ email: 'ci@example.com', username: 'ci-bot', token: 'ci-token-0123456789' }],
    });
    const profile = await stratus.api('/profile', { token: 'ci-token-0123456789' });
    expect(((await profile.json()) as { username: string }).username).toBe('ci-bot');
  });

  it('operator.request: a refused control rejects with its status and error body', async () => {
    const err = await stratus.operator.request('POST', '/_stratus/clock/advance', {}).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StratusControlError);
    expect((err as StratusControlError).status).toBe(400);
    expect(JSON.stringify((err as StratusControlError).body)).toContain('seconds');
  });
});

describe('stratus/testing start and stop', () => {
  it('startStratus: the test process’s Stratus settings do not reach the server; env does', async () => {
    const before = process.env.STRATUS_SEED;
    // A seed file that does not exist would stop the start if it were passed on.
    process.env.STRATUS_SEED = '/nonexistent/stratus-seed.json';
    let stratus: StratusServer | undefined;
    try {
      stratus = await startStratus({ env: { STRATUS_WORKER: 'off' } });
      const info = (await (await fetch(`${stratus.url}/_stratus/info`)).json()) as {
        workers: { in_process: boolean };
      };
      expect(info.workers.in_process).toBe(false);
    } finally {
      if (before === undefined) delete process.env.STRATUS_SEED;
      else process.env.STRATUS_SEED = before;
      await stratus?.stop();
    }
  });

  it('stop: the server no longer answers', async () => {
    const stratus = await startStratus();
    const url = stratus.url;
    await stratus.stop();
    await expect(fetch(`${url}/v4/regions`)).rejects.toThrow();
  });

  it('startStratus: a start that fails rejects with the server’s cause', async () => {
    await expect(startStratus({ databaseUrl: 'mysql://nowhere/db' })).rejects.toThrow(
      /did not start[\s\S]*DATABASE_URL/,
    );
  });

  it('startStratus: works from node’s test runner', () => {
    const file = fileURLToPath(new URL('./fixtures/node-test-runner.ts', import.meta.url));
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--test', file], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(run.stdout).toMatch(/# pass 2\b/);
    expect(run.status).toBe(0);
  });
});
