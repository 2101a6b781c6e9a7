import { type Static, Type } from '@sinclair/typebox';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { errors } from '../../errors/errors.js';
import { DateTime, PageOf } from '../../http/schemas/common.js';
import type { Clock } from '../../lib/clock.js';
import { compileFilter, type FilterSpec } from '../../lib/filter.js';
import { type Page, type PageParams, paginate } from '../../lib/pagination.js';
import { hashSecret, newSecret } from '../../lib/secrets.js';
import { isoSeconds } from '../../lib/time.js';
import type { TrustedDevicesTable } from './oauth.table.js';

/** A trusted device skips the two-factor code for 30 days. */
export const DEVICE_TTL_MS = 30 * 24 * 3600 * 1000;
export const DEVICE_COOKIE = 'stratus_device';

export const DeviceSchema = Type.Object({
  id: Type.Integer(),
  created: DateTime(),
  expiry: DateTime(),
  user_agent: Type.String(),
  last_authenticated: DateTime(),
  last_remote_addr: Type.String(),
});
export type Device = Static<typeof DeviceSchema>;
export const DevicePage = PageOf(DeviceSchema);
export const DeviceParams = Type.Object({ deviceId: Type.Integer() });

type DeviceRow = Omit<TrustedDevicesTable, 'id'> & { id: number };
const toDevice = (r: DeviceRow): Device => ({
  id: r.id,
  created: r.created,
  expiry: r.expiry,
  user_agent: r.user_agent,
  last_authenticated: r.last_authenticated,
  last_remote_addr: r.last_remote_addr,
});
const DEVICE_FILTERS: FilterSpec = {};

/** Registers a trusted device; answers the cookie value (shown to the browser only). */
export async function trustDevice(
  db: Database,
  userId: number,
  userAgent: string,
  ip: string,
  nowMs: number,
): Promise<string> {
  const secret = newSecret();
  const now = isoSeconds(nowMs);
  await db.db
    .insertInto('trusted_devices')
    .values({
      user_id: userId,
      token_hash: hashSecret(secret),
      user_agent: userAgent.slice(0, 512),
      created: now,
      expiry: isoSeconds(nowMs + DEVICE_TTL_MS),
      last_authenticated: now,
      last_remote_addr: ip,
    })
    .execute();
  return secret;
}

/** Whether a device cookie is a live trusted device of the user; records its use. */
export async function deviceTrusted(
  db: Database,
  userId: number,
  cookie: string | undefined,
  ip: string,
  nowMs: number,
): Promise<boolean> {
  if (!cookie) return false;
  const now = isoSeconds(nowMs);
  const r = await db.db
    .updateTable('trusted_devices')
    .set({ last_authenticated: now, last_remote_addr: ip })
    .where('token_hash', '=', hashSecret(cookie))
    .where('user_id', '=', userId)
    .where('expiry', '>', now)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** `/profile/devices`: the caller's trusted devices. */
export class DevicesService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  private base(db: Database, p: Principal) {
    return db.db
      .selectFrom('trusted_devices')
      .where('user_id', '=', p.userId)
      .where('expiry', '>', isoSeconds(this.clock.nowMs()));
  }

  list(
    p: Principal,
    params: PageParams,
    xFilter: string | string[] | undefined,
  ): Promise<Page<Device>> {
    return paginate(
      this.base(this.db, p),
      (qb) => qb.selectAll('trusted_devices'),
      compileFilter(xFilter, DEVICE_FILTERS, this.db.dialect),
      params,
      { idColumn: 'trusted_devices.id' },
      toDevice,
    );
  }

  async get(p: Principal, id: number): Promise<Device> {
    const row = await this.base(this.db, p).selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw errors.notFound();
    return toDevice(row);
  }

  /** Revokes the device: its next sign-in asks for the two-factor code again. */
  async delete(p: Principal, id: number): Promise<void> {
    const r = await this.db.db
      .deleteFrom('trusted_devices')
      .where('id', '=', id)
      .where('user_id', '=', p.userId)
      .executeTakeFirst();
    if (Number(r.numDeletedRows) !== 1) throw errors.notFound();
  }
}
