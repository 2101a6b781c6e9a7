import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { toBool } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { isoSeconds } from '../../lib/time.js';

export interface Agreements {
  eu_model: boolean;
  master_service_agreement: boolean;
  privacy_policy: boolean;
}

/** What a new account has acknowledged: the privacy policy at sign-up (as recorded). */
const DEFAULTS = { eu_model: 0, master_service_agreement: 0, privacy_policy: 1 };

/**
 * The agreements an account acknowledged (`/account/agreements`, later revisions than the
 * reference, as recorded): an acknowledgement stays; `false` in a request changes nothing.
 */
export class AgreementsService {
  constructor(private readonly d: { db: Database; clock: Clock }) {}

  async get(p: Principal): Promise<Agreements> {
    authz.requireAccountAccess(p, 'read_only');
    const row =
      (await this.d.db.db
        .selectFrom('account_agreements')
        .select(['eu_model', 'master_service_agreement', 'privacy_policy'])
        .where('account_id', '=', p.accountId)
        .executeTakeFirst()) ?? DEFAULTS;
    return {
      eu_model: toBool(row.eu_model),
      master_service_agreement: toBool(row.master_service_agreement),
      privacy_policy: toBool(row.privacy_policy),
    };
  }

  /** Acknowledges the agreements sent as `true`. */
  async acknowledge(p: Principal, b: Partial<Agreements>): Promise<void> {
    authz.requireAccountAccess(p, 'read_write');
    const set = {
      ...(b.eu_model ? { eu_model: 1 } : {}),
      ...(b.master_service_agreement ? { master_service_agreement: 1 } : {}),
      ...(b.privacy_policy ? { privacy_policy: 1 } : {}),
      updated: isoSeconds(this.d.clock.nowMs()),
    };
    await this.d.db.db
      .insertInto('account_agreements')
      .values({ account_id: p.accountId, ...DEFAULTS, ...set })
      .onConflict((oc) => oc.column('account_id').doUpdateSet(set))
      .execute();
  }
}
