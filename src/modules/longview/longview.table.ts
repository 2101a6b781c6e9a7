import type { Generated } from 'kysely';

export interface LongviewClientsTable {
  id: Generated<number>;
  account_id: number;
  label: string;
  /** Sealed (platform sealer): shown to users who may write the client. */
  api_key_sealed: string;
  install_code_sealed: string;
  apache: number;
  nginx: number;
  mysql: number;
  created: string;
  updated: string;
}

export interface LongviewTables {
  longview_clients: LongviewClientsTable;
}
