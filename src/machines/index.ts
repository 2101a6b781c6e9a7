import type { Logger } from 'pino';
import type { MachinesConfig } from '../config/machines-config.js';
import type { BlobStore } from '../storage/index.js';
import type { ComputeDriver } from './driver.js';
import { SimulatedDriver } from './simulated.js';

export type { ComputeDriver } from './driver.js';

/**
 * The compute driver STRATUS_COMPUTE_DRIVER names. The QEMU driver is loaded only when chosen
 * (the simulated default's start pays nothing for it).
 */
export async function createComputeDriver(
  cfg: MachinesConfig,
  imageBlobs: BlobStore,
  log: Logger,
): Promise<ComputeDriver> {
  if (cfg.driver === 'simulated') return new SimulatedDriver();
  const { QemuDriver } = await import('./qemu/qemu-driver.js');
  return new QemuDriver(cfg, imageBlobs, log.child({ subsystem: 'machines' }));
}
