import type { Generated } from 'kysely';

/** What a real machine's NoCloud seed carries (src/machines): the last deployment's credentials. */
export interface InstanceSeedsTable {
  instance_id: number;
  account_id: number;
  /** Bumped by each deployment and password reset: the guest applies a new seed once. */
  generation: number;
  /** crypt(3) SHA-512 of the root password; the password itself is never kept. */
  root_pass_hash: string | null;
  /** JSON array of public keys. */
  authorized_keys: string;
  user_data: string | null;
  updated: string;
}

/** Counters of a running machine, sampled by the host agent (cumulative since it started). */
export interface MachineSamplesTable {
  id: Generated<number>;
  instance_id: number;
  account_id: number;
  t_ms: number;
  cpu_ms: number;
  disk_read_ops: number;
  disk_write_ops: number;
  disk_read_bytes: number;
  disk_write_bytes: number;
  net_rx_bytes: number | null;
  net_tx_bytes: number | null;
}

/** Where a disk that is not ready yet gets its bytes (JSON DiskSource of src/machines/driver.ts). */
export interface DiskSourcesTable {
  disk_id: number;
  instance_id: number;
  account_id: number;
  source: string;
}

export interface MachineTables {
  instance_seeds: InstanceSeedsTable;
  machine_samples: MachineSamplesTable;
  disk_sources: DiskSourcesTable;
}
