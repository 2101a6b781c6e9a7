import type { Selectable } from 'kysely';
import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { fromBool, parseJson, toBool } from '../../db/database.js';
import { errors } from '../../errors/errors.js';
import { defaultCard } from '../billing/payment-methods.service.js';
import { entityRefs } from '../events/events.types.js';
import type { EventWriter } from '../events/events.writer.js';
import type { AccountsTable } from '../identity/identity.table.js';
import { maintenancePolicyError } from '../compute/compute.schemas.js';
import { validateAccountUpdate } from './account.rules.js';
import type {
  Account,
  AccountSettings,
  AccountSettingsUpdate,
  AccountUpdate,
  InterfacesForNewComputes,
} from './account.schemas.js';

type AccountRow = Selectable<AccountsTable>;

export function toAccount(
  r: AccountRow,
  card: Account['credit_card'] = { last_four: null, expiry: null },
): Account {
  return {
    active_promotions: [],
    active_since: r.active_since,
    address_1: r.address_1,
    address_2: r.address_2,
    balance: r.balance_cents / 100,
    balance_uninvoiced: r.balance_uninvoiced_cents / 100,
    billing_source: r.billing_source,
    capabilities: parseJson<string[]>(r.capabilities, []),
    city: r.city,
    company: r.company,
    country: r.country,
    // The default payment method's card (null fields while the account has none).
    credit_card: card,
    email: r.email,
    euuid: r.euuid,
    first_name: r.first_name,
    last_name: r.last_name,
    phone: r.phone,
    state: r.state,
    tax_id: r.tax_id,
    zip: r.zip,
  };
}

export function toAccountSettings(r: AccountRow): AccountSettings {
  return {
    managed: toBool(r.managed),
    longview_subscription: r.longview_subscription,
    network_helper: toBool(r.network_helper),
    backups_enabled: toBool(r.backups_enabled),
    object_storage: r.object_storage as AccountSettings['object_storage'],
    maintenance_policy: r.maintenance_policy,
    interfaces_for_new_computes: (r.interfaces_for_new_computes ??
      'legacy_config_default_but_compute_allowed') as InterfacesForNewComputes,
  };
}

async function accountRow(db: Database, accountId: number): Promise<AccountRow> {
  const row = await db
    .forUpdate(db.db.selectFrom('accounts').selectAll().where('id', '=', accountId))
    .executeTakeFirst();
  if (!row) throw errors.invalidToken();
  return row;
}

/** The caller's account: contact and billing data, and the account-wide settings. */
export class AccountService {
  constructor(
    private readonly db: Database,
    private readonly events: EventWriter,
    /** The current month's accrual in cents (the billing engine): `balance_uninvoiced`. */
    private readonly uninvoiced?: (db: Database, accountId: number) => Promise<number>,
  ) {}

  /** The account row with `balance_uninvoiced_cents` as the billing engine computes it now. */
  private async billed(db: Database, accountId: number): Promise<AccountRow> {
    const row = await accountRow(db, accountId);
    if (this.uninvoiced) row.balance_uninvoiced_cents = await this.uninvoiced(db, accountId);
    return row;
  }

  async get(p: Principal): Promise<Account> {
    authz.requireAccountAccess(p, 'read_only');
    return toAccount(
      await this.billed(this.db, p.accountId),
      await defaultCard(this.db, p.accountId),
    );
  }

  /** PUT /account: contact and billing fields; event `account_update`. */
  async update(p: Principal, body: AccountUpdate): Promise<Account> {
    authz.requireAccountAccess(p, 'read_write');
    return this.db.transaction(async (tx) => {
      const current = await accountRow(tx, p.accountId);
      const changes = validateAccountUpdate(body, current);
      if (Object.keys(changes).length > 0) {
        await tx.db.updateTable('accounts').set(changes).where('id', '=', p.accountId).execute();
      }
      await this.events.record(tx, {
        accountId: p.accountId,
        action: 'account_update',
        entity: entityRefs.account(current.euuid),
        status: 'notification',
        username: p.username,
      });
      return toAccount(await this.billed(tx, p.accountId), await defaultCard(tx, p.accountId));
    });
  }

  async getSettings(p: Principal): Promise<AccountSettings> {
    authz.requireAccountAccess(p, 'read_only');
    return toAccountSettings(await accountRow(this.db, p.accountId));
  }

  /**
   * PUT /account/settings: `backups_enabled`, `network_helper`, `interfaces_for_new_computes`,
   * `maintenance_policy` (one of `/maintenance/policies`); event `account_settings_update`.
   */
  async updateSettings(p: Principal, body: AccountSettingsUpdate): Promise<AccountSettings> {
    authz.requireAccountAccess(p, 'read_write');
    const policyError =
      body.maintenance_policy !== undefined
        ? maintenancePolicyError(body.maintenance_policy)
        : undefined;
    if (policyError)
      throw errors.badRequest([{ field: 'maintenance_policy', reason: policyError }]);
    return this.db.transaction(async (tx) => {
      const current = await accountRow(tx, p.accountId);
      const set = {
        ...(body.backups_enabled !== undefined
          ? { backups_enabled: fromBool(body.backups_enabled) }
          : {}),
        ...(body.network_helper !== undefined
          ? { network_helper: fromBool(body.network_helper) }
          : {}),
        ...(body.interfaces_for_new_computes !== undefined
          ? { interfaces_for_new_computes: body.interfaces_for_new_computes }
          : {}),
        ...(body.maintenance_policy !== undefined
          ? { maintenance_policy: body.maintenance_policy }
          : {}),
      };
      if (Object.keys(set).length > 0) {
        await tx.db.updateTable('accounts').set(set).where('id', '=', p.accountId).execute();
      }
      await this.events.record(tx, {
        accountId: p.accountId,
        action: 'account_settings_update',
        entity: entityRefs.account(current.euuid),
        status: 'notification',
        username: p.username,
      });
      return toAccountSettings(await accountRow(tx, p.accountId));
    });
  }
}
