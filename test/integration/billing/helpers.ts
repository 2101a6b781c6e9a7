import type { TestApp } from '../../helpers/build-test-app.js';

export const STRONG = 's3cr3t-P4ssw0rd!';
/** Test cards of the payment processor simulator (docs/fidelity.md). */
export const CARD_OK = '4111111111111111';
export const CARD_DECLINED = '4000000000000002';
export const CARD_ERROR = '4000000000000119';

/** Moves the clock to `iso` (UTC), running every job that falls due on the way. */
export async function advanceTo(t: TestApp, iso: string): Promise<void> {
  const target = Date.parse(iso);
  const now = t.clock.nowMs();
  if (target < now) throw new Error(`advanceTo: ${iso} is in the past`);
  await t.ctx.areas.controls.controls.advance(target - now);
}

/** A zip on the account and a default card (the test card that succeeds unless named). */
export async function addCard(t: TestApp, number = CARD_OK, token?: string): Promise<void> {
  const opts = token ? { token } : {};
  const z = await t.put('/v4/account', { zip: '19106' }, opts);
  if (z.status !== 200) throw new Error(JSON.stringify(z.body));
  const r = await t.post(
    '/v4/account/payment-methods',
    {
      type: 'credit_card',
      is_default: true,
      data: { card_number: number, cvv: '123', expiry_month: 12, expiry_year: 2030 },
    },
    opts,
  );
  if (r.status !== 200) throw new Error(JSON.stringify(r.body));
}

export async function createInstance(
  t: TestApp,
  extra: Record<string, unknown> = {},
  token?: string,
): Promise<number> {
  const r = await t.post(
    '/v4/compute/instances',
    {
      region: 'us-east',
      type: 'g6-nanode-1',
      image: 'compute/debian12',
      root_pass: STRONG,
      ...extra,
    },
    token ? { token } : {},
  );
  if (r.status !== 200) throw new Error(`create failed: ${JSON.stringify(r.body)}`);
  await t.settle();
  return r.body.id as number;
}

export async function account(t: TestApp, token?: string) {
  const r = await t.get('/v4/account', token ? { token } : {});
  return r.body as { balance: number; balance_uninvoiced: number };
}

export async function invoices(t: TestApp) {
  return (await t.get('/v4/account/invoices')).body.data as {
    id: number;
    subtotal: number;
    tax: number;
    total: number;
    date: string;
    label: string;
    tax_summary: unknown[];
  }[];
}

export async function items(t: TestApp, invoiceId: number) {
  return (await t.get(`/v4/account/invoices/${invoiceId}/items`)).body.data as {
    label: string;
    from: string;
    to: string;
    quantity: number;
    unit_price: string;
    amount: number;
    tax: number;
    total: number;
    region: string | null;
    type: string;
  }[];
}
