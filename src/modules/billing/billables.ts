import type { Database } from '../../db/database.js';
import { parseApiTime } from '../../lib/time.js';
import { type BillableLine, closeFacts, openFact, syncFacts } from './facts.js';
import {
  EXTRA_IPV4_PRICE,
  IMAGE_STORAGE_PRICE,
  instanceTypePrices,
  NODEBALANCER_PRICE_OF,
  NODEBALANCER_PRICES,
  OBJECT_STORAGE_PRICES,
  type PriceRecord,
  priceIn,
  RESERVED_IPV4_PRICES,
  VOLUME_PRICES,
} from './prices.js';

/**
 * What each billable entity is charged for, read from its current row, and the one call per
 * entity kind that areas make inside the transaction of any change that alters it (create,
 * resize, backups on/off, an address added or removed, delete). `syncFacts` turns "what is
 * billed now" into periods, so a caller never has to know which periods to close or open.
 * Times are the API's ISO seconds (`nowIso` of the change).
 */

const at = (iso: string): number => parseApiTime(iso);

/** An instance: its type, its backups add-on, and each public IPv4 beyond its first. */
export async function billInstance(db: Database, instanceId: number, nowIso: string) {
  const inst = await db.db
    .selectFrom('instances')
    .select(['id', 'account_id', 'label', 'type', 'region', 'backups_enabled'])
    .where('id', '=', instanceId)
    .executeTakeFirst();
  const owner = { entityType: 'compute', entityId: instanceId };
  if (!inst) return closeFacts(db, owner, at(nowIso));
  const lines: BillableLine[] = [];
  const prices = await instanceTypePrices(db, inst.type, inst.region);
  const name = `${inst.label} (${inst.id})`;
  if (prices) {
    lines.push({
      kind: 'compute_type',
      ref: inst.type,
      label: `${prices.label} (${inst.type}) - ${name}`,
      region: inst.region,
      quantity: 1,
      price: prices.type,
    });
    if (inst.backups_enabled)
      lines.push({
        kind: 'backups',
        ref: inst.type,
        label: `Backup Service - ${prices.label} - ${name}`,
        region: inst.region,
        quantity: 1,
        price: prices.backups,
      });
  }
  // A reserved address is billed as such (billReservedIp), held by an instance or not.
  const ips = await db.db
    .selectFrom('ip_addresses')
    .select(['address'])
    .where('instance_id', '=', instanceId)
    .where('kind', '=', 'public')
    .where('reserved', '=', 0)
    .orderBy('id')
    .execute();
  for (const ip of ips.slice(1))
    lines.push({
      kind: 'ipv4',
      ref: ip.address,
      label: `Additional IPv4 ${ip.address} - ${name}`,
      region: inst.region,
      quantity: 1,
      price: priceIn(EXTRA_IPV4_PRICE, inst.region),
    });
  await syncFacts(db, { accountId: inst.account_id, ...owner }, lines, at(nowIso));
}

/** A reserved IPv4 address: hourly while it is reserved, whether an instance holds it or not. */
export async function billReservedIp(db: Database, ipId: number, nowIso: string) {
  const ip = await db.db
    .selectFrom('ip_addresses')
    .select(['id', 'account_id', 'address', 'region', 'reserved'])
    .where('id', '=', ipId)
    .executeTakeFirst();
  const owner = { entityType: 'reserved_ipv4_address', entityId: ipId };
  if (ip?.reserved !== 1) return closeFacts(db, owner, at(nowIso));
  const line: BillableLine = {
    kind: 'reserved_ipv4',
    ref: ip.address,
    label: `Reserved IPv4 ${ip.address}`,
    region: ip.region,
    quantity: 1,
    price: priceIn(RESERVED_IPV4_PRICES[0] as PriceRecord, ip.region),
  };
  await syncFacts(db, { accountId: ip.account_id, ...owner }, [line], at(nowIso));
}

/** What a volume's billing needs of its row. */
export interface BilledVolume {
  id: number;
  account_id: number;
  label: string;
  region: string;
  size: number;
}

/** A volume: its size in GB at the GB price. */
export async function billVolume(
  db: Database,
  volumeId: number,
  nowIso: string,
  /** The volume as the caller just inserted it (a create): not read again, no open facts. */
  written?: BilledVolume,
) {
  const v =
    written ??
    (await db.db
      .selectFrom('volumes')
      .select(['id', 'account_id', 'label', 'region', 'size'])
      .where('id', '=', volumeId)
      .executeTakeFirst());
  const owner = { entityType: 'volume', entityId: volumeId };
  if (!v) return closeFacts(db, owner, at(nowIso));
  const line: BillableLine = {
    kind: 'volume',
    ref: 'volume',
    label: `Block Storage Volume - ${v.label} (${v.id}) - ${v.size} GB`,
    region: v.region,
    quantity: v.size,
    price: priceIn(VOLUME_PRICES[0] as (typeof VOLUME_PRICES)[0], v.region),
  };
  await syncFacts(db, { accountId: v.account_id, ...owner }, [line], at(nowIso), !!written);
}

/** A NodeBalancer: hourly, like an instance. */
export async function billNodeBalancer(db: Database, nbId: number, nowIso: string) {
  const nb = await db.db
    .selectFrom('nodebalancers')
    .select(['id', 'account_id', 'label', 'region', 'type'])
    .where('id', '=', nbId)
    .executeTakeFirst();
  const owner = { entityType: 'nodebalancer', entityId: nbId };
  if (!nb) return closeFacts(db, owner, at(nowIso));
  const line: BillableLine = {
    kind: 'nodebalancer',
    ref: 'nodebalancer',
    label: `NodeBalancer - ${nb.label} (${nb.id})`,
    region: nb.region,
    quantity: 1,
    // The plan's price (`common`, `premium`): src/modules/billing/prices.ts.
    price: priceIn(
      (NODEBALANCER_PRICES.find((r) => r.id === NODEBALANCER_PRICE_OF[nb.type]) ??
        NODEBALANCER_PRICES[0]) as (typeof NODEBALANCER_PRICES)[0],
      nb.region,
    ),
  };
  await syncFacts(db, { accountId: nb.account_id, ...owner }, [line], at(nowIso));
}

/**
 * A private image: one line per available replica, its `size` in GB (rounded up) at the image
 * storage price. Replicas still replicating or pending deletion are not billed (they are not
 * counted in `total_size` either).
 */
export async function billImage(db: Database, imageId: number, nowIso: string) {
  const img = await db.db
    .selectFrom('private_images')
    .select(['id', 'account_id', 'label', 'size'])
    .where('id', '=', imageId)
    .executeTakeFirst();
  const owner = { entityType: 'image', entityId: imageId };
  if (!img) return closeFacts(db, owner, at(nowIso));
  const replicas = await db.db
    .selectFrom('image_regions')
    .select('region')
    .where('image_id', '=', imageId)
    .where('status', '=', 'available')
    .orderBy('region')
    .execute();
  const gb = Math.max(1, Math.ceil(img.size / 1024));
  const lines: BillableLine[] = replicas.map((r) => ({
    kind: 'image',
    ref: r.region,
    label: `Image - ${img.label} (private/${img.id}) - ${r.region} - ${gb} GB`,
    region: r.region,
    quantity: gb,
    price: priceIn(IMAGE_STORAGE_PRICE, r.region),
  }));
  await syncFacts(db, { accountId: img.account_id, ...owner }, lines, at(nowIso));
}

const OBJ = { entityType: 'account', kind: 'object_storage' } as const;

/**
 * Object storage: the flat monthly price from activation (the first bucket or key) until
 * `POST /object-storage/cancel`. Activating an active account changes nothing.
 */
export async function activateObjectStorage(db: Database, accountId: number, nowIso: string) {
  const open = await db.db
    .selectFrom('billing_facts')
    .select('id')
    .where('entity_type', '=', OBJ.entityType)
    .where('entity_id', '=', accountId)
    .where('kind', '=', OBJ.kind)
    .where('to_ms', 'is', null)
    .executeTakeFirst();
  if (open) return;
  await openFact(
    db,
    { accountId, entityType: OBJ.entityType, entityId: accountId },
    {
      kind: OBJ.kind,
      ref: 'objectstorage',
      label: 'Object Storage',
      region: null,
      quantity: 1,
      price: priceIn(OBJECT_STORAGE_PRICES[0] as (typeof OBJECT_STORAGE_PRICES)[0], ''),
    },
    at(nowIso),
  );
}

export async function cancelObjectStorage(db: Database, accountId: number, nowIso: string) {
  await closeFacts(db, { ...OBJ, entityId: accountId }, at(nowIso));
}
