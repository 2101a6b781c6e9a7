import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { envToConfig } from '../../../src/config/config.js';
import { buildApp } from '../../../src/app.js';
import { createContext } from '../../../src/context.js';
import { bootstrapAccount } from '../../../src/modules/identity/bootstrap.js';
import type { BlobStore } from '../../../src/storage/index.js';
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
      expect(await ctx.areas.controls.operator.verify(token)).toBe(true);
      expect(await ctx.areas.controls.operator.verify(`${token}0`)).toBe(false);
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

  it('state export|import: the NDJSON file carries uploaded image bytes through a reset', async () => {
    const s = await store();
    drops.push(s.drop);
    const dataDir = await mkdtemp(path.join(tmpdir(), 'stratus-cli-bytes-'));
    drops.push(() => rm(dataDir, { recursive: true, force: true }));
    const env = { STRATUS_DATA_DIR: dataDir };
    const config = envToConfig({ DATABASE_URL: s.url, LOG_LEVEL: 'silent', ...env });
    const ctx = await createContext(config);
    const image = gzipSync(Buffer.alloc(1024 * 1024, 3));
    let imageId: number;
    try {
      const { token } = await bootstrapAccount(ctx.db, ctx.clock, {
        email: 'cli@example.com',
        username: 'cli',
      });
      const app = await buildApp(ctx);
      const up = await app.inject({
        method: 'POST',
        url: '/v4/images/upload',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ region: 'us-east', label: 'cli-image' }),
      });
      expect(up.statusCode, up.body).toBe(200);
      const put = await app.inject({
        method: 'PUT',
        url: new URL(up.json().upload_to).pathname,
        headers: { 'content-type': 'application/octet-stream' },
        payload: image,
      });
      expect(put.statusCode, put.body).toBe(200);
      imageId = Number(String(up.json().image.id).split('/')[1]);
      await app.close();
    } finally {
      await ctx.runner.stop();
      await ctx.db.close();
    }
    const file = path.join(dataDir, 'snap.ndjson');
    const blobFiles = async () =>
      (await readdir(path.join(dataDir, 'images'), { recursive: true })).filter((f) =>
        /[0-9a-f]{32}$/.test(f),
      );
    expect(await blobFiles()).toHaveLength(1);
    const exported = await run(s.url, 'state', ['export', '--file', file], env);
    expect(exported.code, exported.err).toBe(0);
    expect((await readFile(file, 'utf8')).trimEnd().split('\n').at(-1)).toBe(
      '{"done":{"blobs":1}}',
    );
    expect((await run(s.url, 'state', ['reset'], env)).code).toBe(0);
    expect(await blobFiles()).toEqual([]);
    const imported = await run(s.url, 'state', ['import', '--file', file], env);
    expect(imported.code, imported.err).toBe(0);
    expect(JSON.parse(imported.out)).toMatchObject({ blobs: 1 });
    const back = await createContext(config);
    try {
      const row = await back.db.db
        .selectFrom('private_images')
        .selectAll()
        .where('id', '=', imageId)
        .executeTakeFirstOrThrow();
      expect(row.status).toBe('available');
      const chunks: Buffer[] = [];
      const blobs = (back.areas.images.images as unknown as { d: { bytes: BlobStore } }).d.bytes;
      for await (const c of await blobs.get(row.blob_key as string)) chunks.push(c as Buffer);
      expect(Buffer.concat(chunks).equals(image)).toBe(true);
    } finally {
      await back.runner.stop();
      await back.db.close();
    }
  });
});
