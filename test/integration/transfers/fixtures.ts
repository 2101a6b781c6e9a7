import { expect } from 'vitest';
import { bootstrapAccount } from '../../../src/modules/identity/bootstrap.js';
import { addCard, CARD_OK } from '../billing/helpers.js';
import type { TestApp } from '../../helpers/build-test-app.js';

export const STRONG = 's3cr3t-P4ssw0rd!';
let n = 0;

/**
 * A second account with an unrestricted user: its token. It has a payment method (a receiver
 * needs one to accept) unless `card` is false.
 */
export async function otherAccount(
  t: TestApp,
  opts: { card?: boolean } = {},
): Promise<{ token: string; accountId: number }> {
  n += 1;
  const r = await bootstrapAccount(t.ctx.db, t.clock, {
    email: `receiver${n}@example.com`,
    username: `receiver${n}x${Math.floor(Math.random() * 1e6)}`,
  });
  if (opts.card !== false) await addCard(t, CARD_OK, r.token);
  return { token: r.token, accountId: r.accountId };
}

/** An instance from an image (disks, a config, addresses), settled. */
export async function instance(
  t: TestApp,
  body: Record<string, unknown> = {},
  token?: string,
): Promise<{ id: number; label: string }> {
  const r = await t.post(
    '/v4/compute/instances',
    {
      region: 'us-east',
      type: 'g6-nanode-1',
      image: 'compute/debian12',
      root_pass: STRONG,
      ...body,
    },
    token ? { token } : {},
  );
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  await t.settle();
  return r.body;
}

export async function createTransfer(
  t: TestApp,
  computes: number[],
  token?: string,
  path = 'service-transfers',
) {
  return t.post(`/v4/account/${path}`, { entities: { computes } }, token ? { token } : {});
}

/** The events with this action in an account's feed (newest first). */
export async function eventsOf(t: TestApp, action: string, token?: string) {
  const r = await t.get('/v4/account/events', {
    filter: { action },
    ...(token ? { token } : {}),
  });
  expect(r.status).toBe(200);
  return r.body.data as {
    action: string;
    status: string;
    username: string | null;
    entity: { id: number; type: string; label: string; url: string };
  }[];
}
