import type { Generated } from 'kysely';

export interface StackScriptsTable {
  id: Generated<number>;
  account_id: number;
  username: string;
  user_gravatar_id: string;
  label: string;
  description: string;
  /** JSON array of image ids (or `any/all`). */
  images: string;
  script: string;
  rev_note: string;
  /** JSON array of the UDFs parsed from the script at its last write. */
  user_defined_fields: string;
  is_public: number;
  deployments_total: number;
  created: string;
  updated: string;
}

/** One instance deployed from a StackScript (removed with the instance: deployments_active). */
export interface StackScriptDeploymentsTable {
  instance_id: number;
  stackscript_id: number;
  account_id: number;
  /** The stackscript_data given at deploy time, JSON. */
  data: string;
  created: string;
}

export interface StackScriptTables {
  stackscripts: StackScriptsTable;
  stackscript_deployments: StackScriptDeploymentsTable;
}
