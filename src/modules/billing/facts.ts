import type { Database } from '../../db/database.js';
import { statement } from '../../db/statement.js';
import type { BillingFactsTable } from './billing.table.js';
import { ensureInvoicing } from './schedule.js';
import type { Micros } from './prices.js';

export type FactRow = Omit<BillingFactsTable, 'id'> & { id: number };

export const HOUR_MS = 3_600_000;

/** One thing an entity is billed for right now (what `syncFacts` makes the open facts match). */
export interface BillableLine {
  kind: string;
  /** Identifies the line within its entity (a type id, an address…): one open fact per ref. */
  ref: string;
  label: string;
  region: string | null;
  quantity: number;
  price: Micros;
}

/** The entity a set of facts is about. `accountId` is needed only to open facts. */
export interface FactOwner {
  accountId: number;
  entityType: string;
  entityId: number;
}

function sameCharge(f: FactRow, l: BillableLine, accountId: number): boolean {
  return (
    f.account_id === accountId &&
    f.kind === l.kind &&
    f.ref === l.ref &&
    f.quantity === l.quantity &&
    f.region === l.region &&
    Number(f.hourly_micros) === l.price.hourly &&
    Number(f.monthly_micros) === l.price.monthly
  );
}

/** A period's row (built once per dialect: every billable create opens one). */
const insertFact = statement(
  'billing.openFact',
  (
    { db },
    accountId: number,
    kind: string,
    entityType: string,
    entityId: number,
    ref: string,
    label: string,
    region: string | null,
    quantity: number,
    hourly: number,
    monthly: number,
    fromMs: number,
  ) =>
    db.insertInto('billing_facts').values({
      account_id: accountId,
      kind,
      entity_type: entityType,
      entity_id: entityId,
      ref,
      label,
      region,
      quantity,
      hourly_micros: hourly,
      monthly_micros: monthly,
      from_ms: fromMs,
      to_ms: null,
    }),
);

/** Opens a billable period at `atMs`. */
export async function openFact(
  db: Database,
  owner: FactOwner,
  line: BillableLine,
  atMs: number,
): Promise<void> {
  await insertFact.run(
    db,
    owner.accountId,
    line.kind,
    owner.entityType,
    owner.entityId,
    line.ref,
    line.label,
    line.region,
    line.quantity,
    line.price.hourly,
    line.price.monthly,
    atMs,
  );
  await ensureInvoicing(db, atMs);
}

/** Closes the open periods of an entity at `atMs` (only those of `kind` when given). */
export async function closeFacts(
  db: Database,
  entity: { entityType: string; entityId: number; kind?: string },
  atMs: number,
): Promise<void> {
  let q = db.db
    .updateTable('billing_facts')
    .set({ to_ms: atMs })
    .where('entity_type', '=', entity.entityType)
    .where('entity_id', '=', entity.entityId)
    .where('to_ms', 'is', null);
  if (entity.kind !== undefined) q = q.where('kind', '=', entity.kind);
  await q.execute();
}

/**
 * Makes the entity's open periods match what it is billed for now, at `atMs`: a period whose
 * charge changed (type, size, price, region, or the account: a transfer) is closed and a new
 * one opened — a resize splits the period — lines that stopped are closed, new lines are
 * opened, unchanged ones go on.
 * Idempotent: calling it twice changes nothing. An entity gone away has no lines.
 */
export async function syncFacts(
  db: Database,
  owner: FactOwner,
  lines: readonly BillableLine[],
  atMs: number,
  /**
   * The owner was inserted by this transaction: it has no open facts (an id is not handed out
   * again while rows naming it remain; only a full reset restarts the sequences, clearing them all).
   */
  created = false,
): Promise<void> {
  const open = created
    ? []
    : await db.db
        .selectFrom('billing_facts')
        .selectAll()
        .where('entity_type', '=', owner.entityType)
        .where('entity_id', '=', owner.entityId)
        .where('to_ms', 'is', null)
        .execute();
  const kept = new Set<number>();
  for (const f of open) {
    const line = lines.find((l) => sameCharge(f, l, owner.accountId));
    if (line && !kept.has(lines.indexOf(line))) {
      kept.add(lines.indexOf(line));
      continue;
    }
    await db.db.updateTable('billing_facts').set({ to_ms: atMs }).where('id', '=', f.id).execute();
  }
  for (const [i, l] of lines.entries()) if (!kept.has(i)) await openFact(db, owner, l, atMs);
}

export interface Accrual {
  /** Billed hours (partial hours rounded up). */
  hours: number;
  fromMs: number;
  toMs: number;
  /** Micro-dollars: hours × hourly × quantity, capped at the monthly price × quantity. */
  micros: number;
}

/**
 * What a fact accrues within [startMs, endMs) (one month, or the month so far): every started
 * hour at the hourly price, capped at the monthly price, times the quantity. Undefined when the
 * fact does not overlap the window.
 */
export function accrue(f: FactRow, startMs: number, endMs: number): Accrual | undefined {
  const from = Math.max(Number(f.from_ms), startMs);
  const to = Math.min(f.to_ms === null ? endMs : Number(f.to_ms), endMs);
  if (to <= from) return undefined;
  const hours = Math.ceil((to - from) / HOUR_MS);
  const unit = Math.min(hours * Number(f.hourly_micros), Number(f.monthly_micros));
  return { hours, fromMs: from, toMs: to, micros: unit * f.quantity };
}

/** Micro-dollars to cents, half up. */
export const microsToCents = (micros: number): number => Math.round(micros / 10_000);

/** Every fact of an account that overlaps [startMs, endMs), oldest first. */
export async function factsOverlapping(
  db: Database,
  accountId: number,
  startMs: number,
  endMs: number,
): Promise<FactRow[]> {
  return db.db
    .selectFrom('billing_facts')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('from_ms', '<', endMs)
    .where((eb) => eb.or([eb('to_ms', 'is', null), eb('to_ms', '>', startMs)]))
    .orderBy('from_ms')
    .orderBy('id')
    .execute();
}
