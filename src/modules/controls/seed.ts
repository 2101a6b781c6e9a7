import { readFileSync } from 'node:fs';
import { type Static, Type } from '@sinclair/typebox';
import type { Database } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { isoSeconds } from '../../lib/time.js';
import { scopeProblem } from '../../auth/scopes.js';
import { ConfigError } from '../../config/config-error.js';
import { errors } from '../../errors/errors.js';
import { hashSecret } from '../../lib/secrets.js';
import { bootstrapAccount } from '../identity/bootstrap.js';
import { emailProblem, usernameProblem } from '../identity/identity.rules.js';
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
    username: Type.String(),
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
    username: Type.String(),
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

/** `/accounts/0/username` → `accounts[0].username`. */
export function placeOf(pointer: string): string {
  const parts = pointer.split('/').slice(1);
  let out = '';
  for (const p of parts) out += /^\d+$/.test(p) ? `[${p}]` : out === '' ? p : `.${p}`;
  return out === '' ? '(the document)' : out;
}

export interface SeedProblem {
  /** Where, as `accounts[0].username`. */
  place: string;
  problem: string;
}

/**
 * Every rule a seed's entries must meet, beyond the schema: the API's username, email and scope
 * rules, usernames unique (the default account's `admin` included) and tokens unique, and each
 * request made as a user the seed gives a token. The first problem, or undefined.
 */
export function seedProblem(seed: SeedFile): SeedProblem | undefined {
  const names = new Map<string, string>([['admin', 'the default account']]);
  const tokens = new Set<string>();
  const withToken = new Set<string>();
  const user = (place: string, username: string, email: string): SeedProblem | undefined => {
    const u = usernameProblem(username);
    if (u) return { place: `${place}.username`, problem: `${u} (got "${username}")` };
    const e = emailProblem(email);
    if (e) return { place: `${place}.email`, problem: `${e} (got "${email}")` };
    const taken = names.get(username.toLowerCase());
    if (taken) {
      return { place: `${place}.username`, problem: `"${username}" is already ${taken}` };
    }
    names.set(username.toLowerCase(), `the username of ${place}`);
    return undefined;
  };
  const token = (place: string, value: string): SeedProblem | undefined => {
    if (tokens.has(value)) return { place, problem: 'the same token is given twice' };
    tokens.add(value);
    return undefined;
  };
  for (const [i, a] of (seed.accounts ?? []).entries()) {
    const at = `accounts[${i}]`;
    const p =
      user(at, a.username, a.email) ?? (a.token ? token(`${at}.token`, a.token) : undefined);
    if (p) return p;
    withToken.add(a.username.toLowerCase());
    for (const [j, u] of (a.users ?? []).entries()) {
      const uat = `${at}.users[${j}]`;
      const up = user(uat, u.username, u.email);
      if (up) return up;
      for (const [k, t] of (u.tokens ?? []).entries()) {
        const tat = `${uat}.tokens[${k}]`;
        const tp = token(`${tat}.token`, t.token);
        if (tp) return tp;
        const sp = t.scopes === undefined ? undefined : scopeProblem(t.scopes);
        if (sp) return { place: `${tat}.scopes`, problem: sp };
        withToken.add(u.username.toLowerCase());
      }
    }
  }
  for (const [i, r] of (seed.requests ?? []).entries()) {
    if (!withToken.has(r.as.toLowerCase())) {
      return {
        place: `requests[${i}].as`,
        problem: `"${r.as}" is not a user of this seed with a token (an account's first user, or a user with tokens)`,
      };
    }
  }
  return undefined;
}

/** A seed document's first problem (schema, then rules), or undefined. */
export async function checkSeed(data: unknown): Promise<SeedProblem | undefined> {
  // Loaded on demand: only a seed needs the checker.
  const { Value } = await import('@sinclair/typebox/value');
  const first = Value.Errors(SeedFileSchema, data).First();
  if (first) {
    const got = first.value === undefined ? '' : ` (got ${JSON.stringify(first.value)})`;
    return { place: placeOf(first.path), problem: `${first.message}${got}` };
  }
  return seedProblem(data as SeedFile);
}

/**
 * Reads and checks a seed file (every start reads it, so a bad one stops the start before
 * anything is written). The error names the variable, the file, the entry and the field:
 * `STRATUS_SEED: /srv/seed.json: accounts[0].username: Username must be … (got "ci")`.
 */
export async function readSeedFile(file: string): Promise<SeedFile> {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError('STRATUS_SEED', `cannot read ${file}: ${(err as Error).message}`);
  }
  const problem = await checkSeed(data);
  if (problem)
    throw new ConfigError('STRATUS_SEED', `${file}: ${problem.place}: ${problem.problem}`);
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
    result.tokens.set(a.username.toLowerCase(), b.token);
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
        if (!result.tokens.has(u.username.toLowerCase()))
          result.tokens.set(u.username.toLowerCase(), t.token);
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
    const token = tokens.get(r.as.toLowerCase());
    if (!token) {
      throw new ConfigError(
        'STRATUS_SEED',
        `requests[${i}].as: no seeded token for user "${r.as}"`,
      );
    }
    const res = await inject({
      method: r.method,
      url: r.path,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(r.body !== undefined ? { payload: JSON.stringify(r.body) } : {}),
    });
    if (res.statusCode >= 300) {
      throw new ConfigError(
        'STRATUS_SEED',
        `requests[${i}] ${r.method} ${r.path}: ${res.statusCode} ${res.body}`,
      );
    }
    n++;
  }
  return n;
}

/**
 * `POST /_stratus/seed`: a seed document applied now, beside the existing state (a test's own
 * accounts). Checked as a seed file is, and against the database: a username or token already
 * taken is a 400 naming the place, and nothing is written. Returns what a first start prints.
 */
export async function applySeedNow(
  db: Database,
  clock: Clock,
  data: unknown,
): Promise<SeedResult & { file: SeedFile }> {
  const problem = await checkSeed(data);
  if (problem) throw errors.invalidField(problem.place, problem.problem);
  const seed = data as SeedFile;
  return db.transaction(async (tx) => {
    for (const [i, a] of (seed.accounts ?? []).entries()) {
      const names: [string, string][] = [
        [`accounts[${i}].username`, a.username],
        ...(a.users ?? []).map((u, j): [string, string] => [
          `accounts[${i}].users[${j}].username`,
          u.username,
        ]),
      ];
      for (const [place, name] of names) {
        const taken = await tx.db
          .selectFrom('users')
          .select('id')
          .where((eb) => eb(eb.fn('lower', ['username']), '=', name.toLowerCase()))
          .executeTakeFirst();
        if (taken) throw errors.invalidField(place, `Username "${name}" is taken.`);
      }
      const tokens: [string, string][] = [
        ...(a.token ? [[`accounts[${i}].token`, a.token] as [string, string]] : []),
        ...(a.users ?? []).flatMap((u, j) =>
          (u.tokens ?? []).map((t, k): [string, string] => [
            `accounts[${i}].users[${j}].tokens[${k}].token`,
            t.token,
          ]),
        ),
      ];
      for (const [place, token] of tokens) {
        const taken = await tx.db
          .selectFrom('tokens')
          .select('id')
          .where('token_hash', '=', hashSecret(token))
          .executeTakeFirst();
        if (taken) throw errors.invalidField(place, 'This token is taken.');
      }
    }
    return { file: seed, ...(await seedIdentities(tx, clock, seed)) };
  });
}
