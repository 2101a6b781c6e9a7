import type {
  ComputeDriver,
  DeviceSlot,
  DiskRef,
  DiskSource,
  InstanceRef,
  MachineCounters,
  MachineFirewall,
  MachineInfo,
  MachineSpec,
  MachineStatus,
  Resources,
  VolumeRef,
} from './driver.js';

/**
 * The default driver: nothing runs. An instance is its rows, walked through its statuses by the
 * jobs on the job clock, which is what test suites need (and what the API showed before the QEMU
 * driver existed). `real` is false, so the jobs do no machine work at all; the methods are here
 * for callers that ask anyway, and answer as a host with nothing on it.
 */
export class SimulatedDriver implements ComputeDriver {
  readonly name: ComputeDriver['name'] = 'simulated';
  readonly real: boolean = false;
  readonly firewalls: boolean = false;
  readonly shutdownGraceMs: number = 0;

  imageProblem(_image: string): string | undefined {
    return undefined;
  }
  scaled(r: Resources): Resources {
    return r;
  }
  capacity(): Resources {
    return { vcpus: Number.POSITIVE_INFINITY, memoryMb: Number.POSITIVE_INFINITY };
  }
  async listDisks(_instance: InstanceRef): Promise<number[]> {
    return [];
  }
  async createDisk(
    _disk: DiskRef,
    _d: { sizeMb: number; filesystem: string; source: DiskSource },
  ): Promise<void> {}
  async resizeDisk(_disk: DiskRef, _d: { sizeMb: number; filesystem: string }): Promise<void> {}
  async deleteDisk(_disk: DiskRef): Promise<void> {}
  async moveInstance(_id: number, _from: string, _to: string, _volumes: number[]): Promise<void> {}
  async destroy(_instance: InstanceRef): Promise<void> {}
  async createVolume(_volume: VolumeRef, _sizeGb: number, _copyOf?: VolumeRef): Promise<void> {}
  async resizeVolume(_volume: VolumeRef, _sizeGb: number, _attachedTo?: number): Promise<void> {}
  async deleteVolume(_volume: VolumeRef): Promise<void> {}
  async captureImage(_imageId: number, _from: DiskRef): Promise<void> {}
  async deleteImage(_imageId: number): Promise<void> {}
  async captureBackup(_backupId: number, _disks: DiskRef[]): Promise<void> {}
  async deleteBackup(_backupId: number): Promise<void> {}
  async start(_spec: MachineSpec): Promise<void> {}
  async powerButton(_instanceId: number): Promise<void> {}
  async stop(_instanceId: number): Promise<void> {}
  async status(_instanceId: number): Promise<MachineStatus> {
    return { state: 'stopped' };
  }
  async attachedVolumes(_instanceId: number): Promise<number[]> {
    return [];
  }
  async attachVolume(_id: number, _volume: VolumeRef, _slot: DeviceSlot | null): Promise<void> {}
  async detachVolume(_instanceId: number, _volumeId: number): Promise<void> {}
  async counters(_instanceId: number): Promise<MachineCounters | null> {
    return null;
  }
  async consoleRead(_instanceId: number, _bytes: number): Promise<string> {
    return '';
  }
  async consoleWrite(_instanceId: number, _data: string): Promise<void> {}
  async applyFirewall(_instanceId: number, _firewalls: MachineFirewall[]): Promise<boolean> {
    return false;
  }
  async list(): Promise<MachineInfo[]> {
    return [];
  }
  async sweep(_keep: { volumes: Set<number>; images: Set<number>; backups: Set<number> }) {}
}
