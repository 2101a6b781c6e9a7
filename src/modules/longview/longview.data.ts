/** A Longview Pro tier (`GET /longview/subscriptions`): US dollars. */
export interface LongviewSubscription {
  id: 'longview-3' | 'longview-10' | 'longview-40' | 'longview-100';
  label: string;
  clients_included: number;
  price: { hourly: number; monthly: number };
}

/** The Longview Pro tiers, as the real service lists them (in its order). */
export const LONGVIEW_SUBSCRIPTIONS: readonly LongviewSubscription[] = [
  {
    id: 'longview-10',
    label: 'Longview Pro 10 pack',
    clients_included: 10,
    price: { hourly: 0.06, monthly: 40 },
  },
  {
    id: 'longview-100',
    label: 'Longview Pro 100 pack',
    clients_included: 100,
    price: { hourly: 0.3, monthly: 200 },
  },
  {
    id: 'longview-3',
    label: 'Longview Pro 3 pack',
    clients_included: 3,
    price: { hourly: 0.03, monthly: 20 },
  },
  {
    id: 'longview-40',
    label: 'Longview Pro 40 pack',
    clients_included: 40,
    price: { hourly: 0.15, monthly: 100 },
  },
];

/** Clients an account on Longview Free may have. */
export const FREE_CLIENTS = 10;

export function subscription(id: string | null | undefined): LongviewSubscription | undefined {
  return LONGVIEW_SUBSCRIPTIONS.find((s) => s.id === id);
}

/** How many clients a plan allows (Free when `id` is null). */
export function clientsAllowed(id: string | null): number {
  return subscription(id)?.clients_included ?? FREE_CLIENTS;
}
