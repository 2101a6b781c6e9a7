import type { ComputeDriverName } from '../config/machines-config.js';
import type { ExpandedRules, Policy } from '../modules/networking/firewalls.rules.js';

/**
 * The seam between the compute area and whatever runs its instances. The compute jobs (and the
 * volumes and images jobs, for their files) call this interface and nothing below it. Two
 * implementations: the simulated driver (`simulated.ts`, the default: instances are rows that walk
 * through their statuses on the job clock, nothing runs) and the QEMU driver (`qemu/`), where an
 * instance is a QEMU process and its disks, volumes, images and backups are image files.
 *
 * Every operation is idempotent (a job step whose worker died runs it again) and none holds a
 * database transaction: the jobs call it in their `perform` phase (src/jobs/job.ts). Long waits
 * (a guest shutting down) are the caller's: the driver presses the button, the job polls.
 */
export interface ComputeDriver {
  readonly name: ComputeDriverName;
  /** False for the simulated driver: there is no machine work, and the jobs skip it entirely. */
  readonly real: boolean;
  /** Whether `applyFirewall` can enforce firewalls (the QEMU driver in bridge mode). */
  readonly firewalls: boolean;
  /** How long a shutdown waits for the guest after the power button before forcing it off. */
  readonly shutdownGraceMs: number;

  /** Why a deployment of `image` cannot happen on this host (the image has no bytes here), or undefined. */
  imageProblem(image: string): string | undefined;
  /** The type's resources as the host runs them (scaled by STRATUS_VM_MEMORY_SCALE, _CPU_SCALE). */
  scaled(r: Resources): Resources;
  /** What the host may give its running machines. */
  capacity(): Resources;

  // Disks of an instance: image files under the instance's directory.
  /** The disks that have bytes on the host. */
  listDisks(instance: InstanceRef): Promise<number[]>;
  /** Makes the disk's bytes: empty (formatted as its filesystem), from an image, a disk or a backup. */
  createDisk(
    disk: DiskRef,
    d: { sizeMb: number; filesystem: string; source: DiskSource },
  ): Promise<void>;
  /** Grows or shrinks the disk and its filesystem (ext2/3/4; swap is remade; raw is cut or padded). */
  resizeDisk(disk: DiskRef, d: { sizeMb: number; filesystem: string }): Promise<void>;
  deleteDisk(disk: DiskRef): Promise<void>;
  /** A data-center move: the instance's files, and the given volumes, go to the new region. */
  moveInstance(instanceId: number, from: string, to: string, volumes: number[]): Promise<void>;
  /** Stops the machine if it runs and removes every file of the instance (its disks, its console). */
  destroy(instance: InstanceRef): Promise<void>;

  // Volumes: image files of their region, attached to machines as SCSI disks.
  createVolume(volume: VolumeRef, sizeGb: number, copyOf?: VolumeRef): Promise<void>;
  /** Grows the volume (and tells the machine it is attached to, if that one runs). */
  resizeVolume(volume: VolumeRef, sizeGb: number, attachedTo?: number): Promise<void>;
  deleteVolume(volume: VolumeRef): Promise<void>;

  // Private images (captured disks) and backups: copies of disks' bytes.
  captureImage(imageId: number, from: DiskRef): Promise<void>;
  deleteImage(imageId: number): Promise<void>;
  captureBackup(backupId: number, disks: DiskRef[]): Promise<void>;
  deleteBackup(backupId: number): Promise<void>;

  // Machines.
  /** Starts the machine (a no-op if it runs). Throws CapacityError when the host is full. */
  start(spec: MachineSpec): Promise<void>;
  /** Presses the ACPI power button (the guest shuts itself down). */
  powerButton(instanceId: number): Promise<void>;
  /** Turns the machine off at once (a no-op if it is off). */
  stop(instanceId: number): Promise<void>;
  status(instanceId: number): Promise<MachineStatus>;
  /** Volumes attached to the running machine now (hot-plugged or at boot). */
  attachedVolumes(instanceId: number): Promise<number[]>;
  /** Hot-plugs a volume into the running machine, on `slot`'s SCSI target (or a free one). */
  attachVolume(instanceId: number, volume: VolumeRef, slot: DeviceSlot | null): Promise<void>;
  detachVolume(instanceId: number, volumeId: number): Promise<void>;
  /** The running machine's counters (CPU time, disk and network bytes), or null when it is off. */
  counters(instanceId: number): Promise<MachineCounters | null>;
  /** The serial console: what it printed (the last `bytes`) and a way to type into it. */
  consoleRead(instanceId: number, bytes: number): Promise<string>;
  consoleWrite(instanceId: number, data: string): Promise<void>;
  /**
   * Applies the instance's enabled firewalls to its running machine (bridge mode with nft: one
   * nftables table, replaced atomically, and only when its text changed; none when the list is
   * empty). Returns whether it changed what the kernel enforces. A no-op where the network mode
   * cannot filter (user-mode networking, the simulated driver, no nft).
   */
  applyFirewall(instanceId: number, firewalls: MachineFirewall[]): Promise<boolean>;
  /** Every machine the host has files for, running or not (operator endpoints). */
  list(): Promise<MachineInfo[]>;
  /** Removes the files of volumes, images and backups that are not in `keep` (their rows are gone). */
  sweep(keep: { volumes: Set<number>; images: Set<number>; backups: Set<number> }): Promise<void>;
}

export interface Resources {
  vcpus: number;
  memoryMb: number;
}

export const DEVICE_SLOTS = ['sda', 'sdb', 'sdc', 'sdd', 'sde', 'sdf', 'sdg', 'sdh'] as const;
export type DeviceSlot = (typeof DEVICE_SLOTS)[number];

export interface InstanceRef {
  instanceId: number;
  region: string;
}

export interface DiskRef extends InstanceRef {
  diskId: number;
}

export interface VolumeRef {
  volumeId: number;
  region: string;
  /** The volume's label: attached machines see `/dev/disk/by-id/scsi-0Compute_Volume_<label>`. */
  label?: string;
}

/** Where a new disk's bytes come from. */
export type DiskSource =
  | { kind: 'empty' }
  /**
   * A public image (`compute/<name>`, from the operator's folder) or a private one (`private/<id>`:
   * a captured disk, or an upload whose gzipped bytes are `uploadKey` in the images blob store).
   */
  | { kind: 'image'; image: string; uploadKey?: string }
  | { kind: 'disk'; from: DiskRef }
  /** A disk of a backup, by its key (the id of the disk it was taken from). */
  | { kind: 'backup'; backupId: number; key: number };

/** What a machine boots: its resources, kernel, devices and the NoCloud seed. */
export interface MachineSpec extends InstanceRef {
  hostname: string;
  /** The type's (the driver scales them); `memory_limit` of the config already applied. */
  vcpus: number;
  memoryMb: number;
  /** The config's kernel: `compute/grub2` and `compute/direct-disk` boot the disk's own loader. */
  kernel: string;
  rootDevice: string;
  /** `default`, `single` or `binbash` (the config's run level). */
  runLevel: string;
  devices: Partial<Record<DeviceSlot, { disk: number } | { volume: VolumeRef }>>;
  /** The rescue system boots instead, with `devices` attached (sdh is its own). */
  rescue: boolean;
  seed: MachineSeed;
  network: MachineNetwork;
  /** The instance's enabled firewalls, applied before the machine starts (bridge mode). */
  firewalls: MachineFirewall[];
}

/** An enabled firewall of an instance, its rule sets expanded (src/machines/nftables.ts applies it). */
export interface MachineFirewall {
  id: number;
  rules: ExpandedRules;
  inboundPolicy: Policy;
  outboundPolicy: Policy;
}

/** The NoCloud seed (cloud-init's standard): identity, credentials and user data. */
export interface MachineSeed {
  /** cloud-init's instance-id: a new one makes the guest apply the credentials again. */
  instanceId: string;
  hostname: string;
  /** crypt(3) SHA-512 of the root password (the password itself is never kept). */
  rootPassHash: string | null;
  authorizedKeys: string[];
  /** The metadata's user data, decoded (a cloud-config or a script), or null. */
  userData: string | null;
}

export interface MachineNetwork {
  /** The instance's public and private IPv4 addresses (bridge mode configures them). */
  ipv4: { address: string; prefix: number; gateway: string | null }[];
  ipv6: string | null;
}

export type MachineState =
  /** No process. */
  | 'stopped'
  | 'running'
  /** The guest powered itself off; the process waits to be cleaned up. */
  | 'shutdown'
  | 'paused'
  /** The guest panicked or the emulator failed. */
  | 'crashed';

export interface MachineStatus {
  state: MachineState;
}

export interface MachineCounters {
  /** Milliseconds of CPU the guest's vCPUs used since the machine started. */
  cpuMs: number;
  diskReadOps: number;
  diskWriteOps: number;
  diskReadBytes: number;
  diskWriteBytes: number;
  /** Network bytes, where the network mode counts them (bridge: the tap device); else null. */
  netRxBytes: number | null;
  netTxBytes: number | null;
}

export interface MachineInfo extends InstanceRef {
  state: MachineState;
  pid: number | null;
  accel: string | null;
  vcpus: number | null;
  memoryMb: number | null;
  /** User-mode networking: the host address and port forwarded to the guest's port 22. */
  ssh: { host: string; port: number } | null;
  /** Bridge mode: the tap device. */
  tap: string | null;
  /** Bridge mode: the nftables table of its firewalls (bridge family), when one is applied. */
  firewallTable: string | null;
  consoleLog: string;
  startedAt: string | null;
}

/** The host cannot run one more machine of this size (the API answers with its reason). */
export class CapacityError extends Error {
  override readonly name = 'CapacityError';
  /** Retrying the job step cannot help: the job fails at once (src/jobs/runner.ts). */
  readonly final = true;
}

/** An operator-side problem the API reports as a failed event (no image bytes, no kernel). */
export class MachineError extends Error {
  override readonly name = 'MachineError';
  readonly final = true;
}
