export interface ChildAccountsTable {
  child_id: number;
  parent_id: number;
  /** The child account's user that acts for the parent's users (not a foreign key). */
  proxy_user_id: number;
  created: string;
}

export interface ChildAccountTables {
  child_accounts: ChildAccountsTable;
}
