import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import type { Dialect } from '../config/config.js';
import * as m0001 from './migrations/0001-platform.js';
import * as m0002 from './migrations/0002-identity.js';
import * as m0003 from './migrations/0003-compute.js';
import * as m0004 from './migrations/0004-volumes.js';
import * as m0005 from './migrations/0005-ip-rdns.js';
import * as m0006 from './migrations/0006-event-feeds.js';
import * as m0007 from './migrations/0007-event-entity-types.js';
import * as m0008 from './migrations/0008-networking.js';
import * as m0009 from './migrations/0009-vpcs.js';
import * as m0010 from './migrations/0010-compute-advanced.js';
import * as m0011 from './migrations/0011-images-stackscripts.js';
import * as m0012 from './migrations/0012-tags-nodebalancers.js';
import * as m0013 from './migrations/0013-emulator-controls.js';
import * as m0014 from './migrations/0014-object-storage.js';
import * as m0015 from './migrations/0015-oauth.js';
import * as m0016 from './migrations/0016-payment-methods.js';
import * as m0017 from './migrations/0017-billing.js';
import * as m0018 from './migrations/0018-account-actions.js';
import * as m0019 from './migrations/0019-storage.js';
import * as m0020 from './migrations/0020-oauth-security.js';
import * as m0025 from './migrations/0025-placement-groups.js';
import * as m0026 from './migrations/0026-reserved-ips.js';
import * as m0027 from './migrations/0027-locks.js';
import * as m0021 from './migrations/0021-live-wire.js';
import * as m0032 from './migrations/0032-firewall-history-settings.js';
import * as m0042 from './migrations/0042-firewall-rulesets.js';
import * as m0022 from './migrations/0022-event-wire-types.js';
import * as m0033 from './migrations/0033-maintenance-policies.js';
import * as m0035 from './migrations/0035-domains.js';
import * as m0037 from './migrations/0037-maintenance-flow.js';
import * as m0047 from './migrations/0047-image-share-groups.js';
import * as m0048 from './migrations/0048-vpc-ipv6.js';
import * as m0049 from './migrations/0049-vpc-interface-ipv6.js';
import * as m0038 from './migrations/0038-support.js';
import * as m0039 from './migrations/0039-longview.js';
import * as m0040 from './migrations/0040-managed.js';
import * as m0041 from './migrations/0041-account-programs.js';
import * as m0031 from './migrations/0031-object-storage-key-regions.js';
import * as m0043 from './migrations/0043-object-storage-key-owners.js';
import * as m0044 from './migrations/0044-tfa-flag.js';
import * as m0050 from './migrations/0050-machines.js';
import * as m0030 from './migrations/0030-nodebalancer-udp.js';
import * as m0051 from './migrations/0051-disk-sources.js';
import * as m0052 from './migrations/0052-job-workers.js';
import * as m0053 from './migrations/0053-nodebalancer-vpcs.js';
import * as m0045 from './migrations/0045-s3-compatibility.js';
import * as m0054 from './migrations/0054-console-client.js';
import * as m0046 from './migrations/0046-image-regions.js';
import * as m0028 from './migrations/0028-compute-interfaces.js';
import * as m0029 from './migrations/0029-volume-encryption.js';
import * as m0034 from './migrations/0034-disk-encryption.js';
import * as m0056 from './migrations/0056-feed-read-jobs.js';
import * as m0061 from './migrations/0061-shared-image-listings.js';
import * as m0058 from './migrations/0058-vpc-ranges-and-vlans.js';
import * as m0059 from './migrations/0059-nodebalancer-vpc-ipv6.js';
import type { MigrationContext } from './migrations/helpers.js';

interface MigrationModule {
  up(ctx: MigrationContext): Promise<void>;
  down(ctx: MigrationContext): Promise<void>;
}

/** Every migration, in order. Add new ones here. */
const MIGRATIONS: Record<string, MigrationModule> = {
  '0001-platform': m0001,
  '0002-identity': m0002,
  '0003-compute': m0003,
  '0004-volumes': m0004,
  '0005-ip-rdns': m0005,
  '0006-event-feeds': m0006,
  '0007-event-entity-types': m0007,
  '0008-networking': m0008,
  '0009-vpcs': m0009,
  '0010-compute-advanced': m0010,
  '0011-images-stackscripts': m0011,
  '0012-tags-nodebalancers': m0012,
  '0013-emulator-controls': m0013,
  '0014-object-storage': m0014,
  '0015-oauth': m0015,
  '0016-payment-methods': m0016,
  '0017-billing': m0017,
  '0018-account-actions': m0018,
  '0019-storage': m0019,
  '0020-oauth-security': m0020,
  '0025-placement-groups': m0025,
  '0026-reserved-ips': m0026,
  '0027-locks': m0027,
  '0021-live-wire': m0021,
  '0032-firewall-history-settings': m0032,
  '0042-firewall-rulesets': m0042,
  '0022-event-wire-types': m0022,
  '0033-maintenance-policies': m0033,
  '0035-domains': m0035,
  '0037-maintenance-flow': m0037,
  '0047-image-share-groups': m0047,
  '0038-support': m0038,
  '0039-longview': m0039,
  '0040-managed': m0040,
  '0041-account-programs': m0041,
  '0031-object-storage-key-regions': m0031,
  '0043-object-storage-key-owners': m0043,
  '0044-tfa-flag': m0044,
  '0050-machines': m0050,
  '0030-nodebalancer-udp': m0030,
  '0051-disk-sources': m0051,
  '0052-job-workers': m0052,
  '0053-nodebalancer-vpcs': m0053,
  '0045-s3-compatibility': m0045,
  '0054-console-client': m0054,
  '0046-image-regions': m0046,
  '0028-compute-interfaces': m0028,
  '0029-volume-encryption': m0029,
  '0034-disk-encryption': m0034,
  '0056-feed-read-jobs': m0056,
  '0048-vpc-ipv6': m0048,
  '0049-vpc-interface-ipv6': m0049,
  '0061-shared-image-listings': m0061,
  '0058-vpc-ranges-and-vlans': m0058,
  '0059-nodebalancer-vpc-ipv6': m0059,
};

/** The names of every migration this code has (the table `stratus_migrations` lists those applied). */
export const migrationNames = (): string[] => Object.keys(MIGRATIONS);

class StratusMigrationProvider implements MigrationProvider {
  constructor(private readonly dialect: Dialect) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    const out: Record<string, Migration> = {};
    for (const [name, mod] of Object.entries(MIGRATIONS)) {
      out[name] = {
        up: (db: Kysely<unknown>) => mod.up({ db, dialect: this.dialect }),
        down: (db: Kysely<unknown>) => mod.down({ db, dialect: this.dialect }),
      };
    }
    return out;
  }
}

function migratorFor(db: Kysely<unknown>, dialect: Dialect): Migrator {
  return new Migrator({
    db,
    provider: new StratusMigrationProvider(dialect),
    migrationTableName: 'stratus_migrations',
    migrationLockTableName: 'stratus_migrations_lock',
    // Areas land in parallel; a later-numbered migration may be applied before an earlier one.
    allowUnorderedMigrations: true,
    // By code unit, as the names are ASCII: Kysely's default, localeCompare, first loads ICU's
    // collation (about a tenth of a server's start).
    nameComparator: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
  });
}

type Count = { n: number };

/**
 * Whether the database has applied exactly the code's migrations, read in one or two queries.
 * Kysely's migrator, even with nothing to do, first introspects every column of every table twice
 * (on PostgreSQL a catalogue join over the 150-odd tables' columns, per column a serial-sequence
 * look-up): about half of what connecting to a migrated database costs its server, paid at every
 * start and by every test's app. Anything else (a new database, a pending migration, one this
 * code lacks) goes to the migrator, which applies or refuses it as before.
 */
async function allApplied(db: Kysely<unknown>, dialect: Dialect): Promise<boolean> {
  const exists =
    dialect === 'postgres'
      ? sql<Count>`select count(to_regclass('stratus_migrations'))::int as n`
      : sql<Count>`select count(*) as n from sqlite_master where name = 'stratus_migrations'`;
  if (Number((await exists.execute(db)).rows[0]?.n) !== 1) return false;
  const { rows } = await sql<{ name: string }>`select name from stratus_migrations`.execute(db);
  const names = new Set(migrationNames());
  return rows.length === names.size && rows.every((r) => names.has(r.name));
}

/**
 * Applies every pending migration; returns the names applied. Processes starting together on one
 * SQLite file race (Kysely's migration lock is a no-op there): the loser's migration fails on a
 * table the winner created, and a second pass finds everything applied.
 */
export async function migrateToLatest<T>(db: Kysely<T>, dialect: Dialect): Promise<string[]> {
  if (await allApplied(db as unknown as Kysely<unknown>, dialect)) return [];
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await migratorFor(
      db as unknown as Kysely<unknown>,
      dialect,
    ).migrateToLatest();
    if (!error) {
      return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    }
    if (dialect !== 'sqlite' || attempt >= 5) {
      throw error instanceof Error ? error : new Error(String(error));
    }
    await new Promise((r) => setTimeout(r, 100 * attempt + Math.random() * 100));
  }
}

/** Migrates up or down to the named migration (tests of data migrations). */
export async function migrateTo<T>(db: Kysely<T>, dialect: Dialect, name: string): Promise<void> {
  const { error } = await migratorFor(db as unknown as Kysely<unknown>, dialect).migrateTo(name);
  if (error) throw error instanceof Error ? error : new Error(String(error));
}

/** Reverts every migration (used by the up/down check). */
export async function migrateDownAll<T>(db: Kysely<T>, dialect: Dialect): Promise<void> {
  const m = migratorFor(db as unknown as Kysely<unknown>, dialect);
  for (;;) {
    const { error, results } = await m.migrateDown();
    if (error) throw error instanceof Error ? error : new Error(String(error));
    if (!results || results.length === 0) return;
  }
}
