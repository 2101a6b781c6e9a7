import type { Generated } from 'kysely';

export type ManagedServiceStatus = 'disabled' | 'pending' | 'ok' | 'problem';

export interface ManagedContactsTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  email: string;
  phone_primary: string | null;
  phone_secondary: string | null;
  group_name: string | null;
  updated: string;
}

export interface ManagedCredentialsTable {
  id: Generated<number>;
  account_id: number;
  label: string;
  /** Sealed (platform sealer); never shown through the API. */
  username_sealed: string | null;
  password_sealed: string;
  last_decrypted: string | null;
  created: string;
  updated: string;
}

export interface ManagedServicesTable {
  id: Generated<number>;
  account_id: number;
  label: string;
  service_type: 'url' | 'tcp';
  address: string;
  timeout: number;
  body: string | null;
  consultation_group: string;
  notes: string | null;
  region: string | null;
  /** JSON array of credential ids. */
  credentials: string;
  status: ManagedServiceStatus;
  last_error: string | null;
  checked_ms: number | string | null;
  created: string;
  updated: string;
}

export interface ManagedIssuesTable {
  id: Generated<number>;
  account_id: number;
  /** The service whose failing check opened it. */
  service_id: number;
  /** JSON array of the affected service ids. */
  services: string;
  ticket_id: number | null;
  ticket_summary: string;
  created: string;
  /** When the service answered again; null while the issue is ongoing. */
  resolved: string | null;
}

export interface ManagedComputeSettingsTable {
  instance_id: number;
  account_id: number;
  ssh_access: number;
  ssh_user: string | null;
  ssh_ip: string;
  ssh_port: number | null;
}

export interface ManagedKeysTable {
  account_id: number;
  ssh_key: string;
  created: string;
}

export interface ManagedTables {
  managed_contacts: ManagedContactsTable;
  managed_credentials: ManagedCredentialsTable;
  managed_services: ManagedServicesTable;
  managed_issues: ManagedIssuesTable;
  managed_compute_settings: ManagedComputeSettingsTable;
  managed_keys: ManagedKeysTable;
}
