import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkSeed, readSeedFile } from './seed.js';

const account = (over: Record<string, unknown> = {}) => ({
  email: 'team@example.com',
  username: 'team-ci',
  ...over,
});

describe('seed files', () => {
  it('checkSeed: names the entry and field, with the value given', async () => {
    expect(await checkSeed({ accounts: [account({ username: 'ci' })] })).toEqual({
      place: 'accounts[0].username',
      problem: 'Username must be between 3 and 32 characters (got "ci")',
    });
    expect(await checkSeed({ accounts: [account(), account({ email: 'nope' })] })).toEqual({
      place: 'accounts[1].email',
      problem: 'Must be a valid email address (got "nope")',
    });
    expect(await checkSeed({ accounts: [account({ surname: 'x' })] })).toMatchObject({
      place: 'accounts[0].surname',
    });
    expect(await checkSeed({ accounts: [{ email: 'x@example.com' }] })).toMatchObject({
      place: 'accounts[0].username',
    });
  });

  it('checkSeed: usernames are unique (admin is the default account\u2019s), tokens too', async () => {
    expect(
      await checkSeed({
        accounts: [account(), account({ username: 'Team-CI', email: 'b@example.com' })],
      }),
    ).toEqual({
      place: 'accounts[1].username',
      problem: '"Team-CI" is already the username of accounts[0]',
    });
    expect(await checkSeed({ accounts: [account({ username: 'admin' })] })).toEqual({
      place: 'accounts[0].username',
      problem: '"admin" is already the default account',
    });
    const token = 'same-token-0123456789';
    expect(
      await checkSeed({
        accounts: [
          account({
            token,
            users: [{ username: 'reader', email: 'r@example.com', tokens: [{ token }] }],
          }),
        ],
      }),
    ).toEqual({
      place: 'accounts[0].users[0].tokens[0].token',
      problem: 'the same token is given twice',
    });
  });

  it('checkSeed: a token\u2019s scopes and a request\u2019s user are checked', async () => {
    expect(
      await checkSeed({
        accounts: [
          account({
            users: [
              {
                username: 'reader',
                email: 'r@example.com',
                tokens: [{ token: 'reader-token-0123456789', scopes: 'volumes:read' }],
              },
            ],
          }),
        ],
      }),
    ).toEqual({
      place: 'accounts[0].users[0].tokens[0].scopes',
      problem: '"volumes:read": unknown level "read" (read_only or read_write)',
    });
    expect(
      await checkSeed({
        accounts: [account({ users: [{ username: 'notoken', email: 'n@example.com' }] })],
        requests: [
          { as: 'team-ci', method: 'POST', path: '/v4/tags', body: { label: 'a' } },
          { as: 'notoken', method: 'POST', path: '/v4/tags', body: { label: 'b' } },
        ],
      }),
    ).toMatchObject({ place: 'requests[1].as' });
    expect(
      await checkSeed({ requests: [{ as: 'x', method: 'GET', path: '/v4/regions' }] }),
    ).toMatchObject({ place: 'requests[0].method' });
  });

  it('readSeedFile: the error names the variable, the file, the entry and the field', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'stratus-seed-'));
    const file = path.join(dir, 'seed.json');
    writeFileSync(file, JSON.stringify({ accounts: [account({ username: 'ci' })] }));
    await expect(readSeedFile(file)).rejects.toThrow(
      `STRATUS_SEED: ${file}: accounts[0].username: Username must be between 3 and 32 characters (got "ci")`,
    );
    writeFileSync(file, '{"accounts": [');
    await expect(readSeedFile(file)).rejects.toThrow(
      new RegExp(`^STRATUS_SEED: cannot read ${file}: `),
    );
  });

  it('docs/operations.md: the seed file example is a valid seed', async () => {
    const doc = readFileSync(new URL('../../../docs/operations.md', import.meta.url), 'utf8');
    const m = /A seed file \(`STRATUS_SEED=seed\.json`\)[\s\S]*?```json\n([\s\S]*?)```/.exec(doc);
    expect(m?.[1]).toBeDefined();
    expect(await checkSeed(JSON.parse(m?.[1] ?? ''))).toBeUndefined();
  });
});
