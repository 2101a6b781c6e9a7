import type { Logger } from 'pino';
import type { Database } from '../../db/database.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { Clock } from '../../lib/clock.js';
import { isoSeconds } from '../../lib/time.js';
import type { ComputeDriver } from '../../machines/driver.js';
import { entityRefs } from '../events/events.types.js';
import type { EventWriter } from '../events/events.writer.js';
import { machineFirewalls } from '../networking/firewall-machines.js';
import { closeRun, lifecycleJob } from './compute.jobs.js';
import { wantedVolumes } from './machines.seam.js';

export interface AgentDeps {
  db: Database;
  machines: ComputeDriver;
  events: EventWriter;
  queue: JobQueue;
  clock: Clock;
  log: Logger;
  watchMs: number;
}

/** The watchdog gives up after more than 5 boot jobs within 15 minutes (spec). */
const WATCHDOG_WINDOW_MS = 15 * 60_000;
const WATCHDOG_MAX_BOOTS = 5;
/** Counters are sampled, and files and processes nobody owns swept, this often. */
const SAMPLE_MS = 60_000;
const SWEEP_MS = 60_000;
/** Samples older than this are dropped (statistics reach back a year). */
const KEEP_SAMPLES_MS = 366 * 86_400_000;

/**
 * The host agent of the QEMU driver, in every process that runs jobs (`stratus serve` with its
 * worker, `stratus worker`). It looks at the machines every STRATUS_VM_WATCH_MS:
 *
 * - a machine that went off while its instance shows `running` (a power-off from inside the
 *   guest, a crash, a host reboot, a Stratus restart that found it gone) is seen: the watchdog
 *   boots it again with a `lassie_reboot` event, or the instance goes `offline` with a
 *   `compute_shutdown` event;
 * - running machines get the volumes attached to their instance, and lose detached ones;
 * - in bridge mode, each running machine's firewalls are computed again and applied when their
 *   nftables text changed (a firewall created, deleted, enabled or disabled, its rules or a rule
 *   set it names changed, a device added or removed on the instance or one of its interfaces):
 *   one cheap pass catches every kind of change without a hook in each firewall route;
 * - every minute, their counters become `machine_samples` (the statistics), and files and
 *   processes whose rows are gone (a reset, a deleted volume, image or backup) are removed.
 *
 * Several processes may run it on one host: every change is checked again in its transaction.
 */
export class MachineAgent {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private lastSample = 0;
  private lastSweep = 0;

  constructor(private readonly d: AgentDeps) {}

  start(): void {
    if (!this.d.machines.real || this.timer) return;
    const loop = () => {
      this.running = this.tick()
        .catch((err) => this.d.log.error({ err }, 'machine agent tick failed'))
        .finally(() => {
          this.running = undefined;
          if (this.timer) this.timer = setTimeout(loop, this.d.watchMs);
        });
    };
    this.timer = setTimeout(loop, 0);
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One look at every machine (exported for tests). */
  async tick(): Promise<void> {
    const { db, machines } = this.d;
    const rows = await db.db
      .selectFrom('instances')
      .select([
        'id',
        'account_id',
        'label',
        'status',
        'region',
        'watchdog_enabled',
        'last_booted_config_id',
      ])
      .execute();
    for (const inst of rows) {
      if (inst.status !== 'running') continue;
      if (await this.d.queue.hasActive(db, 'compute', inst.id)) continue;
      const { state } = await machines.status(inst.id);
      if (state === 'running' || state === 'paused') {
        await this.syncVolumes(inst).catch((err) =>
          this.d.log.warn({ instanceId: inst.id, err: String(err) }, 'volume hot-plug failed'),
        );
        await this.syncFirewall(inst.id).catch((err) =>
          this.d.log.warn({ instanceId: inst.id, err: String(err) }, 'firewall apply failed'),
        );
        continue;
      }
      await machines.stop(inst.id);
      await this.poweredOff(inst.id);
    }
    const now = Date.now();
    if (now - this.lastSample >= SAMPLE_MS) {
      this.lastSample = now;
      await this.sample(rows.filter((r) => r.status === 'running'));
    }
    if (now - this.lastSweep >= SWEEP_MS) {
      this.lastSweep = now;
      await this.sweep(rows);
    }
  }

  /**
   * The machine of a `running` instance went off without an action of the API: the watchdog
   * (`watchdog_enabled`) boots it again, unless it already booted it more than 5 times in 15
   * minutes; otherwise the instance is `offline`.
   */
  async poweredOff(instanceId: number): Promise<'rebooted' | 'offline' | 'ignored'> {
    const { db, clock, events, queue } = this.d;
    return db.transaction(async (tx) => {
      const inst = await tx
        .forUpdate(tx.db.selectFrom('instances').selectAll().where('id', '=', instanceId))
        .executeTakeFirst();
      if (inst?.status !== 'running') return 'ignored';
      if (await queue.hasActive(tx, 'compute', inst.id)) return 'ignored';
      const nowMs = clock.nowMs();
      const now = isoSeconds(nowMs);
      await closeRun(tx, inst.id, nowMs);
      const recent = await tx.db
        .selectFrom('events')
        .select('id')
        .where('entity_type', '=', 'compute')
        .where('entity_id', '=', inst.id)
        .where('action', '=', 'lassie_reboot')
        .where('created', '>=', isoSeconds(nowMs - WATCHDOG_WINDOW_MS))
        .execute();
      const entity = entityRefs.compute(inst.id, inst.label);
      if (inst.watchdog_enabled === 1 && recent.length < WATCHDOG_MAX_BOOTS) {
        const eventId = await events.record(tx, {
          accountId: inst.account_id,
          action: 'lassie_reboot',
          entity,
          status: 'scheduled',
          username: null,
        });
        await tx.db
          .updateTable('instances')
          .set({ status: 'booting', updated: now })
          .where('id', '=', inst.id)
          .execute();
        await queue.enqueue(
          tx,
          lifecycleJob,
          {
            instanceId: inst.id,
            accountId: inst.account_id,
            op: 'boot',
            eventId,
            step: 0,
            configId: inst.last_booted_config_id,
            username: null,
          },
          { accountId: inst.account_id, entity: { type: 'compute', id: inst.id } },
        );
        this.d.log.info({ instanceId: inst.id }, 'machine went off: the watchdog boots it');
        return 'rebooted';
      }
      await tx.db
        .updateTable('instances')
        .set({ status: 'offline', updated: now })
        .where('id', '=', inst.id)
        .execute();
      await events.record(tx, {
        accountId: inst.account_id,
        action: 'compute_shutdown',
        entity,
        status: 'finished',
        username: null,
      });
      this.d.log.info({ instanceId: inst.id }, 'machine went off: the instance is offline');
      return 'offline';
    });
  }

  /** Hot-plugs the instance's attached volumes into its machine, and unplugs the others. */
  async syncVolumes(inst: { id: number; last_booted_config_id: number | null }): Promise<void> {
    const { db, machines } = this.d;
    const want = await wantedVolumes(db, inst);
    const have = new Set(await machines.attachedVolumes(inst.id));
    const wanted = new Set(want.map((w) => w.volume.volumeId));
    for (const id of have) if (!wanted.has(id)) await machines.detachVolume(inst.id, id);
    for (const w of want)
      if (!have.has(w.volume.volumeId)) await machines.attachVolume(inst.id, w.volume, w.slot);
  }

  /** Applies the instance's enabled firewalls to its machine (a no-op when they did not change). */
  async syncFirewall(instanceId: number): Promise<boolean> {
    const { db, machines } = this.d;
    if (!machines.firewalls) return false;
    return machines.applyFirewall(instanceId, await machineFirewalls(db, instanceId));
  }

  private async sample(running: { id: number; account_id: number }[]): Promise<void> {
    const { db, machines, clock } = this.d;
    const t = clock.nowMs();
    for (const inst of running) {
      const c = await machines.counters(inst.id).catch(() => null);
      if (!c) continue;
      await db.db
        .insertInto('machine_samples')
        .values({
          instance_id: inst.id,
          account_id: inst.account_id,
          t_ms: t,
          cpu_ms: c.cpuMs,
          disk_read_ops: c.diskReadOps,
          disk_write_ops: c.diskWriteOps,
          disk_read_bytes: c.diskReadBytes,
          disk_write_bytes: c.diskWriteBytes,
          net_rx_bytes: c.netRxBytes,
          net_tx_bytes: c.netTxBytes,
        })
        .execute();
    }
    await db.db
      .deleteFrom('machine_samples')
      .where('t_ms', '<', t - KEEP_SAMPLES_MS)
      .execute();
  }

  /**
   * Removes what no row owns any more: machines and files of deleted instances (a reset), files of
   * deleted volumes, images and backups. Work under way is safe: its row exists until it ends.
   */
  async sweep(instances: { id: number; region: string }[]): Promise<void> {
    const { db, machines } = this.d;
    const known = new Map(instances.map((i) => [i.id, i]));
    for (const m of await machines.list()) {
      if (!known.has(m.instanceId)) {
        await machines.destroy({ instanceId: m.instanceId, region: m.region });
        this.d.log.info({ instanceId: m.instanceId }, 'removed the machine of a deleted instance');
      }
    }
    const ids = async (table: 'volumes' | 'private_images' | 'backups') =>
      new Set((await db.db.selectFrom(table).select('id').execute()).map((r) => r.id));
    await machines.sweep({
      volumes: await ids('volumes'),
      images: await ids('private_images'),
      backups: await ids('backups'),
    });
  }
}
