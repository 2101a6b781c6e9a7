import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { compileFilter, type FilterSpec } from '../../lib/filter.js';
import { type Page, type PageParams, paginate } from '../../lib/pagination.js';
import { isoSeconds } from '../../lib/time.js';
import { entityRefs } from '../events/events.types.js';
import type { EventWriter } from '../events/events.writer.js';
import type { SshKeysTable } from '../identity/identity.table.js';
import { formatPublicKey, parsePublicKey } from './ssh-keys.js';
import type { SshKey, SshKeyCreate, SshKeyUpdate } from './sshkeys.schemas.js';

type SshKeyRow = Omit<SshKeysTable, 'id'> & { id: number };

/** SSHKey has no filterable fields in the reference. */
const SSH_KEY_FILTERS: FilterSpec = {};
const LABEL_MAX = 64;

const toSshKey = (r: SshKeyRow): SshKey => ({
  id: r.id,
  label: r.label,
  ssh_key: r.ssh_key,
  created: r.created,
});

function labelProblem(fe: FieldErrors, label: string | undefined): void {
  if (label !== undefined && label.length > LABEL_MAX)
    fe.add('label', `Length must be ${LABEL_MAX} characters or fewer.`);
}

/** The caller's own SSH keys (`/profile/sshkeys`). */
export class SshKeysService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly events: EventWriter,
  ) {}

  private own(db: Database, p: Principal) {
    return db.db
      .selectFrom('ssh_keys')
      .where('ssh_keys.user_id', '=', p.userId)
      .where('ssh_keys.account_id', '=', p.accountId);
  }

  private async find(db: Database, p: Principal, id: number): Promise<SshKeyRow> {
    const row = await this.own(db, p).selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw errors.notFound();
    return row;
  }

  async list(
    p: Principal,
    params: PageParams,
    xFilter: string | string[] | undefined,
  ): Promise<Page<SshKey>> {
    return paginate(
      this.own(this.db, p),
      (qb) => qb.selectAll('ssh_keys'),
      compileFilter(xFilter, SSH_KEY_FILTERS, this.db.dialect),
      params,
      { idColumn: 'ssh_keys.id' },
      toSshKey,
    );
  }

  async get(p: Principal, id: number): Promise<SshKey> {
    return toSshKey(await this.find(this.db, p, id));
  }

  /** POST /profile/sshkeys: the key is parsed and validated; event `user_ssh_key_add`. */
  async create(p: Principal, body: SshKeyCreate): Promise<SshKey> {
    const fe = new FieldErrors();
    labelProblem(fe, body.label);
    const parsed = parsePublicKey(body.ssh_key);
    let sshKey = '';
    if ('problem' in parsed) fe.add('ssh_key', parsed.problem);
    else sshKey = formatPublicKey(parsed);
    fe.throwIfAny();
    const label = body.label ?? '';
    return this.db.transaction(async (tx) => {
      const row = await tx.db
        .insertInto('ssh_keys')
        .values({
          account_id: p.accountId,
          user_id: p.userId,
          label,
          ssh_key: sshKey,
          created: isoSeconds(this.clock.nowMs()),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await this.events.record(tx, {
        accountId: p.accountId,
        action: 'user_ssh_key_add',
        entity: entityRefs.sshKey(row.id, label),
        status: 'notification',
        username: p.username,
      });
      return toSshKey(row);
    });
  }

  /** PUT /profile/sshkeys/{id}: the label only; event `user_ssh_key_update`. */
  async update(p: Principal, id: number, body: SshKeyUpdate): Promise<SshKey> {
    const fe = new FieldErrors();
    labelProblem(fe, body.label);
    fe.throwIfAny();
    return this.db.transaction(async (tx) => {
      const row = await this.find(tx, p, id);
      const label = body.label ?? row.label;
      await tx.db.updateTable('ssh_keys').set({ label }).where('id', '=', id).execute();
      await this.events.record(tx, {
        accountId: p.accountId,
        action: 'user_ssh_key_update',
        entity: entityRefs.sshKey(id, label),
        status: 'notification',
        username: p.username,
      });
      return toSshKey({ ...row, label });
    });
  }

  /** DELETE /profile/sshkeys/{id}: keys already deployed on disks stay there; event `user_ssh_key_delete`. */
  async delete(p: Principal, id: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      const row = await this.find(tx, p, id);
      await tx.db.deleteFrom('ssh_keys').where('id', '=', id).execute();
      await this.events.record(tx, {
        accountId: p.accountId,
        action: 'user_ssh_key_delete',
        entity: entityRefs.sshKey(id, row.label),
        status: 'notification',
        username: p.username,
      });
    });
  }
}
