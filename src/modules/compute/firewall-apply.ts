import { Type } from '@sinclair/typebox';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { defineJob } from '../../jobs/job.js';
import type { JobQueue } from '../../jobs/queue.js';
import { entityRefs } from '../events/events.types.js';
import type { EventWriter } from '../events/events.writer.js';
import type { InstancesService } from './instances.service.js';

export interface FirewallApplyPayload {
  instanceId: number;
  eventId: number;
  step: number;
}

/**
 * The firewalls of an instance being (re)applied: the event `firewall_apply` (entity: the
 * instance, as the web manager words it) goes `scheduled` → `started` → `finished`. The rules
 * Stratus stores are the rules in force, so the apply always succeeds; an instance deleted
 * meanwhile fails it.
 */
export const firewallApplyJob = defineJob<FirewallApplyPayload>({
  name: 'compute.firewall_apply',
  version: 1,
  payload: Type.Object({
    instanceId: Type.Integer(),
    eventId: Type.Integer(),
    step: Type.Integer(),
  }),
  maxAttempts: 5,
  async handle(ctx, p) {
    const inst = await ctx.db.db
      .selectFrom('instances')
      .select('status')
      .where('id', '=', p.instanceId)
      .executeTakeFirst();
    if (!inst || inst.status === 'deleting') {
      await ctx.events.update(ctx.db, p.eventId, {
        status: 'failed',
        message: 'The instance was deleted.',
      });
      return undefined;
    }
    if (p.step === 0) {
      await ctx.events.update(ctx.db, p.eventId, { status: 'started', percentComplete: 0 });
      return { next: { ...p, step: 1 }, delayMs: ctx.timing.stepMs('firewall_apply', 1) };
    }
    await ctx.events.update(ctx.db, p.eventId, { status: 'finished' });
    return undefined;
  },
  async onFailure(ctx, p, error) {
    await ctx.events.update(ctx.db, p.eventId, { status: 'failed', message: error.message });
  },
});

/**
 * `POST /compute/instances/{id}/firewalls/apply` (the Python SDK's `apply_firewalls`: "reapply
 * assigned firewalls to an instance in case they were not applied successfully"): no body, `{}`,
 * read_write on the instance.
 */
export class FirewallApplyService {
  constructor(
    private readonly d: { db: Database; events: EventWriter; queue: JobQueue },
    private readonly instances: InstancesService,
  ) {}

  async apply(p: Principal, id: number): Promise<void> {
    await this.d.db.transaction(async (tx) => {
      const inst = await this.instances.load(tx, p, id, 'read_write');
      const eventId = await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'firewall_apply',
        entity: entityRefs.compute(inst.id, inst.label),
        status: 'scheduled',
        username: p.username,
      });
      await this.d.queue.enqueue(
        tx,
        firewallApplyJob,
        { instanceId: inst.id, eventId, step: 0 },
        { accountId: p.accountId },
      );
    });
  }
}
