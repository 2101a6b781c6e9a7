import type {
  ComputeDriver,
  MachineCounters,
  MachineInfo,
  MachineStatus,
  Resources,
} from './driver.js';

/**
 * The default driver: nothing runs. An instance is its rows, walked through its statuses by the
 * jobs on the job clock, which is what test suites need (and what the API showed before the QEMU
 * driver existed). `real` is false, so the jobs do no machine work at all; the methods are here
 * for callers that ask anyway, and answer as a host with nothing on it.
 */
export class SimulatedDriver implements ComputeDriver {
  readonly name = 'simulated' as const;
  readonly real = false;
  readonly shutdownGraceMs = 0;

  imageProblem(): string | undefined {
    return undefined;
  }
  scaled(r: Resources): Resources {
    return r;
  }
  capacity(): Resources {
    return { vcpus: Number.POSITIVE_INFINITY, memoryMb: Number.POSITIVE_INFINITY };
  }
  async listDisks(): Promise<number[]> {
    return [];
  }
  async createDisk(): Promise<void> {}
  async resizeDisk(): Promise<void> {}
  async deleteDisk(): Promise<void> {}
  async moveInstance(): Promise<void> {}
  async destroy(): Promise<void> {}
  async createVolume(): Promise<void> {}
  async resizeVolume(): Promise<void> {}
  async deleteVolume(): Promise<void> {}
  async captureImage(): Promise<void> {}
  async deleteImage(): Promise<void> {}
  async captureBackup(): Promise<void> {}
  async deleteBackup(): Promise<void> {}
  async start(): Promise<void> {}
  async powerButton(): Promise<void> {}
  async stop(): Promise<void> {}
  async status(): Promise<MachineStatus> {
    return { state: 'stopped' };
  }
  async attachedVolumes(): Promise<number[]> {
    return [];
  }
  async attachVolume(): Promise<void> {}
  async detachVolume(): Promise<void> {}
  async counters(): Promise<MachineCounters | null> {
    return null;
  }
  async consoleRead(): Promise<string> {
    return '';
  }
  async consoleWrite(): Promise<void> {}
  async list(): Promise<MachineInfo[]> {
    return [];
  }
  async sweep(): Promise<void> {}
}
