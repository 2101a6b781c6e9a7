import type { Database } from '../../db/database.js';
import { errors } from '../../errors/errors.js';
import type { FilterSpec } from '../../lib/filter.js';
import { ipv4ToNum, numToIpv4 } from '../../lib/ip.js';
import type { EntityRef } from '../events/events.types.js';
import { tagsFilter, tagsOf } from '../tags/tags.repository.js';
import { defaultRdns } from './ip-allocator.js';
import type { IpRow, VpcNat } from './ips.repository.js';

/** The entity type of reserved addresses among tags (`GET /tags/{label}`) and their rows. */
export const RESERVED_TYPE = 'reserved_ipv4_address';

/** The real service's words when an account holds as many reserved addresses as it may. */
export const RESERVED_LIMIT_REASON =
  'Additional Reserved IPv4 addresses require technical justification.  Please contact support describing your requirement.';

export const IPV4_ONLY = 'Only addresses of type ipv4 are currently supported.';

/** Filterable fields of `GET /networking/reserved/ips`. */
export const RESERVED_FILTERS: FilterSpec = {
  address: { kind: 'string', column: 'ip_addresses.address' },
  region: { kind: 'string', column: 'ip_addresses.region' },
  prefix: { kind: 'int', column: 'ip_addresses.prefix' },
  compute_id: { kind: 'int', column: 'ip_addresses.instance_id' },
  tags: tagsFilter(RESERVED_TYPE, 'ip_addresses.id'),
};

/** An IPv4 address as every view answers it (`IPAddress` with the newer fields). */
export interface ApiIp {
  address: string;
  gateway: string | null;
  subnet_mask: string;
  prefix: number;
  type: string;
  public: boolean;
  rdns: string | null;
  compute_id: number | null;
  /** The new-generation interface the address is on: none for addresses of configs. */
  interface_id: number | null;
  region: string;
  vpc_nat_1_1: { vpc_id: number; subnet_id: number; address: string } | null;
  reserved: boolean;
  assigned_entity: { id: number; label: string; type: string; url: string } | null;
  /** Reserved addresses only. */
  tags?: string[];
}

/** A reserved address's answer: with its tags. */
export type ApiReservedIp = ApiIp & { tags: string[] };

/**
 * The API shape of an IPv4 row. A public address shows its default reverse DNS name while an
 * instance holds it; an unassigned reserved address has none (null), as the real service shows.
 */
export function ipv4Api(
  row: IpRow,
  nat: VpcNat | undefined,
  instanceLabel: string | undefined,
  tags?: string[],
): ApiIp {
  const isPublic = row.kind === 'public';
  const assigned = row.instance_id !== null;
  return {
    address: row.address,
    gateway: row.gateway,
    subnet_mask: row.subnet_mask,
    prefix: row.prefix,
    type: 'ipv4',
    public: isPublic,
    rdns: isPublic && assigned ? (row.rdns ?? defaultRdns(row.address)) : row.rdns,
    compute_id: row.instance_id,
    interface_id: null,
    region: row.region,
    vpc_nat_1_1: nat
      ? { vpc_id: nat.vpc_id, subnet_id: nat.subnet_id, address: nat.address }
      : null,
    reserved: row.reserved === 1,
    assigned_entity:
      row.instance_id === null
        ? null
        : {
            id: row.instance_id,
            label: instanceLabel ?? '',
            type: 'compute',
            url: `/v4/compute/instances/${row.instance_id}`,
          },
    ...(tags === undefined ? {} : { tags }),
  };
}

/** An address in an event (`ipaddress`, the row's id, the address as label). */
export const ipRef = (address: string, id: number): EntityRef => ({
  type: 'ipaddress',
  id,
  label: address,
  url: `/v4/networking/ips/${address}`,
});

/** The account's reserved row with this address (any spelling), or undefined. */
export async function findReserved(
  db: Database,
  accountId: number,
  text: string,
  lock = false,
): Promise<IpRow | undefined> {
  const n = ipv4ToNum(text);
  if (Number.isNaN(n)) return undefined;
  const q = db.db
    .selectFrom('ip_addresses')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('address', '=', numToIpv4(n))
    .where('kind', '=', 'public')
    .where('reserved', '=', 1);
  return (lock ? db.forUpdate(q) : q).executeTakeFirst();
}

/**
 * The reserved address an instance create names in `ipv4` (one, the account's, unassigned, in the
 * instance's region), or the real service's refusal (recorded) as the reason on `ipv4`.
 */
export async function reservedForCreate(
  db: Database,
  p: { accountId: number; restricted: boolean },
  list: readonly string[],
  region: string | undefined,
  lock = false,
): Promise<{ row: IpRow } | { reason: string }> {
  const single = 'Must provide a single valid reserved ipv4 address';
  if (list.length !== 1) return { reason: single };
  const row = p.restricted ? undefined : await findReserved(db, p.accountId, list[0] ?? '', lock);
  if (!row) return { reason: single };
  if (row.instance_id !== null) return { reason: 'Address must be currently unassigned.' };
  if (region !== undefined && row.region !== region)
    return { reason: 'Address must belong to same region as compute.' };
  return { row };
}

/** How many reserved addresses the account holds. */
export async function reservedCount(db: Database, accountId: number): Promise<number> {
  const row = await db.db
    .selectFrom('ip_addresses')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .where('reserved', '=', 1)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Refuses a new reservation beyond the account's limit (the recorded refusal). */
export async function assertReservationRoom(
  db: Database,
  accountId: number,
  limit: number,
): Promise<void> {
  if ((await reservedCount(db, accountId)) >= limit) throw errors.reason(RESERVED_LIMIT_REASON);
}

/** The API shapes of reserved rows, with their tags and their instances' labels. */
export async function toApiReserved(
  db: Database,
  rows: readonly IpRow[],
): Promise<ApiReservedIp[]> {
  const tags = await tagsOf(
    db,
    RESERVED_TYPE,
    rows.map((r) => r.id),
  );
  const instanceIds = [
    ...new Set(rows.flatMap((r) => (r.instance_id === null ? [] : [r.instance_id]))),
  ];
  const labels = new Map(
    instanceIds.length === 0
      ? []
      : (
          await db.db
            .selectFrom('instances')
            .select(['id', 'label'])
            .where('id', 'in', instanceIds)
            .execute()
        ).map((i) => [i.id, i.label]),
  );
  return rows.map((r) => ({
    ...ipv4Api(r, undefined, r.instance_id === null ? undefined : labels.get(r.instance_id)),
    tags: tags.get(r.id) ?? [],
  }));
}

/** Reserved addresses of the account (grants views, tags), labelled with the address. */
export async function reservedLabels(
  db: Database,
  accountId: number,
): Promise<{ id: number; label: string }[]> {
  return db.db
    .selectFrom('ip_addresses')
    .select(['id', 'address as label'])
    .where('account_id', '=', accountId)
    .where('reserved', '=', 1)
    .orderBy('id')
    .execute();
}
