import type { Generated } from 'kysely';

export type TransferStatus = 'accepted' | 'canceled' | 'completed' | 'failed' | 'pending' | 'stale';

/**
 * A service transfer (the deprecated entity transfers are the same records). `account_id` is the
 * sender; `receiver_account_id` the account that accepted it (null until then).
 */
export interface ServiceTransfersTable {
  id: Generated<number>;
  token: string;
  account_id: number;
  receiver_account_id: number | null;
  status: TransferStatus;
  /** JSON `{computes: number[]}`. */
  entities: string;
  created: string;
  updated: string;
  expiry: string;
  expiry_ms: number;
}

export interface TransferTables {
  service_transfers: ServiceTransfersTable;
}
