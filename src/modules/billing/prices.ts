import type { Database } from '../../db/database.js';
import { parseJson } from '../../db/database.js';

/** A price as the catalogues show it (US dollars). `monthly` is null for pure hourly prices. */
export interface Price {
  hourly: number;
  monthly: number | null;
}

/** A priced product of a `types`-style catalogue (`/volumes/types`, `/nodebalancers/types`…). */
export interface PriceRecord {
  id: string;
  label: string;
  price: Price;
  region_prices: (Price & { id: string })[];
  /** Network transfer included per month, GB. */
  transfer: number;
}

/** Regions priced above the base price (the catalogue of instance types does the same). */
const DEARER_REGIONS = ['ap-west', 'ap-southeast'];
const FACTOR = 1.2;

function record(id: string, label: string, price: Price, transfer = 0): PriceRecord {
  const up = (n: number) => Math.round(n * FACTOR * 1e6) / 1e6;
  return {
    id,
    label,
    price,
    region_prices: DEARER_REGIONS.map((r) => ({
      id: r,
      hourly: up(price.hourly),
      monthly: price.monthly === null ? null : up(price.monthly),
    })),
    transfer,
  };
}

/** `GET /volumes/types`: per GB. $0.10 per GB-month, $0.00015 per GB-hour. */
export const VOLUME_PRICES = [
  record('volume', 'Storage Volume', { hourly: 0.00015, monthly: 0.1 }),
];
/**
 * `GET /nodebalancers/types`: a `common` NodeBalancer $10 a month ($0.015 an hour), a `premium`
 * one $150 a month ($0.225 an hour), ids and labels as the recorded catalogue lists them.
 */
export const NODEBALANCER_PRICES = [
  record('nodebalancer', 'NodeBalancer', { hourly: 0.015, monthly: 10 }),
  record('nodebalancer-pr100', 'Nodebalancer Premium', { hourly: 0.225, monthly: 150 }),
];
/** The price record of a NodeBalancer `type`. */
export const NODEBALANCER_PRICE_OF: Readonly<Record<string, string>> = {
  common: 'nodebalancer',
  premium: 'nodebalancer-pr100',
};
/** `GET /object-storage/types`: $5 a month including 250 GB of storage and 1 TB of transfer. */
export const OBJECT_STORAGE_PRICES = [
  record('objectstorage', 'Object Storage', { hourly: 0.0075, monthly: 5 }, 1000),
];
/** `GET /network-transfer/prices`: per GB over the pooled allowance. */
export const NETWORK_TRANSFER_PRICES = [
  record('distributed_network_transfer', 'Distributed Network Transfer', {
    hourly: 0.01,
    monthly: null,
  }),
  record('network_transfer', 'Network Transfer', { hourly: 0.005, monthly: null }),
];
/**
 * `GET /networking/reserved/ips/types`: a reserved IPv4 address, hourly only, the same in every
 * region (the recorded catalogue: $0.0068 an hour, no monthly cap, no region prices).
 */
export const RESERVED_IPV4_PRICES: PriceRecord[] = [
  {
    id: 'reserved-ipv4',
    label: 'Reserved IPv4',
    price: { hourly: 0.0068, monthly: null },
    region_prices: [],
    transfer: 0,
  },
];
/**
 * A stored private image, per GB of each available replica: $0.10 per GB-month (the provider's
 * API reference: replicas billed at the standard $0.10/GB-month on `total_size` since November
 * 2025; its web manager: "Custom images are billed monthly at $0.10/GB"). Hourly as volumes are
 * ($0.00015 per GB-hour), the same price in every region (none is published per region).
 */
export const IMAGE_STORAGE_PRICE: PriceRecord = {
  id: 'image',
  label: 'Image Storage',
  price: { hourly: 0.00015, monthly: 0.1 },
  region_prices: [],
  transfer: 0,
};
/** An instance's public IPv4 address beyond its first: $2 a month. */
export const EXTRA_IPV4_PRICE = record('ipv4', 'IPv4 Address', { hourly: 0.003, monthly: 2 });

/** Object storage included in the flat price, and what is over it costs (per GB-month). */
export const OBJECT_STORAGE_INCLUDED_GB = 250;
export const OBJECT_STORAGE_OVERAGE_PER_GB = 0.02;

/** A price in micro-dollars (integers; an hourly price is a fraction of a cent). */
export interface Micros {
  hourly: number;
  monthly: number;
}

export const toMicros = (usd: number): number => Math.round(usd * 1e6);

/** The price of `r` in `region` (its region price when it has one), in micro-dollars. */
export function priceIn(r: Pick<PriceRecord, 'price' | 'region_prices'>, region: string): Micros {
  const p = r.region_prices.find((x) => x.id === region) ?? r.price;
  return { hourly: toMicros(p.hourly), monthly: toMicros(p.monthly ?? p.hourly * 730) };
}

interface TypeData {
  label: string;
  price: Price;
  region_prices: (Price & { id: string })[];
  addons: { backups: { price: Price; region_prices: (Price & { id: string })[] } };
}

/** An instance type's label, and its price and its backups add-on's price in `region`. */
export async function instanceTypePrices(
  db: Database,
  typeId: string,
  region: string,
): Promise<{ label: string; type: Micros; backups: Micros } | undefined> {
  const row = await db.db
    .selectFrom('types')
    .select('data')
    .where('id', '=', typeId)
    .executeTakeFirst();
  if (!row) return undefined;
  const t = parseJson<TypeData | null>(row.data, null);
  if (!t) return undefined;
  return {
    label: t.label,
    type: priceIn(t, region),
    backups: priceIn(t.addons.backups, region),
  };
}
