import { readFileSync } from 'node:fs';
import { type Static, Type } from '@sinclair/typebox';
import type { Database } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { isoSeconds } from '../../lib/time.js';
import { bootstrapAccount } from '../identity/bootstrap.js';
import { insertToken, insertUser } from '../identity/identity.repository.js';

const TokenText = Type.String({ pattern: '^[A-Za-z0-9_\\-.]{16,128}$' });
const SeedToken = Type.Object(
  {
    token: TokenText,
    scopes: Type.Optional(Type.String({ minLength: 1 })),
    label: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false },
);
const SeedUser = Type.Object(
  {
    username: Type.String({ minLength: 3, maxLength: 32 }),
    email: Type.String({ minLength: 3 }),
    restricted: Type.Optional(Type.Boolean()),
    tokens: Type.Optional(Type.Array(SeedToken)),
  },
  { additionalProperties: false },
);
const SeedAccount = Type.Object(
  {
    email: Type.String({ minLength: 3 }),
    /** The account's first, unrestricted user. */
    username: Type.String({ minLength: 3, maxLength: 32 }),
    /** That user's `*` token; random (and shown once) when absent. */
    token: Type.Optional(TokenText),
    users: Type.Optional(Type.Array(SeedUser)),
  },
  { additionalProperties: false },
);
const SeedRequest = Type.Object(
  {
    /** A seeded user with a token (an account's first user, or one with `tokens`). */
    as: Type.String(),
    method: Type.Union([Type.Literal('POST'), Type.Literal('PUT'), Type.Literal('DELETE')]),
    path: Type.String({ pattern: '^/v4(beta)?/' }),
    body: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);
export const SeedFileSchema = Type.Object(
  {
    accounts: Type.Optional(Type.Array(SeedAccount)),
    /** API requests made after the accounts exist: entities go through the same rules. */
    requests: Type.Optional(Type.Array(SeedRequest)),
  },
  { additionalProperties: false },
);
export type SeedFile = Static<typeof SeedFileSchema>;

/** Reads and checks a seed file; the error names the file and the first bad place. */
export async function readSeedFile(file: string): Promise<SeedFile> {
  // Loaded on demand: only a first start with a seed file needs the checker.
  const { Value } = await import('@sinclair/typebox/value');
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`STRATUS_SEED: cannot read ${file}: ${(err as Error).message}`);
  }
  const first = Value.Errors(SeedFileSchema, data).First();
  if (first) throw new Error(`STRATUS_SEED: ${file}${first.path || '/'}: ${first.message}`);
  return data as SeedFile;
}

export interface SeededAccount {
  euuid: string;
  username: string;
  /** Present when it was generated: shown once. */
  token?: string;
}

export interface SeedResult {
  accounts: SeededAccount[];
  /** A token per username, for the requests. */
  tokens: Map<string, string>;
}

/** Writes the seed's accounts, users and tokens (inside the caller's transaction). */
export async function seedIdentities(
  tx: Database,
  clock: Clock,
  seed: SeedFile,
): Promise<SeedResult> {
  const result: SeedResult = { accounts: [], tokens: new Map() };
  const now = isoSeconds(clock.nowMs());
  for (const a of seed.accounts ?? []) {
    const b = await bootstrapAccount(tx, clock, {
      email: a.email,
      username: a.username,
      ...(a.token ? { token: a.token } : {}),
    });
    result.tokens.set(a.username, b.token);
    result.accounts.push({
      euuid: b.euuid,
      username: a.username,
      ...(a.token ? {} : { token: b.token }),
    });
    for (const u of a.users ?? []) {
      const userId = await insertUser(
        tx,
        {
          accountId: b.accountId,
          username: u.username,
          email: u.email,
          restricted: u.restricted ?? false,
        },
        now,
      );
      for (const t of u.tokens ?? []) {
        await insertToken(
          tx,
          {
            accountId: b.accountId,
            userId,
            kind: 'pat',
            label: t.label ?? 'seed',
            scopes: t.scopes ?? '*',
            expiry: null,
            plaintext: t.token,
          },
          now,
        );
        if (!result.tokens.has(u.username)) result.tokens.set(u.username, t.token);
      }
    }
  }
  return result;
}

export type Inject = (req: {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  headers: Record<string, string>;
  payload?: string;
}) => Promise<{ statusCode: number; body: string }>;

/** Makes the seed's API requests in order; the first refused one stops the seeding. */
export async function seedRequests(
  inject: Inject,
  seed: SeedFile,
  tokens: Map<string, string>,
): Promise<number> {
  let n = 0;
  for (const [i, r] of (seed.requests ?? []).entries()) {
    const token = tokens.get(r.as);
    if (!token) throw new Error(`STRATUS_SEED: requests[${i}]: no seeded token for user "${r.as}"`);
    const res = await inject({
      method: r.method,
      url: r.path,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(r.body !== undefined ? { payload: JSON.stringify(r.body) } : {}),
    });
    if (res.statusCode >= 300) {
      throw new Error(
        `STRATUS_SEED: requests[${i}] ${r.method} ${r.path}: ${res.statusCode} ${res.body}`,
      );
    }
    n++;
  }
  return n;
}
