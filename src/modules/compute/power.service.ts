import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { errors } from '../../errors/errors.js';
import { entityRefs } from '../events/events.types.js';
import type { EventWriter } from '../events/events.writer.js';
import type { JobQueue } from '../../jobs/queue.js';
import { type LifecycleOp, lifecycleJob } from './compute.jobs.js';
import { configRef, type InstanceRow } from './compute.repository.js';
import type { InstancesService } from './instances.service.js';
import { isoSeconds } from '../../lib/time.js';
import type { Clock } from '../../lib/clock.js';
import type { ComputeDriver } from '../../machines/driver.js';
import { assertCapacity } from './machines.seam.js';

/**
 * The config a boot or reboot uses (spec): `config_id` if given (it must belong to the
 * instance), else the last booted config, else the only config, else an error.
 */
export async function chooseConfig(
  db: Database,
  inst: InstanceRow,
  configId: number | null | undefined,
): Promise<number> {
  const configs = await db.db
    .selectFrom('configs')
    .select('id')
    .where('instance_id', '=', inst.id)
    .orderBy('id')
    .execute();
  const ids = configs.map((c) => c.id);
  if (configId !== undefined && configId !== null) {
    if (!ids.includes(configId)) throw errors.invalidField('config_id', 'Config not found');
    return configId;
  }
  if (inst.last_booted_config_id !== null && ids.includes(inst.last_booted_config_id))
    return inst.last_booted_config_id;
  if (ids.length === 1) return ids[0] as number;
  if (ids.length === 0) throw errors.reason('Compute has no configuration profiles to boot.');
  throw errors.invalidField(
    'config_id',
    'Compute has several configuration profiles and none was booted last; a config_id is required.',
  );
}

const NEXT_STATUS: Record<Exclude<LifecycleOp, 'provision'>, InstanceRow['status']> = {
  boot: 'booting',
  reboot: 'rebooting',
  shutdown: 'shutting_down',
};

/** Boot, reboot and shut down. Queued actions must finish first (400 `Compute busy.`). */
export class PowerService {
  constructor(
    private readonly d: {
      db: Database;
      clock: Clock;
      events: EventWriter;
      queue: JobQueue;
      machines: ComputeDriver;
    },
    private readonly instances: InstancesService,
  ) {}

  async boot(p: Principal, id: number, configId: number | null | undefined): Promise<void> {
    await this.act(p, id, 'boot', configId);
  }

  async reboot(p: Principal, id: number, configId: number | null | undefined): Promise<void> {
    await this.act(p, id, 'reboot', configId);
  }

  async shutdown(p: Principal, id: number): Promise<void> {
    await this.act(p, id, 'shutdown', undefined);
  }

  private async act(
    p: Principal,
    id: number,
    requested: Exclude<LifecycleOp, 'provision'>,
    configId: number | null | undefined,
  ) {
    await this.d.db.transaction(async (tx) => {
      const inst = await this.instances.load(tx, p, id, 'read_write', true);
      await this.instances.assertIdle(tx, inst);
      await this.instances.assertDisksIdle(tx, inst);
      // A reboot of an instance that is off boots it; a boot of a running one is refused.
      let op = requested;
      if (op === 'reboot' && inst.status === 'offline') op = 'boot';
      if (op === 'boot' && inst.status === 'running')
        throw errors.reason('Compute is already running.');
      if (op === 'boot') await assertCapacity(tx, this.d.machines, inst.id, inst.type);
      const chosen =
        op === 'shutdown' ? inst.last_booted_config_id : await chooseConfig(tx, inst, configId);
      const action =
        requested === 'reboot'
          ? 'compute_reboot'
          : op === 'boot'
            ? 'compute_boot'
            : 'compute_shutdown';
      const eventId = await this.d.events.record(tx, {
        accountId: p.accountId,
        action,
        entity: entityRefs.compute(inst.id, inst.label),
        // A boot or reboot names the config it boots (the wire); a shutdown names none.
        secondaryEntity: op === 'shutdown' ? null : await configRef(tx, inst.id, chosen),
        status: 'scheduled',
        username: p.username,
      });
      // Shutting down an instance that is already off changes nothing but is still recorded.
      const status = op === 'shutdown' && inst.status === 'offline' ? 'offline' : NEXT_STATUS[op];
      await tx.db
        .updateTable('instances')
        .set({ status, seen_status: null, updated: isoSeconds(this.d.clock.nowMs()) })
        .where('id', '=', inst.id)
        .execute();
      await this.d.queue.enqueue(
        tx,
        lifecycleJob,
        {
          instanceId: inst.id,
          accountId: p.accountId,
          op: op === 'boot' && requested === 'reboot' ? 'boot' : op,
          eventId,
          step: 0,
          configId: chosen,
          username: p.username,
        },
        { accountId: p.accountId, entity: { type: 'compute', id: inst.id } },
      );
    });
  }
}
