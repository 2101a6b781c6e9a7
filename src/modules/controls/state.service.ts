import { type RawBuilder, sql } from 'kysely';
import { ConfigError } from '../../config/config-error.js';
import { principalChanged } from '../../auth/principal-cache.js';
import type { Database } from '../../db/database.js';
import { isDataError, isUniqueViolation } from '../../errors/db-errors.js';
import { ApiError } from '../../errors/api-error.js';
import { errors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { isoSeconds } from '../../lib/time.js';
import { touchFeed } from '../events/events.feed.js';
import { bootstrapTokens, type StoredToken } from '../identity/bootstrap.js';
import {
  anyDb,
  belongsTo,
  clearTables,
  insertRows,
  isExported,
  migrationBaseline,
  readRows,
  stateTables,
} from './state.rows.js';
import {
  listTables,
  nonEmptyTables,
  readSequences,
  restoreSequences,
  runStatements,
  type TableInfo,
} from './state.tables.js';
import type { SeededAccount, SeedFile, SeedResult } from './seed.js';
import type { StateHook } from '../../platform/state-hook.js';
import { checkSnapshot, SNAPSHOT_FORMAT, SNAPSHOT_VERSION, type Snapshot } from './snapshot.js';

export interface FirstStart {
  /** The default admin's token when it was generated (shown once); undefined when configured. */
  adminToken?: string;
  /** The seed file's accounts (STRATUS_SEED); its requests are made after the commit. */
  seeded?: SeedResult & { file: SeedFile };
}

export interface StateDeps {
  db: Database;
  clock: Clock;
  hooks: readonly StateHook[];
  version: string;
  /**
   * What the first start writes into an empty database: the default account, the seed file.
   * After a full reset, `kept` holds the first-start tokens from before it, by username: the
   * users made again keep them.
   */
  firstStart(tx: Database, kept?: ReadonlyMap<string, StoredToken>): Promise<FirstStart>;
}

export interface ResetResult {
  scope: 'all' | 'account';
  euuid?: string;
  admin?: { username: string; token: string };
  /** The seed file's accounts (tokens only where generated). */
  seeded?: SeededAccount[];
  /** Internal: the seed's requests, made by the caller once the reset has committed. */
  seed?: SeedResult & { file: SeedFile };
}

/** Reset, export and import of the whole state (src/modules/controls, docs/operations.md). */
export class StateService {
  private baseline: ReturnType<typeof migrationBaseline> | undefined;

  constructor(private readonly deps: StateDeps) {}

  /**
   * The first start: on a database without accounts, the default account and the seed file's
   * accounts, in one transaction. Undefined when accounts exist (or another process made them).
   */
  async initialise(): Promise<FirstStart | undefined> {
    const { db } = this.deps;
    const existing = await db.db.selectFrom('accounts').select('id').limit(1).executeTakeFirst();
    if (existing) return undefined;
    try {
      return await db.transaction(async (tx) => {
        // Processes starting together: the first writes, the others then find accounts.
        await startLock(tx);
        const again = await tx.db.selectFrom('accounts').select('id').limit(1).executeTakeFirst();
        return again ? undefined : this.deps.firstStart(tx);
      });
    } catch (err) {
      if (isUniqueViolation(err)) return undefined;
      throw err;
    }
  }

  /** Back to the first-start state: every account, or one account's entities. */
  async reset(euuid?: string): Promise<ResetResult> {
    const { db, hooks } = this.deps;
    this.baseline ??= migrationBaseline();
    const baseline = await this.baseline;
    // Much of the database may change: a transaction of its own.
    return db.transactionAlone(async (tx) => {
      await startLock(tx);
      const tables = stateTables(await listTables(tx));
      if (euuid !== undefined) {
        const account = await tx.db
          .selectFrom('accounts')
          .select('id')
          .where('euuid', '=', euuid)
          .executeTakeFirst();
        if (!account) throw errors.invalidField('euuid', 'No account has this euuid.');
        await this.clearAccount(tx, tables, account.id);
        for (const h of hooks) await h.onReset?.(tx, { accountId: account.id });
        await this.afterWrite(tx, [account.id]);
        return { scope: 'account', euuid };
      }
      // The tokens a test suite or an operator holds for the first-start users stay valid.
      const kept = await bootstrapTokens(tx);
      await clearTables(tx, tables);
      for (const [table, b] of baseline) await insertRows(tx, table, b.columns, b.rows);
      await restoreSequences(tx, tables, {});
      for (const h of hooks) await h.onReset?.(tx, {});
      const first = await this.deps.firstStart(tx, kept).catch((err: unknown) => {
        // The seed file changed since the start and is now refused: the answer names the cause.
        if (err instanceof ConfigError) {
          throw errors.reason(`${err.message}. Nothing was reset.`, 'reset_seed_failed');
        }
        throw err;
      });
      await this.afterWrite(tx);
      return {
        scope: 'all',
        ...(first.adminToken ? { admin: { username: 'admin', token: first.adminToken } } : {}),
        ...(first.seeded ? { seeded: first.seeded.accounts, seed: first.seeded } : {}),
      };
    });
  }

  /**
   * A cancelled account (`POST /account/cancel`, inside its transaction): every row it owns goes,
   * its users and their tokens too (further calls answer 401), except the account row and its
   * billing records (invoices, payments, billing periods, payment methods), kept for the books.
   */
  async closeAccount(tx: Database, accountId: number): Promise<void> {
    const tables = stateTables(await listTables(tx));
    await this.clearAccount(tx, tables, accountId, KEPT_BY_ACCOUNT_CLOSE);
    for (const h of this.deps.hooks) await h.onReset?.(tx, { accountId });
    await this.afterWrite(tx, [accountId]);
  }

  /**
   * Deletes what an account owns except the account, its users and their tokens (so the
   * credentials a test suite holds keep working), children first.
   */
  private async clearAccount(
    tx: Database,
    tables: TableInfo[],
    accountId: number,
    kept: readonly string[] = KEPT_BY_ACCOUNT_RESET,
  ): Promise<void> {
    const byName = new Map(tables.map((t) => [t.name, t]));
    await tx.deferForeignKeys();
    // PostgreSQL: the deletes go as one text (one round trip), the id written into it, an
    // integer read from the database; SQLite: one statement each, the id a parameter.
    if (!Number.isSafeInteger(accountId)) throw new Error(`clearAccount: account id ${accountId}`);
    const account = tx.dialect === 'postgres' ? sql.lit(accountId) : sql.val(accountId);
    // An empty table holds nothing of the account's.
    const holding = await nonEmptyTables(tx, tables);
    const deletes: RawBuilder<unknown>[] = [];
    for (const t of [...tables].reverse()) {
      if (kept.includes(t.name) || !holding.has(t.name)) continue;
      const cond = belongsTo(t, byName, account);
      if (cond) deletes.push(sql`delete from ${sql.id(t.name)} where ${cond}`);
    }
    await runStatements(tx, deletes);
  }

  /** Caches that must not outlive the rows: feeds get new versions, principals are dropped. */
  private async afterWrite(tx: Database, accountIds?: number[]): Promise<void> {
    const ids =
      accountIds ?? (await tx.db.selectFrom('accounts').select('id').execute()).map((r) => r.id);
    for (const id of ids) touchFeed(tx, id);
    await principalChanged(tx, { kind: 'all' });
  }

  /** The whole state as one versioned document (the catalogue and the controls left out). */
  async exportSnapshot(): Promise<Snapshot> {
    const { db, clock, hooks } = this.deps;
    return db.transaction(async (tx) => {
      // One consistent view of every table.
      if (tx.dialect === 'postgres') {
        await sql`set transaction isolation level repeatable read`.execute(tx.db);
      }
      const tables = stateTables(await listTables(tx)).filter(isExported);
      const out: Snapshot = {
        format: SNAPSHOT_FORMAT,
        version: SNAPSHOT_VERSION,
        stratus: this.deps.version,
        created: isoSeconds(clock.nowMs()),
        dialect: tx.dialect,
        migrations: await appliedMigrations(tx),
        tables: {},
        sequences: await readSequences(tx, tables),
        extensions: {},
      };
      for (const t of tables)
        out.tables[t.name] = { columns: t.columns, rows: await readRows(tx, t) };
      for (const h of hooks) {
        if (h.exportData) out.extensions[h.name] = await h.exportData(tx);
      }
      return out;
    });
  }

  /** Checks a snapshot as an import would, changing nothing (before its bytes are written). */
  async check(input: unknown): Promise<Snapshot> {
    const { db } = this.deps;
    return checkSnapshot(input, await appliedMigrations(db), stateTables(await listTables(db)));
  }

  /** The state hooks (their blob stores travel with streamed snapshots). */
  get hooks(): readonly StateHook[] {
    return this.deps.hooks;
  }

  /**
   * The bytes a snapshot's rows refer to that neither came with it nor are in this server's blob
   * stores, as `<area>/<key>` (a document exported with `?bytes=false`, imported elsewhere or
   * after the objects went away).
   */
  async missingBlobs(snap: Snapshot): Promise<string[]> {
    const missing: string[] = [];
    for (const h of this.deps.hooks) {
      if (!h.blobs) continue;
      const { area, store } = h.blobs;
      const keys = [...new Set(h.blobs.keys(snap.tables))];
      // A few at a time: each is a stat (local disk) or a HEAD request (S3).
      for (let i = 0; i < keys.length; i += 16) {
        const batch = keys.slice(i, i + 16);
        const heads = await Promise.all(batch.map((k) => store.head(k)));
        heads.forEach((head, j) => {
          if (head === null) missing.push(`${area}/${batch[j]}`);
        });
      }
    }
    return missing;
  }

  /**
   * Replaces the whole state with a snapshot's, in one transaction. A document without its bytes
   * (format 1, or exported with `?bytes=false`) is refused while its rows refer to bytes this
   * server does not have: those objects would exist without their data. `bytesCame`: the
   * streamed form brought them (written before this call).
   */
  async importSnapshot(
    input: unknown,
    opts: { bytesCame?: boolean } = {},
  ): Promise<{ tables: number; rows: number }> {
    const { db } = this.deps;
    if (!opts.bytesCame) {
      const snap = checkSnapshot(
        input,
        await appliedMigrations(db),
        stateTables(await listTables(db)),
      );
      const missing = await this.missingBlobs(snap);
      if (missing.length > 0) {
        throw errors.invalidField(
          'blobs',
          `The snapshot's rows refer to ${missing.length} object or image byte stream(s) it does ` +
            `not carry (exported without bytes) and this server does not have (${missing
              .slice(0, 5)
              .join(', ')}${missing.length > 5 ? ', …' : ''}). Export it with its bytes ` +
            '(GET /_stratus/snapshot, stratus state export), or import it where those bytes are. ' +
            'Nothing was imported.',
        );
      }
    }
    try {
      return await this.writeSnapshot(input);
    } catch (err) {
      throw asImportError(err);
    }
  }

  private async writeSnapshot(input: unknown): Promise<{ tables: number; rows: number }> {
    const { db, hooks } = this.deps;
    return db.transactionAlone(async (tx) => {
      await startLock(tx);
      const all = stateTables(await listTables(tx));
      const snap = checkSnapshot(input, await appliedMigrations(tx), all);
      const exported = all.filter(isExported);
      // Ids handed out here since the export are not handed out again either.
      const floor = await readSequences(tx, exported);
      for (const [k, v] of Object.entries(snap.sequences ?? {})) {
        floor[k] = Math.max(floor[k] ?? 0, v);
      }
      await clearTables(tx, all);
      let rows = 0;
      for (const t of exported) {
        const data = snap.tables[t.name];
        if (!data) continue;
        try {
          await insertRows(tx, t.name, data.columns, data.rows);
        } catch (err) {
          throw asImportError(err, t.name);
        }
        rows += data.rows.length;
      }
      await restoreSequences(tx, exported, floor);
      // The catalogue area's hook writes the shipped catalogue, whatever the snapshot's server shipped.
      for (const h of hooks) await h.onReset?.(tx, {});
      for (const h of hooks) await h.importData?.(tx, snap.extensions?.[h.name]);
      await this.afterWrite(tx);
      return { tables: Object.keys(snap.tables).length, rows };
    });
  }
}

/** The key of the advisory lock that serialises start-up writes, reset and import. */
const START_LOCK_KEY = 7_414_711;

/**
 * PostgreSQL: waits for (and holds to the end of the transaction) the lock that processes
 * starting together take to rewrite the catalogue; reset and import take it too. SQLite: a write
 * transaction already excludes every other writer.
 */
export async function startLock(tx: Database): Promise<void> {
  if (tx.dialect === 'postgres') {
    await sql`select pg_advisory_xact_lock(${START_LOCK_KEY})`.execute(tx.db);
  }
}

/** Identity rows an account reset keeps. */
const KEPT_BY_ACCOUNT_RESET: readonly string[] = ['accounts', 'users', 'tokens'];
/** Rows a cancelled account keeps: the account and its billing records. */
const KEPT_BY_ACCOUNT_CLOSE: readonly string[] = [
  'accounts',
  'billing_facts',
  'invoices',
  'invoice_items',
  'payments',
  'payment_methods',
];

async function appliedMigrations(db: Database): Promise<string[]> {
  const rows = await anyDb(db).selectFrom('stratus_migrations').select('name').execute();
  return rows.map((r) => String(r.name)).sort();
}

/**
 * A snapshot's rows the database refuses (a duplicate key, a reference to a row it lacks, a
 * missing value, a value of the wrong type): a 400 naming the table and the database's reason;
 * the transaction rolled back, so nothing was imported. Other errors pass through.
 */
function asImportError(err: unknown, table?: string): unknown {
  if (err instanceof ApiError || !isDataError(err)) return err;
  const why = err instanceof Error ? err.message : String(err);
  const text = `The snapshot's rows were refused by the database: ${why}. Nothing was imported.`;
  return table ? errors.invalidField(`tables.${table}`, text) : errors.reason(text);
}
