import type { Generated } from 'kysely';

export type VolumeStatus = 'creating' | 'active' | 'resizing' | 'key_rotating';

export interface VolumesTable {
  id: Generated<number>;
  account_id: number;
  label: string;
  region: string;
  /** GiB. */
  size: number;
  status: VolumeStatus;
  hardware_type: 'nvme' | 'hdd';
  /** `enabled` or `disabled`: block storage encryption, chosen at create (0029). */
  encryption?: string;
  /** The instance it is attached to, or null. */
  compute_id: number | null;
  /** Whether the attachment put the volume into a config's devices. */
  persist_across_boots: number;
  created: string;
  updated: string;
}

export interface VolumeTables {
  volumes: VolumesTable;
}
