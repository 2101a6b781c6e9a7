import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { errors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { type Page, type PageParams, pageOf } from '../../lib/pagination.js';
import type { CatalogueData } from '../catalogue/catalogue.data.js';
import type { ApiAvailability, ApiNotification } from './notices.schemas.js';
import { defaultNotificationProviders, type NotificationProvider } from './notifications.js';

export interface NoticeDeps {
  db: Database;
  clock: Clock;
  catalogue: CatalogueData;
  /** Default: maintenance, migrations, balance, pending transfers. */
  providers?: NotificationProvider[];
}

/**
 * The services an account's regions may lack (`unavailable` of account availability): the
 * catalogue's capability names of the region-bound services Stratus serves.
 */
export const AVAILABILITY_SERVICES = ['Computes', 'NodeBalancers', 'Block Storage', 'Kubernetes'];

/** Notifications and availability of the account. */
export class NoticesService {
  private readonly providers: NotificationProvider[];

  constructor(private readonly d: NoticeDeps) {
    this.providers = d.providers ?? defaultNotificationProviders;
  }

  async notifications(p: Principal, params: PageParams): Promise<Page<ApiNotification>> {
    const c = { db: this.d.db, p, nowMs: this.d.clock.nowMs() };
    const all = (await Promise.all(this.providers.map((f) => f(c)))).flat();
    return pageOf(
      params,
      async (limit, offset) => all.slice(offset, offset + limit),
      async () => all.length,
    );
  }

  private availabilityOfRegion(id: string): ApiAvailability | undefined {
    const r = this.d.catalogue.regions.find((x) => x.id === id);
    if (!r) return undefined;
    return {
      region: r.id,
      available: AVAILABILITY_SERVICES.filter((s) => r.capabilities.includes(s)),
      unavailable: AVAILABILITY_SERVICES.filter((s) => !r.capabilities.includes(s)),
    };
  }

  availability(params: PageParams): Promise<Page<ApiAvailability>> {
    // In the order of `GET /regions` (by id).
    const ids = this.d.catalogue.regions.map((r) => r.id).sort();
    const all = ids.map((id) => this.availabilityOfRegion(id));
    const rows = all.filter((a): a is ApiAvailability => a !== undefined);
    return pageOf(
      params,
      async (limit, offset) => rows.slice(offset, offset + limit),
      async () => rows.length,
    );
  }

  availabilityOf(id: string): ApiAvailability {
    const a = this.availabilityOfRegion(id);
    if (!a) throw errors.notFound();
    return a;
  }
}
