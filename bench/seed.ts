import { sql } from 'kysely';
import { Database } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { systemClock } from '../src/lib/clock.js';
import { isoSeconds } from '../src/lib/time.js';
import { ensureDefaultAccount } from '../src/modules/identity/bootstrap.js';

export interface SeedOptions {
  databaseUrl: string;
  adminToken: string;
  events: number;
  /** Events are spread round-robin over this many entity ids, starting at FIRST_ENTITY_ID. */
  entities: number;
  /** ANALYZE afterwards (always done on PostgreSQL, whose autovacuum would do it soon anyway). */
  analyze?: boolean;
  /**
   * Instances of the account, each with two disks (root and swap), a config naming them and two
   * IPv4 addresses (public and private), as an instance created through the API has. Default 0.
   */
  instances?: number;
}

export const FIRST_ENTITY_ID = 1000;
const ROWS_PER_INSERT = 500;
const SPAN_MS = 89 * 86_400_000;
const ACTIONS = [
  'compute_boot',
  'compute_reboot',
  'compute_shutdown',
  'compute_create',
  'disk_create',
];

/**
 * Prepares a database before the server starts: migrations, the default account (user `admin`
 * with the given token) and `events` rows of that account, created within the last 89 days in
 * id order, inserted with multi-row INSERTs in one transaction. PostgreSQL is vacuumed, analyzed
 * and checkpointed after; SQLite is analyzed only when asked.
 */
export async function seedDatabase(o: SeedOptions): Promise<void> {
  const db = Database.connect(o.databaseUrl);
  try {
    await migrateToLatest(db.db, db.dialect);
    await ensureDefaultAccount(db, systemClock, o.adminToken);
    const account = await db.db
      .selectFrom('accounts')
      .select('id')
      .orderBy('id')
      .executeTakeFirstOrThrow();
    const now = systemClock.nowMs();
    const start = now - SPAN_MS;
    if (o.instances) await seedInstances(db, account.id, o.instances, now);
    await db.transaction(async (tx) => {
      for (let from = 0; from < o.events; from += ROWS_PER_INSERT) {
        const rows = [];
        for (let i = from; i < Math.min(o.events, from + ROWS_PER_INSERT); i++) {
          const createdMs = start + Math.floor((i * SPAN_MS) / o.events);
          const entityId = FIRST_ENTITY_ID + (i % o.entities);
          rows.push({
            account_id: account.id,
            action: ACTIONS[i % ACTIONS.length] as string,
            created: isoSeconds(createdMs),
            duration: 12.5,
            entity_type: 'compute',
            entity_id: entityId,
            entity_label: `compute-${entityId}`,
            entity_url: `/v4/compute/instances/${entityId}`,
            secondary_entity_type: null,
            secondary_entity_id: null,
            secondary_entity_label: null,
            secondary_entity_url: null,
            message: null,
            percent_complete: 100,
            rate: null,
            read: 0,
            seen: 0,
            status: 'finished',
            time_remaining: null,
            username: 'admin',
            started_ms: createdMs,
          });
        }
        await tx.db.insertInto('events').values(rows).execute();
      }
    });
    if (db.dialect === 'postgres') {
      // Rows inserted with explicit ids: move the sequences past them.
      for (const table of ['instances', 'disks', 'configs', 'ip_addresses']) {
        await sql`select setval(pg_get_serial_sequence(${table}, 'id'), coalesce((select max(id) from ${sql.table(table)}), 0) + 1, false)`.execute(
          db.db,
        );
      }
      // Do now the maintenance a bulk load triggers (autovacuum, the checkpoint), so that it does
      // not compete with the server for the cores while the scenarios are measured.
      await sql`vacuum analyze`.execute(db.db);
      await sql`checkpoint`.execute(db.db);
    } else if (o.analyze) {
      await sql`analyze`.execute(db.db);
    }
  } finally {
    await db.close();
  }
}

const REGION = 'us-east';
const TYPE = 'g6-standard-1';
const IMAGE = 'compute/debian12';

/** Runs `rows(from, to)` in chunks of ROWS_PER_INSERT inside one transaction per 20,000 rows. */
async function chunked(
  db: Database,
  total: number,
  insert: (tx: Database, from: number, to: number) => Promise<void>,
): Promise<void> {
  const perTx = 20_000;
  for (let start = 0; start < total; start += perTx) {
    await db.transaction(async (tx) => {
      for (let from = start; from < Math.min(total, start + perTx); from += ROWS_PER_INSERT) {
        await insert(tx, from, Math.min(total, from + ROWS_PER_INSERT, start + perTx));
      }
    });
  }
}

/**
 * `count` instances with ids 1..count (the database has none before), the rows an instance
 * created through the API and booted has, in the shape of the migrations: the instance (running,
 * its status already read), a root and a swap disk (ids 2i-1, 2i), a config with both disks as
 * sda/sdb (id i), a public and a private IPv4 address.
 */
async function seedInstances(
  db: Database,
  accountId: number,
  count: number,
  nowMs: number,
): Promise<void> {
  const stamp = isoSeconds(nowMs - 86_400_000);
  const alerts = JSON.stringify({
    cpu: 90,
    io: 10000,
    network_in: 10,
    network_out: 10,
    transfer_quota: 80,
  });
  const helpers = JSON.stringify({
    updatedb_disabled: true,
    distro: true,
    modules_dep: true,
    network: true,
    devtmpfs_automount: true,
  });
  await chunked(db, count, async (tx, from, to) => {
    const instances = [];
    const disks = [];
    const configs = [];
    const ips = [];
    for (let i = from; i < to; i++) {
      const id = i + 1;
      instances.push({
        id,
        account_id: accountId,
        label: `bench-${id}`,
        region: REGION,
        type: TYPE,
        image: IMAGE,
        status: 'running' as const,
        seen_status: 'running',
        group_label: '',
        host_uuid: `${(id * 2654435761).toString(16).padStart(12, '0').slice(-12)}-bench-host`,
        watchdog_enabled: 1,
        alerts,
        backups_enabled: 0,
        backups_day: null,
        backups_window: null,
        backups_last_successful: null,
        has_user_data: 0,
        ipv6: `2600:3c00::${(id >>> 16).toString(16)}:${(id & 0xffff).toString(16)}`,
        last_booted_config_id: id,
        pending_migration: null,
        resume_status: null,
        created: stamp,
        updated: stamp,
      });
      disks.push(
        {
          id: 2 * id - 1,
          instance_id: id,
          account_id: accountId,
          label: 'Debian 12 Disk',
          status: 'ready' as const,
          size: 50_688,
          filesystem: 'ext4',
          image: IMAGE,
          used_mb: 1_500,
          created: stamp,
          updated: stamp,
        },
        {
          id: 2 * id,
          instance_id: id,
          account_id: accountId,
          label: '512 MB Swap Image',
          status: 'ready' as const,
          size: 512,
          filesystem: 'swap',
          image: null,
          used_mb: 0,
          created: stamp,
          updated: stamp,
        },
      );
      configs.push({
        id,
        instance_id: id,
        account_id: accountId,
        label: 'My Debian 12 Disk Profile',
        kernel: 'compute/grub2',
        comments: '',
        memory_limit: 0,
        run_level: 'default',
        virt_mode: 'paravirt',
        root_device: '/dev/sda',
        helpers,
        devices: JSON.stringify({
          sda: { disk_id: 2 * id - 1 },
          sdb: { disk_id: 2 * id },
          sdc: null,
          sdd: null,
          sde: null,
          sdf: null,
          sdg: null,
          sdh: null,
        }),
        created: stamp,
        updated: stamp,
      });
      // Public addresses from the default pool (198.18.0.0/15: 131,072 of them); private ones
      // from 10.0.0.0/8, as the default private pool (a /17) is smaller than 100,000.
      const pub = 0xc6120000 + id;
      const priv = 0x0a000000 + id;
      ips.push(
        {
          account_id: accountId,
          instance_id: id,
          region: REGION,
          address: dotted(pub),
          address_num: pub,
          kind: 'public' as const,
          prefix: 24,
          gateway: dotted((pub & 0xffffff00) + 1),
          subnet_mask: '255.255.255.0',
          rdns: null,
          created: stamp,
        },
        {
          account_id: accountId,
          instance_id: id,
          region: REGION,
          address: dotted(priv),
          address_num: priv,
          kind: 'private' as const,
          prefix: 8,
          gateway: null,
          subnet_mask: '255.0.0.0',
          rdns: null,
          created: stamp,
        },
      );
    }
    await tx.db.insertInto('instances').values(instances).execute();
    await tx.db.insertInto('disks').values(disks).execute();
    await tx.db.insertInto('configs').values(configs).execute();
    await tx.db.insertInto('ip_addresses').values(ips).execute();
  });
}

const dotted = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
