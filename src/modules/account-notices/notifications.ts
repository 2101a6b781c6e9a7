import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import type { ApiNotification } from './notices.schemas.js';

/** What a notification provider sees: the caller, its account's state, the clock's now. */
export interface NoticeContext {
  db: Database;
  p: Principal;
  nowMs: number;
}

/**
 * One source of notifications, derived on read from the account's state: an entry exists while
 * its cause does and disappears with it. Areas (billing, …) add their own to the list.
 */
export type NotificationProvider = (c: NoticeContext) => Promise<ApiNotification[]>;

const computeRef = (id: number, label: string) => ({
  id,
  label,
  type: 'compute',
  url: `/v4/compute/instances/${id}`,
});

/** Pending or started maintenance of instances the caller may view. */
export const maintenanceNotices: NotificationProvider = async ({ db, p }) => {
  let q = db.db
    .selectFrom('maintenances')
    .innerJoin('instances', 'instances.id', 'maintenances.entity_id')
    .select([
      'maintenances.type',
      'maintenances.reason',
      'maintenances.when',
      'maintenances.until',
      'instances.id as instance_id',
      'instances.label',
    ])
    .where('maintenances.entity_type', '=', 'compute')
    .where('maintenances.status', 'in', ['pending', 'started'])
    .where('instances.account_id', '=', p.accountId)
    .orderBy('maintenances.when_ms')
    .orderBy('maintenances.id');
  const visible = authz.visible(p, 'compute', 'instances.id');
  if (visible) q = q.where(visible);
  return (await q.execute()).map((r) => ({
    entity: computeRef(r.instance_id, r.label),
    label: `Scheduled maintenance for ${r.label}`,
    message: `${r.label} has scheduled ${r.type.replaceAll('_', ' ')} maintenance from ${r.when} to ${r.until}${r.reason ? `: ${r.reason}` : '.'}`,
    body: null,
    type: 'maintenance',
    severity: 'major',
    when: r.when,
    until: r.until,
  }));
};

/** Instances with a migration queued or under way (compute's `pending_migration`). */
export const migrationNotices: NotificationProvider = async ({ db, p }) => {
  let q = db.db
    .selectFrom('instances')
    .select(['id', 'label', 'updated'])
    .where('account_id', '=', p.accountId)
    .where('pending_migration', 'is not', null)
    .orderBy('id');
  const visible = authz.visible(p, 'compute', 'instances.id');
  if (visible) q = q.where(visible);
  return (await q.execute()).map((r) => ({
    entity: computeRef(r.id, r.label),
    label: 'You have a migration pending!',
    message: `${r.label} has a migration pending.`,
    body: null,
    type: 'migration_pending',
    severity: 'major',
    when: r.updated,
    until: null,
  }));
};

/** An outstanding balance (unrestricted users and those with account access). */
export const balanceNotices: NotificationProvider = async ({ db, p }) => {
  if (p.restricted && p.globalGrants.account_access === null) return [];
  const account = await db.db
    .selectFrom('accounts')
    .select(['balance_cents', 'euuid'])
    .where('id', '=', p.accountId)
    .executeTakeFirst();
  if (!account || account.balance_cents <= 0) return [];
  const amount = (account.balance_cents / 100).toFixed(2);
  return [
    {
      entity: { id: null, label: account.euuid, type: 'account', url: '/v4/account' },
      label: 'You have an outstanding balance.',
      message: `Your account has an outstanding balance of $${amount}. Please make a payment.`,
      body: null,
      type: 'payment_due',
      severity: 'critical',
      when: null,
      until: null,
    },
  ];
};

/** Transfers the account sent that are still pending, until they expire (unrestricted users). */
export const transferNotices: NotificationProvider = async ({ db, p, nowMs }) => {
  if (p.restricted) return [];
  const rows = await db.db
    .selectFrom('service_transfers')
    .select(['id', 'token', 'created', 'expiry'])
    .where('account_id', '=', p.accountId)
    .where('status', '=', 'pending')
    .where('expiry_ms', '>', nowMs)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({
    entity: {
      id: r.id,
      label: r.token,
      type: 'entity_transfer',
      url: `/v4/account/service-transfers/${r.token}`,
    },
    label: 'A service transfer is pending.',
    message: `Service transfer ${r.token} waits for the receiving account and expires at ${r.expiry}.`,
    body: null,
    type: 'notice',
    severity: 'minor',
    when: r.created,
    until: r.expiry,
  }));
};

/** Every provider, in the order their entries are listed. */
export const defaultNotificationProviders: NotificationProvider[] = [
  balanceNotices,
  maintenanceNotices,
  migrationNotices,
  transferNotices,
];
