import { EMPTY_GLOBAL_GRANTS, type GlobalGrants } from '../../src/auth/principal.js';
import { isoSeconds } from '../../src/lib/time.js';
import { insertToken, insertUser } from '../../src/modules/identity/identity.repository.js';
import type { TestApp } from './build-test-app.js';

export interface TestUserOptions {
  username?: string;
  restricted?: boolean;
  scopes?: string;
  global?: Partial<GlobalGrants>;
  /** Per-entity grants. */
  grants?: { type: string; id: number; permissions: 'read_only' | 'read_write' }[];
  accountId?: number;
  expiry?: string | null;
}

let counter = 0;

/** Adds a user (restricted by default) with grants and a token; returns its token. */
export async function createTestUser(
  t: TestApp,
  o: TestUserOptions = {},
): Promise<{ userId: number; username: string; token: string }> {
  const db = t.ctx.db;
  const now = isoSeconds(t.clock.nowMs());
  const username = o.username ?? `user${++counter}x${Math.floor(Math.random() * 1e6)}`;
  const accountId = o.accountId ?? t.admin.accountId;
  const userId = await insertUser(
    db,
    { accountId, username, email: `${username}@example.com`, restricted: o.restricted ?? true },
    now,
  );
  await db.db
    .updateTable('users')
    .set({ global_grants: JSON.stringify({ ...EMPTY_GLOBAL_GRANTS, ...(o.global ?? {}) }) })
    .where('id', '=', userId)
    .execute();
  for (const g of o.grants ?? []) {
    await db.db
      .insertInto('entity_grants')
      .values({ user_id: userId, entity_type: g.type, entity_id: g.id, permissions: g.permissions })
      .execute();
  }
  const { token } = await insertToken(
    db,
    {
      accountId,
      userId,
      kind: 'pat',
      label: 'test',
      scopes: o.scopes ?? '*',
      expiry: o.expiry ?? null,
    },
    now,
  );
  return { userId, username, token };
}
