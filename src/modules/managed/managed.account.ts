import { generateKeyPairSync } from 'node:crypto';
import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { errors } from '../../errors/errors.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { Clock } from '../../lib/clock.js';
import { isoSeconds } from '../../lib/time.js';
import { entityRefs } from '../events/events.types.js';
import type { EventWriter } from '../events/events.writer.js';
import { scheduleChecks } from './managed.checks.js';

/**
 * The account's Managed SSH public key (OpenSSH `ssh-ed25519` form). Only the public half is
 * kept: Stratus's "special forces" never log in anywhere.
 */
export function managedSshKey(euuid: string): string {
  const { publicKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ type: 'spki', format: 'der' }).subarray(-32);
  const part = (b: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(b.length);
    return Buffer.concat([len, b]);
  };
  const blob = Buffer.concat([part(Buffer.from('ssh-ed25519')), part(raw)]);
  return `ssh-ed25519 ${blob.toString('base64')} managed-${euuid.toLowerCase()}@compute`;
}

/**
 * Every `/managed` operation: unrestricted users only (403), on an account with Managed
 * enabled (400 otherwise).
 */
export async function requireManaged(db: Database, p: Principal): Promise<void> {
  authz.requireUnrestricted(p);
  const row = await db.db
    .selectFrom('accounts')
    .select('managed')
    .where('id', '=', p.accountId)
    .executeTakeFirst();
  if (!row?.managed) throw errors.reason('Managed is not enabled on this account.');
}

/** Turning Managed on and off for an account, and its SSH key. */
export class ManagedAccountService {
  constructor(
    private readonly d: { db: Database; clock: Clock; events: EventWriter; queue: JobQueue },
  ) {}

  /**
   * `POST /account/settings/managed-enable`: Managed for the whole account (its instances are
   * then all managed); the account's SSH key is made the first time; event `managed_enabled`.
   */
  async enable(p: Principal): Promise<void> {
    authz.requireAccountAccess(p, 'read_write');
    await this.d.db.transaction(async (tx) => {
      const acct = await tx
        .forUpdate(
          tx.db.selectFrom('accounts').select(['managed', 'euuid']).where('id', '=', p.accountId),
        )
        .executeTakeFirstOrThrow();
      if (acct.managed) throw errors.reason('Managed is already enabled on this account.');
      await tx.db
        .updateTable('accounts')
        .set({ managed: 1 })
        .where('id', '=', p.accountId)
        .execute();
      await tx.db
        .insertInto('managed_keys')
        .values({
          account_id: p.accountId,
          ssh_key: managedSshKey(acct.euuid),
          created: isoSeconds(this.d.clock.nowMs()),
        })
        .onConflict((oc) => oc.column('account_id').doNothing())
        .execute();
      // Enabled again: the services set up before are monitored again.
      const services = await tx.db
        .selectFrom('managed_services')
        .select('id')
        .where('account_id', '=', p.accountId)
        .where('status', '!=', 'disabled')
        .execute();
      for (const s of services)
        await scheduleChecks(tx, this.d.queue, s.id, p.accountId, this.d.clock.nowMs());
      await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'managed_enabled',
        entity: entityRefs.account(acct.euuid),
        status: 'notification',
        username: p.username,
      });
    });
  }

  /**
   * Turns Managed off (the real service does it through support; here an emulator control):
   * checks stop with it, what was set up stays for a later enable; event `managed_disabled`.
   */
  async disable(euuid: string): Promise<{ euuid: string; managed: boolean }> {
    await this.d.db.transaction(async (tx) => {
      const acct = await tx
        .forUpdate(
          tx.db.selectFrom('accounts').select(['id', 'managed']).where('euuid', '=', euuid),
        )
        .executeTakeFirst();
      if (!acct) throw errors.invalidField('euuid', 'No account has this euuid.');
      if (!acct.managed) throw errors.reason('Managed is not enabled on this account.');
      await tx.db.updateTable('accounts').set({ managed: 0 }).where('id', '=', acct.id).execute();
      await this.d.events.record(tx, {
        accountId: acct.id,
        action: 'managed_disabled',
        entity: entityRefs.account(euuid),
        status: 'notification',
        username: null,
      });
    });
    return { euuid, managed: false };
  }

  async sshKey(p: Principal): Promise<{ ssh_key: string }> {
    await requireManaged(this.d.db, p);
    const row = await this.d.db.db
      .selectFrom('managed_keys')
      .select('ssh_key')
      .where('account_id', '=', p.accountId)
      .executeTakeFirstOrThrow();
    return { ssh_key: row.ssh_key };
  }
}
