import { existsSync, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { Logger } from 'pino';
import type { MachinesConfig } from '../../config/machines-config.js';
import type { BlobStore } from '../../storage/index.js';
import {
  CapacityError,
  type ComputeDriver,
  DEVICE_SLOTS,
  type DeviceSlot,
  type DiskRef,
  type DiskSource,
  type InstanceRef,
  MachineError,
  type MachineCounters,
  type MachineFirewall,
  type MachineInfo,
  type MachineSpec,
  type MachineState,
  type MachineStatus,
  type Resources,
  type VolumeRef,
} from '../driver.js';
import {
  deviceId,
  kernelCmdline,
  type LaunchPlan,
  macOf,
  nodeName,
  type PlannedDevice,
  qemuArgs,
  scsiProperties,
} from './command-line.js';
import { KeyedMutex, kvmBoots, portFree, processAlive, readPid, withHostLock } from './host.js';
import { type BootInfo, copyBoot, ImageFolder, readBoot, writeBoot } from './images.js';
import { instanceScript, nftTableName, removeScript } from '../nftables.js';
import { bootFileOf, Layout } from './layout.js';
import { QmpError, withQmp } from './qmp.js';
import { seedFiles, writeSeedImage } from './seed.js';
import { EXT_FILESYSTEMS, hasExtFilesystem, ImageTools, run, writeAtomically } from './tools.js';

/** Kernels that mean "boot the disk's own loader" rather than one of the host's. */
const DISK_LOADERS = new Set(['compute/grub2', 'compute/grub-legacy', 'compute/direct-disk']);
/** SCSI targets of hot-plugged volumes that have no slot of a config (slots use 0..7). */
const FREE_TARGETS_FROM = 8;

/** What the driver records of a machine it started (run/<id>/machine.json). */
interface RunRecord {
  instanceId: number;
  region: string;
  vcpus: number;
  memoryMb: number;
  accel: 'kvm' | 'tcg';
  sshPort: number | null;
  tap: string | null;
  startedAt: string;
  devices: PlannedDevice[];
}

/**
 * The QEMU driver: one QEMU process per running instance, driven over QMP; disks, volumes,
 * images and backups are qcow2 files made and copied with qemu-img (and e2fsprogs for the
 * filesystems). Processes are daemonized with a pid file and outlive the Stratus process that
 * started them; any Stratus process of the host finds them through their files.
 */
export class QemuDriver implements ComputeDriver {
  readonly name = 'qemu' as const;
  readonly real = true;
  readonly shutdownGraceMs: number;
  readonly firewalls: boolean;
  readonly layout: Layout;
  private readonly tools: ImageTools;
  private readonly images: ImageFolder;
  private readonly machines = new KeyedMutex();
  private accelChosen: Promise<'kvm' | 'tcg'> | undefined;
  private nftProbe: Promise<{ nft: boolean; conntrack: boolean }> | undefined;

  constructor(
    private readonly cfg: MachinesConfig,
    private readonly imageBlobs: BlobStore,
    private readonly log: Logger,
  ) {
    this.shutdownGraceMs = cfg.shutdownGraceMs;
    this.firewalls = cfg.network === 'bridge';
    this.layout = new Layout(cfg.stateDir);
    this.tools = new ImageTools(cfg.qemuImg);
    this.images = new ImageFolder(cfg.imagesDir, this.layout);
  }

  imageProblem(image: string): string | undefined {
    return this.images.problem(image);
  }

  scaled(r: Resources): Resources {
    return {
      vcpus: Math.max(1, Math.round(r.vcpus * this.cfg.cpuScale)),
      memoryMb: Math.max(64, Math.round(r.memoryMb * this.cfg.memoryScale)),
    };
  }

  capacity(): Resources {
    return { vcpus: this.cfg.hostVcpus, memoryMb: this.cfg.hostMemoryMb };
  }

  // ---- disks ---------------------------------------------------------------------------------

  async listDisks(i: InstanceRef): Promise<number[]> {
    const names = await readdir(this.layout.instance(i)).catch(() => [] as string[]);
    return names
      .map((n) => /^disk-(\d+)\.qcow2$/.exec(n)?.[1])
      .filter((x): x is string => x !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
  }

  async createDisk(
    disk: DiskRef,
    d: { sizeMb: number; filesystem: string; source: DiskSource },
  ): Promise<void> {
    const file = this.layout.disk(disk);
    if (existsSync(file)) return;
    await mkdir(path.dirname(file), { recursive: true });
    const src = d.source;
    switch (src.kind) {
      case 'empty':
        await writeAtomically(file, async (part) => {
          if (EXT_FILESYSTEMS.has(d.filesystem) || d.filesystem === 'swap') {
            await this.withRaw(async (raw) => {
              await this.tools.format(raw, d.sizeMb, d.filesystem);
              await this.tools.convert(raw, part, 'qcow2', 'raw');
            });
          } else {
            await this.tools.create(part, d.sizeMb);
          }
        });
        return;
      case 'image': {
        const { from, format, boot } = await this.imageSource(src.image, src.uploadKey);
        await writeBoot(file, boot);
        await writeAtomically(file, (part) =>
          this.withRaw(async (raw) => {
            await this.tools.convert(from, raw, 'raw', format);
            await this.fit(raw, d.sizeMb);
            await this.tools.convert(raw, part, 'qcow2', 'raw');
          }),
        );
        return;
      }
      case 'disk': {
        const from = this.layout.disk(src.from);
        if (!existsSync(from)) throw new MachineError('The source disk has no bytes on this host.');
        await copyBoot(from, file);
        await writeAtomically(file, (part) =>
          this.copyBytes(src.from.instanceId, 'disk', src.from.diskId, from, part),
        );
        if ((await this.tools.info(file)).virtualSize !== d.sizeMb * 1048576)
          await this.resizeDisk(disk, d);
        return;
      }
      case 'backup': {
        const from = this.layout.backupDisk(src.backupId, src.key);
        if (!existsSync(from)) throw new MachineError('The backup has no bytes on this host.');
        await copyBoot(from, file);
        await writeAtomically(file, (part) => this.tools.convert(from, part, 'qcow2', 'qcow2'));
        return;
      }
    }
  }

  /** The bytes and kernel of an image: the operator's folder, or a captured or uploaded image. */
  private async imageSource(
    image: string,
    uploadKey: string | undefined,
  ): Promise<{ from: string; format: string; boot: BootInfo | null }> {
    const pub = this.images.publicDisk(image);
    if (pub)
      return { from: pub.file, format: pub.format, boot: await this.images.publicBoot(image) };
    const m = /^private\/(\d+)$/.exec(image);
    if (m) {
      const captured = this.layout.image(Number(m[1]));
      if (existsSync(captured))
        return { from: captured, format: 'qcow2', boot: await readBoot(captured) };
      if (uploadKey) {
        // An uploaded image: the gzipped raw disk, unpacked once next to the captured ones.
        await mkdir(path.dirname(captured), { recursive: true });
        await writeAtomically(captured, (part) =>
          this.withRaw(async (raw) => {
            const body = await this.imageBlobs.get(uploadKey);
            await pipeline(body, createGunzip(), createWriteStream(raw));
            await this.tools.convert(raw, part, 'qcow2', 'raw');
          }),
        );
        return { from: captured, format: 'qcow2', boot: null };
      }
    }
    throw new MachineError(`The image ${image} is not available on this host.`);
  }

  /** Fits a raw disk to `sizeMb`: an ext filesystem is resized with it; other bytes are cut or padded. */
  private async fit(raw: string, sizeMb: number): Promise<void> {
    if (await hasExtFilesystem(raw)) await this.tools.resizeExt(raw, sizeMb);
    else {
      const fh = await open(raw, 'r+');
      try {
        await fh.truncate(sizeMb * 1048576);
      } finally {
        await fh.close();
      }
    }
  }

  private async withRaw<T>(fn: (raw: string) => Promise<T>): Promise<T> {
    await mkdir(this.layout.tmp(), { recursive: true });
    const raw = path.join(
      this.layout.tmp(),
      `raw-${process.pid}-${Math.random().toString(36).slice(2)}`,
    );
    try {
      return await fn(raw);
    } finally {
      await rm(raw, { force: true });
    }
  }

  async resizeDisk(disk: DiskRef, d: { sizeMb: number; filesystem: string }): Promise<void> {
    const file = this.layout.disk(disk);
    if (!existsSync(file)) throw new MachineError('The disk has no bytes on this host.');
    const current = (await this.tools.info(file)).virtualSize;
    if (current === d.sizeMb * 1048576) return;
    if (d.filesystem === 'swap') {
      await writeAtomically(file, (part) =>
        this.withRaw(async (raw) => {
          await this.tools.format(raw, d.sizeMb, 'swap');
          await this.tools.convert(raw, part, 'qcow2', 'raw');
        }),
      );
      return;
    }
    if (EXT_FILESYSTEMS.has(d.filesystem)) {
      await writeAtomically(file, (part) =>
        this.withRaw(async (raw) => {
          await this.tools.convert(file, raw, 'raw', 'qcow2');
          await this.fit(raw, d.sizeMb);
          await this.tools.convert(raw, part, 'qcow2', 'raw');
        }),
      );
      return;
    }
    await this.tools.resize(file, d.sizeMb, d.sizeMb * 1048576 < current);
  }

  async deleteDisk(disk: DiskRef): Promise<void> {
    const file = this.layout.disk(disk);
    await rm(file, { force: true });
    await rm(bootFileOf(file), { force: true });
  }

  async moveInstance(
    instanceId: number,
    from: string,
    to: string,
    volumes: number[],
  ): Promise<void> {
    const src = this.layout.instance({ instanceId, region: from });
    const dst = this.layout.instance({ instanceId, region: to });
    await moveIfThere(src, dst);
    for (const volumeId of volumes)
      await moveIfThere(
        this.layout.volume({ volumeId, region: from }),
        this.layout.volume({ volumeId, region: to }),
      );
  }

  async destroy(i: InstanceRef): Promise<void> {
    await this.stop(i.instanceId);
    await rm(this.layout.instance(i), { recursive: true, force: true });
    await rm(this.layout.run(i.instanceId).dir, { recursive: true, force: true });
  }

  // ---- volumes, images, backups ----------------------------------------------------------------

  async createVolume(v: VolumeRef, sizeGb: number, copyOf?: VolumeRef): Promise<void> {
    const file = this.layout.volume(v);
    if (existsSync(file)) return;
    await mkdir(path.dirname(file), { recursive: true });
    if (copyOf) {
      const from = this.layout.volume(copyOf);
      if (!existsSync(from)) throw new MachineError('The source volume has no bytes on this host.');
      await writeAtomically(file, (part) => this.tools.convert(from, part, 'qcow2', 'qcow2'));
    } else {
      await writeAtomically(file, (part) => this.tools.create(part, sizeGb * 1024));
    }
  }

  async resizeVolume(v: VolumeRef, sizeGb: number, attachedTo?: number): Promise<void> {
    const file = this.layout.volume(v);
    if (!existsSync(file)) throw new MachineError('The volume has no bytes on this host.');
    if (attachedTo !== undefined && (await this.attachedVolumes(attachedTo)).includes(v.volumeId)) {
      // In use by a running machine (which holds its lock): grown live, and the guest sees it.
      await withQmp(this.layout.run(attachedTo).qmp, (q) =>
        q.execute('block_resize', {
          'node-name': nodeName({ kind: 'volume', id: v.volumeId }),
          size: sizeGb * 1073741824,
        }),
      );
      return;
    }
    if ((await this.tools.info(file)).virtualSize < sizeGb * 1073741824)
      await this.tools.resize(file, sizeGb * 1024, false);
  }

  async deleteVolume(v: VolumeRef): Promise<void> {
    await rm(this.layout.volume(v), { force: true });
  }

  async captureImage(imageId: number, from: DiskRef): Promise<void> {
    const file = this.layout.image(imageId);
    if (existsSync(file)) return;
    const src = this.layout.disk(from);
    if (!existsSync(src)) throw new MachineError('The disk has no bytes on this host.');
    await mkdir(path.dirname(file), { recursive: true });
    await copyBoot(src, file);
    await writeAtomically(file, (part) =>
      this.copyBytes(from.instanceId, 'disk', from.diskId, src, part),
    );
  }

  async deleteImage(imageId: number): Promise<void> {
    const file = this.layout.image(imageId);
    await rm(file, { force: true });
    await rm(bootFileOf(file), { force: true });
  }

  async captureBackup(backupId: number, disks: DiskRef[]): Promise<void> {
    await mkdir(this.layout.backup(backupId), { recursive: true });
    for (const d of disks) {
      const file = this.layout.backupDisk(backupId, d.diskId);
      if (existsSync(file)) continue;
      const src = this.layout.disk(d);
      if (!existsSync(src))
        throw new MachineError('A disk of the instance has no bytes on this host.');
      await copyBoot(src, file);
      await writeAtomically(file, (part) =>
        this.copyBytes(d.instanceId, 'disk', d.diskId, src, part),
      );
    }
  }

  async deleteBackup(backupId: number): Promise<void> {
    await rm(this.layout.backup(backupId), { recursive: true, force: true });
  }

  /**
   * Copies an image file. While a running machine uses it, QEMU itself copies it (a full
   * `drive-backup`, a point-in-time copy of the running disk); otherwise qemu-img does.
   */
  private async copyBytes(
    instanceId: number,
    kind: 'disk' | 'volume',
    id: number,
    from: string,
    to: string,
  ) {
    const rec = await this.liveRecord(instanceId);
    if (rec?.devices.some((d) => d.kind === kind && d.id === id)) {
      const jobId = `copy-${kind}${id}-${Date.now()}`;
      await withQmp(this.layout.run(instanceId).qmp, async (q) => {
        await q.execute('drive-backup', {
          'job-id': jobId,
          device: nodeName({ kind, id }),
          target: to,
          format: 'qcow2',
          sync: 'full',
          mode: 'absolute-paths',
        });
        for (;;) {
          const done = q.events.find(
            (e) =>
              e.event === 'BLOCK_JOB_COMPLETED' &&
              (e.data as { device?: string })?.device === jobId,
          );
          if (done) {
            const error = (done.data as { error?: string }).error;
            if (error) throw new MachineError(`The copy failed: ${error}`);
            return;
          }
          const jobs = await q.execute<{ device: string }[]>('query-block-jobs');
          if (!jobs.some((j) => j.device === jobId) && q.events.length === 0) {
            // Finished before we looked, with its event already consumed: nothing more to wait for.
            await new Promise((r) => setTimeout(r, 200));
            if (
              !(await q.execute<{ device: string }[]>('query-block-jobs')).some(
                (j) => j.device === jobId,
              )
            )
              return;
          }
          await new Promise((r) => setTimeout(r, 250));
        }
      });
      return;
    }
    await this.tools.convert(from, to, 'qcow2', 'qcow2');
  }

  // ---- machines ------------------------------------------------------------------------------

  async start(spec: MachineSpec): Promise<void> {
    await this.machines.run(spec.instanceId, async () => {
      const now = await this.status(spec.instanceId);
      if (now.state === 'running' || now.state === 'paused') return;
      if (now.state !== 'stopped') await this.stopNow(spec.instanceId);
      const res = this.scaled(spec);
      const files = this.layout.run(spec.instanceId);
      await mkdir(files.dir, { recursive: true });
      const devices = this.plannedDevices(spec);
      const boot = await this.bootOf(spec, devices);
      const accel = await this.accel(boot?.kernel ?? null);
      const mac = macOf(spec.instanceId);
      await writeSeedImage(files.seed, seedFiles(spec.seed, spec.network, mac, this.cfg.network));
      await withHostLock(this.layout.root, async () => {
        const used = await this.used(spec.instanceId);
        const cap = this.capacity();
        if (used.memoryMb + res.memoryMb > cap.memoryMb || used.vcpus + res.vcpus > cap.vcpus) {
          throw new CapacityError(
            `The host has no room for this instance now: it needs ${res.vcpus} vCPU and ${res.memoryMb} MB, and ${Math.max(0, cap.vcpus - used.vcpus)} vCPU and ${Math.max(0, cap.memoryMb - used.memoryMb)} MB are free.`,
          );
        }
        const network =
          this.cfg.network === 'bridge'
            ? { mode: 'bridge' as const, tap: await this.tap(spec) }
            : { mode: 'user' as const, sshPort: await this.sshPort(spec) };
        // The firewalls hold before the guest's first packet (a table left by a machine that
        // died with its host is replaced or removed).
        if (network.mode === 'bridge') {
          await rm(files.firewall, { force: true });
          await this.applyNow(spec.instanceId, network.tap, spec.firewalls, true);
        }
        const plan: LaunchPlan = {
          instanceId: spec.instanceId,
          accel,
          vcpus: res.vcpus,
          memoryMb: res.memoryMb,
          run: files,
          boot,
          cmdline: kernelCmdline({
            rootDevice: spec.rootDevice,
            runLevel: spec.runLevel,
            rescue: spec.rescue,
            extra: boot?.cmdline ?? '',
          }),
          devices,
          net: network,
          mac,
        };
        const rec: RunRecord = {
          instanceId: spec.instanceId,
          region: spec.region,
          vcpus: res.vcpus,
          memoryMb: res.memoryMb,
          accel,
          sshPort: network.mode === 'user' ? network.sshPort : null,
          tap: network.mode === 'bridge' ? network.tap : null,
          startedAt: new Date().toISOString(),
          devices,
        };
        await writeFile(files.spec, JSON.stringify(rec));
        await rm(files.qmp, { force: true });
        await rm(files.serial, { force: true });
        try {
          await run(this.cfg.qemu, qemuArgs(plan), { timeoutMs: 60_000 });
        } catch (err) {
          await rm(files.spec, { force: true });
          throw err;
        }
        this.log.info({ instanceId: spec.instanceId, accel, ...res }, 'machine started');
      });
    });
  }

  /** Disks and volumes of the spec on their slots' SCSI targets; every file must exist. */
  private plannedDevices(spec: MachineSpec): PlannedDevice[] {
    const out: PlannedDevice[] = [];
    DEVICE_SLOTS.forEach((slot, target) => {
      const dev = spec.devices[slot];
      if (!dev) return;
      if ('disk' in dev) {
        const file = this.layout.disk({ ...spec, diskId: dev.disk });
        if (!existsSync(file))
          throw new MachineError(`Disk ${dev.disk} (${slot}) has no bytes on this host.`);
        out.push({ kind: 'disk', id: dev.disk, file, target });
      } else {
        const file = this.layout.volume(dev.volume);
        if (!existsSync(file))
          throw new MachineError(
            `Volume ${dev.volume.volumeId} (${slot}) has no bytes on this host.`,
          );
        out.push({
          kind: 'volume',
          id: dev.volume.volumeId,
          file,
          target,
          ...(dev.volume.label ? { label: dev.volume.label } : {}),
        });
      }
    });
    return out;
  }

  /** The kernel a machine boots: rescue's, none (the disk's loader), the root disk's, or the host's. */
  private async bootOf(spec: MachineSpec, devices: PlannedDevice[]): Promise<BootInfo | null> {
    if (spec.rescue) return this.images.rescueBoot();
    if (DISK_LOADERS.has(spec.kernel)) return null;
    const rootSlot = /^\/dev\/(sd[a-h])$/.exec(spec.rootDevice)?.[1] as DeviceSlot | undefined;
    const root = devices.find(
      (d) => rootSlot !== undefined && d.target === DEVICE_SLOTS.indexOf(rootSlot),
    );
    const own = root ? await readBoot(root.file) : null;
    return own ?? this.images.defaultBoot();
  }

  /** TCG or KVM: STRATUS_VM_ACCEL, or (auto) whether KVM really boots a kernel here, probed once. */
  private accel(kernel: string | null): Promise<'kvm' | 'tcg'> {
    if (this.cfg.accel !== 'auto') return Promise.resolve(this.cfg.accel);
    this.accelChosen ??= (async () => {
      const cache = path.join(this.layout.root, 'accel');
      const known = await readFile(cache, 'utf8').catch(() => '');
      if (known.trim() === 'kvm' || known.trim() === 'tcg') return known.trim() as 'kvm' | 'tcg';
      const k =
        kernel ??
        (await this.images.defaultBoot().then(
          (b) => b.kernel,
          () => null,
        ));
      const kvm = k !== null && (await kvmBoots(this.cfg.qemu, k, this.layout.tmp(), 20_000));
      const chosen = kvm ? 'kvm' : 'tcg';
      this.log.info(
        { accel: chosen },
        'machines: chose the accelerator (KVM probed with a real boot)',
      );
      await writeFile(cache, `${chosen}\n`);
      return chosen;
    })();
    return this.accelChosen;
  }

  /** The resources of every machine running now but `except`. */
  private async used(except: number): Promise<Resources> {
    const total = { vcpus: 0, memoryMb: 0 };
    for (const rec of await this.records()) {
      if (rec.instanceId === except) continue;
      if ((await this.status(rec.instanceId)).state === 'stopped') continue;
      total.vcpus += rec.vcpus;
      total.memoryMb += rec.memoryMb;
    }
    return total;
  }

  private async records(): Promise<RunRecord[]> {
    const ids = await readdir(this.layout.runRoot).catch(() => [] as string[]);
    const out: RunRecord[] = [];
    for (const id of ids) {
      if (!/^\d+$/.test(id)) continue;
      const rec = await this.record(Number(id));
      if (rec) out.push(rec);
    }
    return out;
  }

  private async record(instanceId: number): Promise<RunRecord | null> {
    try {
      return JSON.parse(await readFile(this.layout.run(instanceId).spec, 'utf8')) as RunRecord;
    } catch {
      return null;
    }
  }

  /** The run record of a machine whose process lives. */
  private async liveRecord(instanceId: number): Promise<RunRecord | null> {
    const rec = await this.record(instanceId);
    return rec && (await this.pidOf(instanceId)) !== null ? rec : null;
  }

  /** The instance's SSH port: kept in its folder once chosen, so it stays the same across boots. */
  private async sshPort(i: InstanceRef): Promise<number> {
    const file = path.join(this.layout.instance(i), 'ssh-port');
    const kept = Number((await readFile(file, 'utf8').catch(() => '')).trim());
    const { from, to } = this.cfg.sshPorts;
    if (Number.isInteger(kept) && kept >= from && kept <= to && (await portFree(kept))) return kept;
    const taken = new Set<number>();
    for (const region of await readdir(path.join(this.layout.root, 'regions')).catch(
      () => [] as string[],
    )) {
      const dir = path.join(this.layout.root, 'regions', region, 'instances');
      for (const id of await readdir(dir).catch(() => [] as string[])) {
        const p = Number(
          (await readFile(path.join(dir, id, 'ssh-port'), 'utf8').catch(() => '')).trim(),
        );
        if (Number.isInteger(p) && Number(id) !== i.instanceId) taken.add(p);
      }
    }
    for (let port = from; port <= to; port++) {
      if (taken.has(port) || !(await portFree(port))) continue;
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, `${port}\n`);
      return port;
    }
    throw new CapacityError(`No free SSH port is left in STRATUS_VM_SSH_PORTS (${from}-${to}).`);
  }

  /** Bridge mode: the instance's tap device on the bridge (made if missing; needs CAP_NET_ADMIN). */
  private async tap(spec: MachineSpec): Promise<string> {
    const tap = `stx${spec.instanceId}`;
    const br = this.cfg.bridge;
    if ((await run('ip', ['link', 'show', br], { okCodes: [1] })).code !== 0) {
      await run('ip', ['link', 'add', br, 'type', 'bridge']);
      // Made here: removed again when its last tap goes (an operator's own bridge is left alone).
      await writeFile(path.join(this.layout.root, `bridge-${br}`), `${br}\n`);
    }
    await run('ip', ['link', 'set', br, 'up']);
    const have = (await run('ip', ['-o', 'addr', 'show', 'dev', br])).stdout;
    for (const a of spec.network.ipv4) {
      // An address inside one of the host's own networks would take the host's traffic to it.
      const clash = conflictingRoutes(
        (await run('ip', ['-o', 'route', 'show', 'match', a.address])).stdout,
        br,
      );
      if (clash.length > 0)
        throw new MachineError(
          `The address ${a.address} is inside a network of this host (${clash[0]}): bridge mode needs IP pools (STRATUS_IP_POOLS) that do not overlap the host's networks.`,
        );
      if (a.gateway) {
        // The host is the gateway of the address's network: `ssh root@<address>` from the host.
        if (!have.includes(` ${a.gateway}/`))
          await run('ip', ['addr', 'add', `${a.gateway}/${a.prefix}`, 'dev', br], {
            okCodes: [2],
          });
      } else {
        // A private address (no gateway): reached through a route to its network on the bridge.
        const net = networkOf(a.address, a.prefix);
        if ((await run('ip', ['route', 'show', net])).stdout.trim() === '')
          await run('ip', ['route', 'add', net, 'dev', br], { okCodes: [2] });
      }
    }
    if ((await run('ip', ['link', 'show', tap], { okCodes: [1] })).code !== 0)
      await run('ip', ['tuntap', 'add', 'dev', tap, 'mode', 'tap']);
    await run('ip', ['link', 'set', tap, 'master', br]);
    await run('ip', ['link', 'set', tap, 'up']);
    return tap;
  }

  private async pidOf(instanceId: number): Promise<number | null> {
    const files = this.layout.run(instanceId);
    const pid = await readPid(files.pid);
    return pid !== null && (await processAlive(pid, files.pid)) ? pid : null;
  }

  async powerButton(instanceId: number): Promise<void> {
    if ((await this.pidOf(instanceId)) === null) return;
    await withQmp(this.layout.run(instanceId).qmp, (q) => q.execute('system_powerdown'));
  }

  async stop(instanceId: number): Promise<void> {
    await this.machines.run(instanceId, () => this.stopNow(instanceId));
  }

  private async stopNow(instanceId: number): Promise<void> {
    const files = this.layout.run(instanceId);
    const pid = await this.pidOf(instanceId);
    const rec = await this.record(instanceId);
    if (pid !== null) {
      await withQmp(files.qmp, (q) => q.execute('quit', undefined, 3000)).catch(() => {
        try {
          process.kill(pid, 'SIGTERM');
        } catch {
          // gone already
        }
      });
      for (let i = 0; i < 100 && (await this.pidOf(instanceId)) !== null; i++)
        await new Promise((r) => setTimeout(r, 100));
      if ((await this.pidOf(instanceId)) !== null) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone already
        }
      }
      this.log.info({ instanceId }, 'machine stopped');
    }
    if (this.cfg.network === 'bridge' && (await this.nftables()).nft)
      await this.nft(instanceId, removeScript(instanceId)).catch((err) =>
        this.log.warn({ instanceId, err: String(err) }, 'could not remove the firewall table'),
      );
    for (const f of [files.pid, files.qmp, files.serial, files.seed, files.spec, files.firewall])
      await rm(f, { force: true });
    if (rec?.tap) {
      await run('ip', ['link', 'del', rec.tap], { okCodes: [1] }).catch(() => undefined);
      await this.dropBridgeIfUnused();
    }
  }

  /** Removes the bridge when the driver made it and no tap is left on it. */
  private async dropBridgeIfUnused(): Promise<void> {
    const br = this.cfg.bridge;
    const marker = path.join(this.layout.root, `bridge-${br}`);
    if (!existsSync(marker)) return;
    await withHostLock(this.layout.root, async () => {
      const ports = await readdir(`/sys/class/net/${br}/brif`).catch(() => null);
      if (ports !== null && ports.length > 0) return;
      if (ports !== null) await run('ip', ['link', 'del', br], { okCodes: [1] });
      await rm(marker, { force: true });
      this.log.info({ bridge: br }, 'removed the bridge: no machine uses it');
    });
  }

  // ---- firewalls (bridge mode) -------------------------------------------------------------------

  async applyFirewall(instanceId: number, firewalls: MachineFirewall[]): Promise<boolean> {
    if (this.cfg.network !== 'bridge') return false;
    return this.machines.run(instanceId, async () => {
      const rec = await this.liveRecord(instanceId);
      if (!rec?.tap) return false;
      return this.applyNow(instanceId, rec.tap, firewalls, false);
    });
  }

  /**
   * Replaces the machine's table with its firewalls' (`nft -f`, atomic), or removes it when it has
   * none; only when the text differs from what was applied last (run/<id>/firewall.nft), unless
   * `force`.
   */
  private async applyNow(
    instanceId: number,
    tap: string,
    firewalls: MachineFirewall[],
    force: boolean,
  ): Promise<boolean> {
    const { nft, conntrack } = await this.nftables();
    if (!nft) return false;
    const file = this.layout.run(instanceId).firewall;
    const text =
      firewalls.length > 0 ? instanceScript({ instanceId, tap, firewalls }, { conntrack }) : '';
    const applied = await readFile(file, 'utf8').catch(() => '');
    if (!force && text === applied) return false;
    await this.nft(instanceId, text === '' ? removeScript(instanceId) : text);
    if (text === '') await rm(file, { force: true });
    else await writeFile(file, text);
    this.log.info(
      { instanceId, table: nftTableName(instanceId), firewalls: firewalls.map((f) => f.id) },
      text === '' ? 'firewall table removed' : 'firewall table applied',
    );
    return true;
  }

  /** Runs an nft script (written to a file: `nft -f` reads it whole, in one transaction). */
  private async nft(instanceId: number, script: string): Promise<void> {
    await mkdir(this.layout.tmp(), { recursive: true });
    const file = path.join(this.layout.tmp(), `nft-${instanceId}-${process.pid}-${Date.now()}.nft`);
    await writeFile(file, script);
    try {
      await run('nft', ['-f', file], { timeoutMs: 30_000 });
    } finally {
      await rm(file, { force: true });
    }
  }

  /**
   * Whether nft is here, and whether the kernel tracks bridged connections (it refuses `ct` in a
   * bridge table without nf_conntrack_bridge: then the tables carry stateless reply rules).
   * Probed once, with nft's check mode (nothing is applied).
   */
  private nftables(): Promise<{ nft: boolean; conntrack: boolean }> {
    this.nftProbe ??= (async () => {
      const nft = await run('nft', ['--version'], { timeoutMs: 10_000 }).then(
        () => true,
        () => false,
      );
      if (!nft) {
        this.log.warn(
          'bridge mode without nft (apt-get install nftables): firewalls are not enforced on the bridge',
        );
        return { nft, conntrack: false };
      }
      await mkdir(this.layout.tmp(), { recursive: true });
      const probe = path.join(this.layout.tmp(), `nft-probe-${process.pid}.nft`);
      await writeFile(
        probe,
        'table bridge stratus_probe {\n  chain c {\n    ct state established,related accept\n  }\n}\n',
      );
      const conntrack = await run('nft', ['-c', '-f', probe], { timeoutMs: 10_000 }).then(
        () => true,
        () => false,
      );
      await rm(probe, { force: true });
      this.log.info(
        { conntrack },
        conntrack
          ? 'firewalls: nftables with bridge connection tracking'
          : 'firewalls: nftables without bridge connection tracking (stateless reply rules)',
      );
      return { nft, conntrack };
    })();
    return this.nftProbe;
  }

  async status(instanceId: number): Promise<MachineStatus> {
    if ((await this.pidOf(instanceId)) === null) return { state: 'stopped' };
    try {
      const st = await withQmp(this.layout.run(instanceId).qmp, (q) =>
        q.execute<{ status: string }>('query-status', undefined, 5000),
      );
      return { state: stateOf(st.status) };
    } catch {
      // The process lives but does not answer (busy, or starting): it is not off.
      return { state: 'running' };
    }
  }

  async attachedVolumes(instanceId: number): Promise<number[]> {
    if ((await this.pidOf(instanceId)) === null) return [];
    const items = await withQmp(this.layout.run(instanceId).qmp, (q) =>
      q.execute<{ name: string }[]>('qom-list', { path: '/machine/peripheral' }),
    );
    return items
      .map((i) => /^dev-volume(\d+)$/.exec(i.name)?.[1])
      .filter((x): x is string => x !== undefined)
      .map(Number);
  }

  async attachVolume(instanceId: number, v: VolumeRef, slot: DeviceSlot | null): Promise<void> {
    await this.machines.run(instanceId, async () => {
      const rec = await this.liveRecord(instanceId);
      if (!rec) return;
      const file = this.layout.volume(v);
      if (!existsSync(file))
        throw new MachineError(`Volume ${v.volumeId} has no bytes on this host.`);
      const used = new Set(rec.devices.map((d) => d.target));
      let target = slot === null ? -1 : DEVICE_SLOTS.indexOf(slot);
      if (target < 0 || used.has(target)) {
        target = FREE_TARGETS_FROM;
        while (used.has(target)) target++;
      }
      const dev: PlannedDevice = {
        kind: 'volume',
        id: v.volumeId,
        file,
        target,
        ...(v.label ? { label: v.label } : {}),
      };
      await withQmp(this.layout.run(instanceId).qmp, async (q) => {
        try {
          await q.execute('blockdev-add', {
            driver: 'qcow2',
            'node-name': nodeName(dev),
            file: { driver: 'file', filename: file },
          });
        } catch (err) {
          // Left by an earlier attempt whose device_add failed.
          if (!(err instanceof QmpError && /Duplicate node name/i.test(err.message))) throw err;
        }
        await q.execute('device_add', scsiProperties(dev));
      });
      rec.devices = [
        ...rec.devices.filter((d) => !(d.kind === 'volume' && d.id === v.volumeId)),
        dev,
      ];
      await writeFile(this.layout.run(instanceId).spec, JSON.stringify(rec));
    });
  }

  async detachVolume(instanceId: number, volumeId: number): Promise<void> {
    await this.machines.run(instanceId, async () => {
      const rec = await this.liveRecord(instanceId);
      if (!rec) return;
      const dev = { kind: 'volume' as const, id: volumeId };
      await withQmp(this.layout.run(instanceId).qmp, async (q) => {
        const present = async () =>
          (await q.execute<{ name: string }[]>('qom-list', { path: '/machine/peripheral' })).some(
            (i) => i.name === deviceId(dev),
          );
        if (await present()) {
          await q.execute('device_del', { id: deviceId(dev) }).catch((err) => {
            // An unplug already asked for: wait for it like this one.
            if (!(err instanceof QmpError)) throw err;
          });
          // The guest lets go of a SCSI disk on its own; a few seconds under emulation.
          for (let i = 0; i < 100 && (await present()); i++)
            await new Promise((r) => setTimeout(r, 100));
          if (await present())
            throw new MachineError(`The guest has not released volume ${volumeId} yet.`);
        }
        await q.execute('blockdev-del', { 'node-name': nodeName(dev) }).catch(() => undefined);
      });
      rec.devices = rec.devices.filter((d) => !(d.kind === 'volume' && d.id === volumeId));
      await writeFile(this.layout.run(instanceId).spec, JSON.stringify(rec));
    });
  }

  async counters(instanceId: number): Promise<MachineCounters | null> {
    const pid = await this.pidOf(instanceId);
    const rec = await this.record(instanceId);
    if (pid === null || !rec) return null;
    const { cpus, blocks } = await withQmp(this.layout.run(instanceId).qmp, async (q) => ({
      cpus: await q.execute<{ 'thread-id': number }[]>('query-cpus-fast'),
      blocks:
        await q.execute<{ 'node-name'?: string; qdev?: string; stats: Record<string, number> }[]>(
          'query-blockstats',
        ),
    }));
    let ticks = 0;
    for (const c of cpus) {
      const st = await readFile(`/proc/${pid}/task/${c['thread-id']}/stat`, 'utf8').catch(() => '');
      const fields = st.slice(st.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
    }
    const out: MachineCounters = {
      cpuMs: ticks * 10,
      diskReadOps: 0,
      diskWriteOps: 0,
      diskReadBytes: 0,
      diskWriteBytes: 0,
      netRxBytes: null,
      netTxBytes: null,
    };
    for (const b of blocks) {
      if ((b.qdev ?? '').includes('dev-seed') || b['node-name'] === 'seed') continue;
      out.diskReadOps += b.stats.rd_operations ?? 0;
      out.diskWriteOps += b.stats.wr_operations ?? 0;
      out.diskReadBytes += b.stats.rd_bytes ?? 0;
      out.diskWriteBytes += b.stats.wr_bytes ?? 0;
    }
    if (rec.tap) {
      const stat = (n: string) =>
        readFile(`/sys/class/net/${rec.tap}/statistics/${n}`, 'utf8').then(Number, () => 0);
      // The tap's receive side is what the guest sent.
      out.netTxBytes = await stat('rx_bytes');
      out.netRxBytes = await stat('tx_bytes');
    }
    return out;
  }

  async consoleRead(instanceId: number, bytes: number): Promise<string> {
    const file = this.layout.run(instanceId).console;
    const fh = await open(file, 'r').catch(() => null);
    if (!fh) return '';
    try {
      const { size } = await fh.stat();
      const len = Math.min(size, bytes);
      const buf = Buffer.alloc(len);
      await fh.read(buf, 0, len, size - len);
      return buf.toString('utf8');
    } finally {
      await fh.close();
    }
  }

  async consoleWrite(instanceId: number, data: string): Promise<void> {
    if ((await this.pidOf(instanceId)) === null)
      throw new MachineError('The machine is not running.');
    await new Promise<void>((resolve, reject) => {
      const s = net.connect(this.layout.run(instanceId).serial, () => s.end(data, () => resolve()));
      s.once('error', reject);
    });
  }

  async list(): Promise<MachineInfo[]> {
    const out: MachineInfo[] = [];
    for (const region of await readdir(path.join(this.layout.root, 'regions')).catch(
      () => [] as string[],
    )) {
      const dir = path.join(this.layout.root, 'regions', region, 'instances');
      for (const id of await readdir(dir).catch(() => [] as string[])) {
        if (!/^\d+$/.test(id)) continue;
        const instanceId = Number(id);
        const rec = await this.liveRecord(instanceId);
        const port = Number(
          (await readFile(path.join(dir, id, 'ssh-port'), 'utf8').catch(() => '')).trim(),
        );
        out.push({
          instanceId,
          region,
          state: (await this.status(instanceId)).state,
          pid: await this.pidOf(instanceId),
          accel: rec?.accel ?? null,
          vcpus: rec?.vcpus ?? null,
          memoryMb: rec?.memoryMb ?? null,
          ssh: this.cfg.network === 'user' && port > 0 ? { host: '127.0.0.1', port } : null,
          tap: rec?.tap ?? null,
          firewallTable: existsSync(this.layout.run(instanceId).firewall)
            ? nftTableName(instanceId)
            : null,
          consoleLog: this.layout.run(instanceId).console,
          startedAt: rec?.startedAt ?? null,
        });
      }
    }
    return out.sort((a, b) => a.instanceId - b.instanceId);
  }

  async sweep(keep: { volumes: Set<number>; images: Set<number>; backups: Set<number> }) {
    for (const region of await readdir(path.join(this.layout.root, 'regions')).catch(
      () => [] as string[],
    )) {
      for (const id of await idsIn(
        path.join(this.layout.root, 'regions', region, 'volumes'),
        /^volume-(\d+)\.qcow2$/,
      )) {
        if (keep.volumes.has(id)) continue;
        // A volume deleted while attached: its machine lets go of it first.
        for (const rec of await this.records())
          if (rec.devices.some((d) => d.kind === 'volume' && d.id === id))
            await this.detachVolume(rec.instanceId, id).catch(() => undefined);
        await this.deleteVolume({ volumeId: id, region });
      }
    }
    for (const id of await idsIn(path.join(this.layout.root, 'images'), /^private-(\d+)\.qcow2$/))
      if (!keep.images.has(id)) await this.deleteImage(id);
    for (const id of await idsIn(path.join(this.layout.root, 'backups'), /^(\d+)$/))
      if (!keep.backups.has(id)) await this.deleteBackup(id);
  }
}

/** The ids in names like `volume-12.qcow2` of a folder. */
async function idsIn(dir: string, re: RegExp): Promise<number[]> {
  return (await readdir(dir).catch(() => [] as string[]))
    .map((n) => re.exec(n)?.[1])
    .filter((x): x is string => x !== undefined)
    .map(Number);
}

/**
 * The routes of `ip -o route show match <address>` that are not the default route nor on the
 * bridge: the host's own networks that hold the address.
 */
export function conflictingRoutes(output: string, bridge: string): string[] {
  return output
    .split('\n')
    .map((l) => l.trim().split(/\s+/).join(' '))
    .filter((l) => l !== '' && !l.startsWith('default ') && !`${l} `.includes(` dev ${bridge} `));
}

/** The network of an IPv4 address (`192.168.130.7`, 17 → `192.168.128.0/17`). */
export function networkOf(address: string, prefix: number): string {
  const n = address.split('.').reduce((acc, o) => acc * 256 + Number(o), 0);
  const base = n - (n % 2 ** (32 - prefix));
  return `${[24, 16, 8, 0].map((sh) => Math.floor(base / 2 ** sh) % 256).join('.')}/${prefix}`;
}

function stateOf(qemuStatus: string): MachineState {
  switch (qemuStatus) {
    case 'running':
      return 'running';
    case 'shutdown':
      return 'shutdown';
    case 'internal-error':
    case 'guest-panicked':
    case 'io-error':
      return 'crashed';
    default:
      return 'paused';
  }
}

async function moveIfThere(from: string, to: string): Promise<void> {
  if (!existsSync(from)) return;
  await mkdir(path.dirname(to), { recursive: true });
  await rename(from, to);
}
