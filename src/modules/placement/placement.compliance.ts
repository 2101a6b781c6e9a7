import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { Database } from '../../db/database.js';
import { defineJob } from '../../jobs/job.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { Timing } from '../../jobs/timing.js';
import type { Clock } from '../../lib/clock.js';
import { isoSeconds } from '../../lib/time.js';
import type { EntityRef } from '../events/events.types.js';
import type { EventWriter } from '../events/events.writer.js';
import {
  compliance,
  compliantHost,
  type GroupRow,
  membersOf,
  migratingTo,
} from './placement.repository.js';

/** What changing a group's members needs: a request's service or a job step's context. */
export interface PlacementWork {
  db: Database;
  clock: Clock;
  events: EventWriter;
  queue: JobQueue;
  timing: Timing;
}

export const groupRef = (id: number, label: string): EntityRef => ({
  type: 'placement_group',
  id,
  label,
  url: `/v4/placement/groups/${id}`,
});

export function findGroup(db: Database, id: number): Promise<GroupRow | undefined> {
  return db.db.selectFrom('placement_groups').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The group locked for the change (PostgreSQL `FOR UPDATE`), in the account. */
export function lockGroup(
  db: Database,
  accountId: number,
  id: number,
): Promise<GroupRow | undefined> {
  return db
    .forUpdate(
      db.db
        .selectFrom('placement_groups')
        .selectAll()
        .where('id', '=', id)
        .where('account_id', '=', accountId),
    )
    .executeTakeFirst();
}

/**
 * Reads the group's compliance from its members' hosts. When it changed since last announced,
 * writes `placement_group_became_compliant` or `…_became_non_compliant`; a non-compliant group
 * gets the compliance work queued (the real service moves offending members; nothing the
 * customer does, as its documentation says).
 */
export async function settleCompliance(w: PlacementWork, groupId: number): Promise<void> {
  const group = await findGroup(w.db, groupId);
  if (!group) return;
  const members = (await membersOf(w.db, [groupId])).get(groupId) ?? [];
  const compliant = [...compliance(group.placement_group_type, members).values()].every((v) => v);
  if (compliant === (group.is_compliant === 1)) return;
  await w.db.db
    .updateTable('placement_groups')
    .set({ is_compliant: compliant ? 1 : 0 })
    .where('id', '=', groupId)
    .execute();
  await w.events.record(w.db, {
    accountId: group.account_id,
    action: compliant ? 'placement_group_became_compliant' : 'placement_group_became_non_compliant',
    entity: groupRef(group.id, group.label),
    status: 'notification',
    username: null,
  });
  if (!compliant) {
    await w.queue.enqueue(
      w.db,
      complyJob,
      { groupId },
      {
        accountId: group.account_id,
        entity: { type: 'placement_group', id: groupId },
        delayMs: w.timing.stepMs('migrate', 1),
      },
    );
  }
}

/**
 * Makes an instance a member of a group on a host that keeps the group's model (a new member,
 * at create or by a migration into the group), or where it is (an assignment of an instance that
 * exists). Returns whether the instance is compliant where it is.
 */
export async function addMember(
  w: PlacementWork,
  group: GroupRow,
  instanceId: number,
  place: boolean,
): Promise<boolean> {
  const members = (await membersOf(w.db, [group.id])).get(group.id) ?? [];
  if (place) {
    await w.db.db
      .updateTable('instances')
      .set({ host_uuid: compliantHost(group.placement_group_type, members) })
      .where('id', '=', instanceId)
      .execute();
  }
  await w.db.db
    .deleteFrom('placement_group_members')
    .where('instance_id', '=', instanceId)
    .execute();
  await w.db.db
    .insertInto('placement_group_members')
    .values({
      instance_id: instanceId,
      placement_group_id: group.id,
      account_id: group.account_id,
      created: isoSeconds(w.clock.nowMs()),
    })
    .execute();
  const after = (await membersOf(w.db, [group.id])).get(group.id) ?? [];
  return compliance(group.placement_group_type, after).get(instanceId) ?? true;
}

/**
 * The end of an instance's migration (in the operation's last step): a move into a group
 * (`placement_group` of the migrate request) makes it a member there; a move to another region
 * without one takes it out of its group; otherwise it stays a member, on a host its group's
 * model allows. Returns the instance's new host. Both groups' compliance is settled.
 */
export async function finishMigration(
  w: PlacementWork,
  inst: { id: number; pending_migration: string | null },
  datacenter: boolean,
): Promise<string> {
  const target = migratingTo(inst.pending_migration);
  const current = await w.db.db
    .selectFrom('placement_group_members')
    .select('placement_group_id')
    .where('instance_id', '=', inst.id)
    .executeTakeFirst();
  const into = target === null ? undefined : await findGroup(w.db, target);
  const touched = new Set<number>();
  if (current) touched.add(current.placement_group_id);
  if (into) {
    await addMember(w, into, inst.id, true);
    touched.add(into.id);
  } else {
    const group =
      current && !datacenter ? await findGroup(w.db, current.placement_group_id) : undefined;
    if (current && datacenter) {
      await w.db.db
        .deleteFrom('placement_group_members')
        .where('instance_id', '=', inst.id)
        .execute();
    }
    // A migration lands on another host: one its group's model allows, or any.
    const others = group
      ? ((await membersOf(w.db, [group.id])).get(group.id) ?? []).filter(
          (m) => m.instance_id !== inst.id,
        )
      : [];
    await w.db.db
      .updateTable('instances')
      .set({ host_uuid: group ? compliantHost(group.placement_group_type, others) : randomUUID() })
      .where('id', '=', inst.id)
      .execute();
  }
  for (const id of touched) await settleCompliance(w, id);
  const row = await w.db.db
    .selectFrom('instances')
    .select('host_uuid')
    .where('id', '=', inst.id)
    .executeTakeFirstOrThrow();
  return row.host_uuid;
}

/**
 * The compliance work: each member that breaks its group's model is moved to a host that keeps
 * it (the emulator moves hosts instantly once the delay has passed), then the group's
 * compliance is settled (`placement_group_became_compliant`).
 */
export const complyJob = defineJob<{ groupId: number }>({
  name: 'placement.comply',
  version: 1,
  payload: Type.Object({ groupId: Type.Integer() }),
  maxAttempts: 5,
  async handle(ctx, p) {
    const group = await findGroup(ctx.db, p.groupId);
    if (!group) return undefined;
    const members = (await membersOf(ctx.db, [group.id])).get(group.id) ?? [];
    const ok = compliance(group.placement_group_type, members);
    const kept = members.filter((m) => ok.get(m.instance_id));
    for (const m of members) {
      if (ok.get(m.instance_id)) continue;
      const host = compliantHost(group.placement_group_type, kept);
      await ctx.db.db
        .updateTable('instances')
        .set({ host_uuid: host })
        .where('id', '=', m.instance_id)
        .execute();
      kept.push({ ...m, host_uuid: host });
    }
    await settleCompliance(ctx, group.id);
    return undefined;
  },
});
