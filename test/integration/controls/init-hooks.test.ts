import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { envToConfig } from '../../../src/config/config.js';
import { type Running, serve } from '../../../src/main.js';
import { sharedDatabase } from '../../helpers/shared-database.js';

const OPERATOR = 'operator-token-init-0123';
const ADMIN = 'admin-token-init-0123456';

/** A server started as `stratus serve` would be, on a fresh database, with an init folder. */
async function start(dir: string, db: string) {
  const lines: string[] = [];
  const running = await serve(
    envToConfig({
      DATABASE_URL: db,
      PORT: '0',
      STRATUS_TIMING: 'instant',
      STRATUS_RATE_LIMITS: 'off',
      STRATUS_OPERATOR_TOKEN: OPERATOR,
      STRATUS_ADMIN_TOKEN: ADMIN,
      STRATUS_INIT_DIR: dir,
      STRATUS_DATA_DIR: dir,
      LOG_LEVEL: 'silent',
    }),
    (l) => lines.push(l),
  );
  return { running, lines };
}

async function call(base: string, token: string, method: string, url: string, body?: unknown) {
  const r = await fetch(`${base}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}

const labels = (r: { body: { data: { label: string }[] } }) => r.body.data.map((x) => x.label);

describe('init hooks (STRATUS_INIT_DIR)', () => {
  let dir: string;
  let hooks: string;
  let db: { url: string; drop: () => Promise<void> };
  let running: Running | undefined;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'stratus-init-'));
    hooks = path.join(dir, 'init');
    await import('node:fs/promises').then((f) => f.mkdir(hooks));
    db = await sharedDatabase('init');
  });
  afterEach(async () => {
    await running?.close();
    running = undefined;
    await db.drop();
    await rm(dir, { recursive: true, force: true });
  });

  async function writeHooks() {
    await writeFile(
      path.join(hooks, '10-volume.json'),
      JSON.stringify({
        requests: [
          {
            method: 'POST',
            path: '/v4/volumes',
            body: { label: 'from-init', region: 'us-east', size: 20 },
          },
        ],
      }),
    );
    // A script: the API over HTTP with the token it is given; its environment noted in a file.
    await writeFile(
      path.join(hooks, '20-tag.mjs'),
      `import { writeFileSync } from 'node:fs';
const r = await fetch(process.env.STRATUS_API_URL + '/tags', {
  method: 'POST',
  headers: { authorization: 'Bearer ' + process.env.STRATUS_TOKEN, 'content-type': 'application/json' },
  body: JSON.stringify({ label: 'init-' + process.env.STRATUS_INIT_STAGE }),
});
if (r.status !== 200) { console.error('tag', r.status, await r.text()); process.exit(1); }
writeFileSync('seen-' + process.env.STRATUS_INIT_STAGE, process.env.STRATUS_URL);
`,
    );
    await writeFile(path.join(hooks, '30-note.sh'), 'echo "$STRATUS_INIT_STAGE" >> stages.txt\n');
    await writeFile(path.join(hooks, 'README.txt'), 'not a hook');
  }

  it('first start: request files and scripts run in name order, after the start, with a token of admin', async () => {
    await writeHooks();
    const s = await start(hooks, db.url);
    running = s.running;
    const base = s.running.url;
    expect(s.lines).toContain('Init hooks (STRATUS_INIT_DIR): 3 file(s) applied.');
    const vols = await call(base, ADMIN, 'GET', '/v4/volumes');
    expect(labels(vols)).toEqual(['from-init']);
    const tags = await call(base, ADMIN, 'GET', '/v4/tags');
    expect(labels(tags)).toEqual(['init-first-start']);
    expect(await readFile(path.join(hooks, 'seen-first-start'), 'utf8')).toBe(base);
    expect(await readFile(path.join(hooks, 'stages.txt'), 'utf8')).toBe('first-start\n');
    // The token the hooks acted with is gone: admin has only its own.
    const tokens = await call(base, ADMIN, 'GET', '/v4/profile/tokens');
    expect(labels(tokens)).toEqual(['bootstrap']);
    const health = await call(base, OPERATOR, 'GET', '/_stratus/health');
    expect(health.body.init).toMatchObject({
      stage: 'first-start',
      status: 'done',
      files: [
        { file: '10-volume.json', status: 'done', requests: 1 },
        { file: '20-tag.mjs', status: 'done', exit_code: 0 },
        { file: '30-note.sh', status: 'done', exit_code: 0 },
      ],
    });
    expect((await fetch(`${base}/_stratus/ready`)).status).toBe(200);
  });

  it('reset: the hooks run again after every full reset (not after one account\u2019s), and the answer shows the run', async () => {
    await writeHooks();
    const s = await start(hooks, db.url);
    running = s.running;
    const base = s.running.url;
    await call(base, ADMIN, 'POST', '/v4/volumes', { label: 'later', region: 'us-east', size: 20 });
    const r = await call(base, OPERATOR, 'POST', '/_stratus/reset');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ scope: 'all', init: { stage: 'reset', status: 'done' } });
    expect(r.body.init.files.map((f: { file: string }) => f.file)).toEqual([
      '10-volume.json',
      '20-tag.mjs',
      '30-note.sh',
    ]);
    expect(labels(await call(base, ADMIN, 'GET', '/v4/volumes'))).toEqual(['from-init']);
    expect(labels(await call(base, ADMIN, 'GET', '/v4/tags'))).toEqual(['init-reset']);
    const euuid = (await call(base, ADMIN, 'GET', '/v4/account')).body.euuid;
    const one = await call(base, OPERATOR, 'POST', '/_stratus/reset', { euuid });
    expect(one.body).toEqual({ scope: 'account', euuid });
    expect(await readFile(path.join(hooks, 'stages.txt'), 'utf8')).toBe('first-start\nreset\n');
  });

  it('init: a failing hook stops the run; ready answers 503 and health names it; the reset answer is a 400 with its output', async () => {
    await writeFile(path.join(hooks, '10-ok.sh'), 'true\n');
    await writeFile(path.join(hooks, '20-fails.sh'), 'echo "no network here" >&2\nexit 3\n');
    await chmod(path.join(hooks, '20-fails.sh'), 0o644);
    await writeFile(
      path.join(hooks, '30-never.json'),
      JSON.stringify([{ method: 'POST', path: '/v4/tags', body: { label: 'never' } }]),
    );
    const s = await start(hooks, db.url);
    running = s.running;
    const base = s.running.url;
    expect(s.lines.at(-1)).toBe(
      'Init hooks (STRATUS_INIT_DIR): 20-fails.sh failed: exited with 3 (see /_stratus/health)',
    );
    const ready = await fetch(`${base}/_stratus/ready`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { problems: string[] }).problems).toEqual([
      'init hook 20-fails.sh failed: exited with 3',
    ]);
    const health = await call(base, OPERATOR, 'GET', '/_stratus/health');
    expect(health.body.init.files).toEqual([
      expect.objectContaining({ file: '10-ok.sh', status: 'done' }),
      expect.objectContaining({
        file: '20-fails.sh',
        status: 'failed',
        exit_code: 3,
        output: 'no network here\n',
      }),
      { file: '30-never.json', status: 'skipped' },
    ]);
    expect(labels(await call(base, ADMIN, 'GET', '/v4/tags'))).toEqual([]);

    const r = await call(base, OPERATOR, 'POST', '/_stratus/reset');
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      errors: [
        {
          reason:
            'The state was reset, then init hook 20-fails.sh failed: exited with 3; its output ends: no network here\n',
        },
      ],
    });
    // Fixed, the next reset makes it ready.
    await writeFile(path.join(hooks, '20-fails.sh'), 'true\n');
    expect((await call(base, OPERATOR, 'POST', '/_stratus/reset')).status).toBe(200);
    expect((await fetch(`${base}/_stratus/ready`)).status).toBe(200);
    expect(labels(await call(base, ADMIN, 'GET', '/v4/tags'))).toEqual(['never']);
  });

  it('init: a request file acts as the user it names; a bad file fails naming the place', async () => {
    await writeFile(
      path.join(hooks, '10-user.json'),
      JSON.stringify([
        {
          method: 'POST',
          path: '/v4/account/users',
          body: { username: 'builder', email: 'b@example.com', restricted: false },
        },
        { as: 'builder', method: 'POST', path: '/v4/tags', body: { label: 'by-builder' } },
      ]),
    );
    await writeFile(
      path.join(hooks, '20-bad.json'),
      JSON.stringify([{ method: 'PATCH', path: '/v4/tags' }]),
    );
    const s = await start(hooks, db.url);
    running = s.running;
    const base = s.running.url;
    expect(labels(await call(base, ADMIN, 'GET', '/v4/tags'))).toEqual(['by-builder']);
    const health = await call(base, OPERATOR, 'GET', '/_stratus/health');
    expect(health.body.init.files[1]).toMatchObject({
      file: '20-bad.json',
      status: 'failed',
      error: expect.stringMatching(/^\[0\]\.method: /),
    });
  });

  it('serve: STRATUS_INIT_DIR that is not a directory stops the start naming it', async () => {
    const file = path.join(dir, 'plain');
    await writeFile(file, '');
    await expect(start(file, db.url)).rejects.toThrow(
      `STRATUS_INIT_DIR: ${file} is not a directory`,
    );
  });
});
