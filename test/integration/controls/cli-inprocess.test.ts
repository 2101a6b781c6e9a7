import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { envToConfig } from '../../../src/config/config.js';
import { createContext } from '../../../src/context.js';
import { controlsCommand } from '../../../src/modules/controls/controls.cli.js';
import { DIALECT } from '../../helpers/build-test-app.js';
import { createDatabase, dropDatabase } from '../../helpers/pg-server.js';

async function store(): Promise<{ url: string; drop: () => Promise<void> }> {
  if (DIALECT === 'postgres') {
    const admin = inject('pgAdminUrl');
    const name = `cli_${randomBytes(6).toString('hex')}`;
    return {
      url: await createDatabase(admin, name, 'stratus_template'),
      drop: () => dropDatabase(admin, name),
    };
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'stratus-cli-ctl-'));
  return {
    url: `sqlite:${path.join(dir, 'stratus.db')}`,
    drop: () => rm(dir, { recursive: true, force: true }),
  };
}

describe('controls command line (in process)', () => {
  const drops: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const d of drops) await d();
  });

  async function run(
    url: string,
    command: string,
    args: string[],
    env: Record<string, string> = {},
  ) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await controlsCommand(
      envToConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent', ...env }),
      command,
      args,
      { out: (s) => out.push(s), err: (s) => err.push(s) },
    );
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  it('operator-token: prints a new token that the controls accept; refused when the environment sets it', async () => {
    const s = await store();
    drops.push(s.drop);
    const r = await run(s.url, 'operator-token', []);
    expect(r.code, r.err).toBe(0);
    const token = JSON.parse(r.out).token as string;
    const ctx = await createContext(envToConfig({ DATABASE_URL: s.url, LOG_LEVEL: 'silent' }));
    try {
      expect(await ctx.operator.verify(token)).toBe(true);
      expect(await ctx.operator.verify(`${token}0`)).toBe(false);
    } finally {
      await ctx.db.close();
    }
    const fixed = await run(s.url, 'operator-token', [], {
      STRATUS_OPERATOR_TOKEN: 'fixed-operator-token-01',
    });
    expect(fixed.code).toBe(1);
    expect(fixed.err).toMatch(/STRATUS_OPERATOR_TOKEN is set/);
  });

  it('timing set: stores the profile every process takes; bad arguments exit 2 with a message', async () => {
    const s = await store();
    drops.push(s.drop);
    const set = await run(s.url, 'timing', ['set', '--profile', 'realistic']);
    expect(set.code, set.err).toBe(0);
    const got = await run(s.url, 'timing', ['get']);
    expect(JSON.parse(got.out).profile).toBe('realistic');
    const bad = await run(s.url, 'timing', ['set', '--profile', 'warp']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--profile must be/);
    const unknown = await run(s.url, 'state', ['explode']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/unknown command: state explode/);
    const noFile = await run(s.url, 'state', ['import']);
    expect(noFile.code).toBe(2);
    expect(noFile.err).toMatch(/--file is required/);
  });
});
