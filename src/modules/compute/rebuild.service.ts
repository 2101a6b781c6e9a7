import type { Static } from '@sinclair/typebox';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import { isoSeconds } from '../../lib/time.js';
import type { CatalogueService } from '../catalogue/catalogue.service.js';
import {
  type ApiInstance,
  DEFAULT_HELPERS,
  emptyDevices,
  findInstance,
  type InstanceRow,
  insertConfig,
  insertDisk,
  interfacesOf,
  normalizedOf,
  replaceInterfaces,
  diskEncryptionFor,
  toApiInstances,
} from './compute.repository.js';
import { checkStackScript, recordDeployment } from '../stackscripts/stackscripts.deploy.js';
import { DEFAULT_SWAP_MB, userDataProblem } from './compute.rules.js';
import type { InstancesService } from './instances.service.js';
import type { RebuildBody } from './ops.schemas.js';
import { OUTSTANDING_BALANCE, PENDING_MIGRATION } from './ops.service.js';
import { volumesProblem } from './ops.effects.js';
import { type OpDeps, outstandingBalance, startOp, typeAvailableIn } from './ops.start.js';
import { checkDeployCredentials } from './ssh.js';
import { refuseIfLocked } from '../locks/locks.repository.js';
import { imageProblem, recordSeed } from './machines.seam.js';

type Body = Static<typeof RebuildBody>;

/**
 * Rebuild: shuts the instance down, deletes all its disks and configs, deploys the image (a boot
 * disk and a 512 MB swap disk in one new config, keeping the interfaces of the config it booted
 * last) and boots it if `booted` (default true). `type` resizes during the rebuild, with the
 * resize refusals. Event `compute_rebuild`.
 */
export class RebuildService {
  constructor(
    private readonly d: OpDeps & { catalogue: CatalogueService },
    private readonly instances: InstancesService,
  ) {}

  async rebuild(p: Principal, id: number, b: Body): Promise<ApiInstance> {
    const { catalogue } = this.d;
    // The catalogue and the StackScript rules read outside the transaction (they use their own
    // connection, which a transaction on SQLite would wait for).
    const fe = new FieldErrors();
    const image = await catalogue.deployableImage(p, b.image, fe);
    const stackscript = await checkStackScript(this.d.db, fe, p, b, image ? b.image : null);
    return this.d.db.transaction(async (tx) => {
      const inst = await this.instances.load(tx, p, id, 'read_write', true);
      await refuseIfLocked(tx, 'compute', inst.id, 'rebuild');
      const keys = await checkDeployCredentials(tx, fe, p, {
        imageId: b.image,
        imageFound: image !== undefined,
        root_pass: b.root_pass,
        ...(b.authorized_keys ? { authorized_keys: b.authorized_keys } : {}),
        ...(b.authorized_users ? { authorized_users: b.authorized_users } : {}),
      });
      const typeId = b.type ?? inst.type;
      const type = catalogue.type(typeId);
      if (!type) fe.add('type', 'A valid plan type by that ID was not found');
      const region = catalogue.region(inst.region);
      if (type && region && typeId !== inst.type && !typeAvailableIn(region, type))
        fe.add('type', 'This type is not available in the instance\u2019s region');
      const diskEncryption =
        b.disk_encryption === undefined
          ? inst.disk_encryption
          : diskEncryptionFor(fe, region, b.disk_encryption);
      const minDisk = image ? (catalogue.imageExtras(image.id)?.min_disk_mb ?? image.size) : 0;
      if (type && image && type.disk - DEFAULT_SWAP_MB < minDisk)
        fe.add('image', `The plan's disk must leave at least ${minDisk} MB for the image`);
      const userData = b.metadata?.user_data ?? null;
      if (userData !== null) {
        const up = userDataProblem(userData);
        if (up) fe.add('metadata.user_data', up);
        else if (!region?.capabilities.includes('Metadata'))
          fe.add('metadata.user_data', 'This region does not support metadata (cloud-init)');
        else if (image && !image.capabilities.includes('cloud-init'))
          fe.add('metadata.user_data', 'user_data needs an image that supports cloud-init');
      }
      const missing = image ? imageProblem(this.d.machines, image.id) : undefined;
      if (missing) fe.add('image', missing);
      fe.throwIfAny();
      if (!type || !image) throw errors.internal();
      if (typeId !== inst.type) {
        if (inst.pending_migration !== null) throw errors.reason(PENDING_MIGRATION);
        if (await outstandingBalance(tx, p.accountId)) throw errors.reason(OUTSTANDING_BALANCE);
        const vp = await volumesProblem(tx, inst.id, type);
        if (vp) throw errors.invalidField('type', vp);
      }
      await this.instances.assertIdle(tx, inst);
      await this.instances.assertDisksIdle(tx, inst);

      const configId = await this.redeploy(tx, inst, image.id, image.label, type.disk, minDisk);
      if (stackscript)
        await recordDeployment(
          tx,
          stackscript,
          inst.id,
          p.accountId,
          isoSeconds(this.d.clock.nowMs()),
        );
      await tx.db
        .updateTable('instances')
        .set({
          // A shared image keeps its `shared/<n>` id (the producer's stays hidden).
          image: b.image.startsWith('shared/') ? b.image : image.id,
          ...(userData !== null ? { has_user_data: 1 } : {}),
          ...(diskEncryption !== undefined ? { disk_encryption: diskEncryption } : {}),
          last_booted_config_id: null,
        })
        .where('id', '=', inst.id)
        .execute();
      await recordSeed(
        tx,
        this.d.machines,
        { instanceId: inst.id, accountId: p.accountId },
        { rootPass: b.root_pass, authorizedKeys: keys, userData },
        isoSeconds(this.d.clock.nowMs()),
      );
      await startOp(this.d, tx, p, inst, {
        op: 'rebuild',
        action: 'compute_rebuild',
        boot: b.booted ?? true,
        configId,
        ...(typeId !== inst.type ? { type: typeId } : {}),
      });
      const row = (await findInstance(tx, p.accountId, id)) as InstanceRow;
      const [api] = await toApiInstances(tx, catalogue, [row]);
      return api as ApiInstance;
    });
  }

  /** Deletes every disk and config and deploys the image; returns the new config's id. */
  private async redeploy(
    tx: Database,
    inst: InstanceRow,
    imageId: string,
    imageLabel: string,
    typeDisk: number,
    minDisk: number,
  ): Promise<number> {
    const now = isoSeconds(this.d.clock.nowMs());
    const configs = await tx.db
      .selectFrom('configs')
      .select('id')
      .where('instance_id', '=', inst.id)
      .orderBy('id')
      .execute();
    const keep =
      inst.last_booted_config_id ?? (configs.length > 0 ? (configs[0]?.id ?? null) : null);
    const kept =
      keep === null ? [] : ((await interfacesOf(tx, [keep])).get(keep) ?? []).map(normalizedOf);
    await tx.db.deleteFrom('config_interfaces').where('instance_id', '=', inst.id).execute();
    await tx.db.deleteFrom('configs').where('instance_id', '=', inst.id).execute();
    await tx.db.deleteFrom('disks').where('instance_id', '=', inst.id).execute();
    const base = { instanceId: inst.id, accountId: inst.account_id, status: 'not ready' as const };
    const fs = this.d.catalogue.imageExtras(imageId)?.filesystem ?? 'ext4';
    const boot = await insertDisk(
      tx,
      {
        ...base,
        label: `${imageLabel} Disk`,
        size: typeDisk - DEFAULT_SWAP_MB,
        filesystem: fs,
        image: imageId,
        usedMb: minDisk,
      },
      now,
    );
    const swap = await insertDisk(
      tx,
      {
        ...base,
        label: `${DEFAULT_SWAP_MB} MB Swap Image`,
        size: DEFAULT_SWAP_MB,
        filesystem: 'swap',
        image: null,
        usedMb: DEFAULT_SWAP_MB,
      },
      now,
    );
    const devices = emptyDevices();
    devices.sda = { disk_id: boot };
    devices.sdb = { disk_id: swap };
    const configId = await insertConfig(
      tx,
      {
        instanceId: inst.id,
        accountId: inst.account_id,
        label: `My ${imageLabel} Disk Profile`,
        kernel: 'compute/latest-64bit',
        comments: '',
        memoryLimit: 0,
        runLevel: 'default',
        virtMode: 'paravirt',
        rootDevice: '/dev/sda',
        helpers: DEFAULT_HELPERS,
        devices,
      },
      now,
    );
    if (kept.length > 0) await replaceInterfaces(tx, configId, inst.id, kept);
    return configId;
  }
}
