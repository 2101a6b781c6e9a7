import type { UsersTable } from '../modules/identity/identity.table.js';
import type { ScopeSet } from './scopes.js';

/** A user's row as stored. */
export type UserRow = Omit<UsersTable, 'id'> & { id: number };

/** The global grants of a restricted user (reference: GrantsResponse.global). */
export interface GlobalGrants {
  account_access: 'read_only' | 'read_write' | null;
  add_computes: boolean;
  add_databases: boolean;
  add_domains: boolean;
  add_firewalls: boolean;
  add_images: boolean;
  add_longview: boolean;
  add_nodebalancers: boolean;
  add_stackscripts: boolean;
  add_volumes: boolean;
  add_vpcs: boolean;
  cancel_account: boolean;
  longview_subscription: boolean;
}

export type GlobalGrantName = Exclude<keyof GlobalGrants, 'account_access'>;

export const EMPTY_GLOBAL_GRANTS: GlobalGrants = Object.freeze({
  account_access: null,
  add_computes: false,
  add_databases: false,
  add_domains: false,
  add_firewalls: false,
  add_images: false,
  add_longview: false,
  add_nodebalancers: false,
  add_stackscripts: false,
  add_volumes: false,
  add_vpcs: false,
  cancel_account: false,
  longview_subscription: false,
});

/** Who is calling: the token, its user and the user's account. */
export interface Principal {
  tokenId: number;
  tokenKind: string;
  /** When the calling token expires (`YYYY-MM-DDTHH:MM:SS` UTC), or null: never. */
  tokenExpiry: string | null;
  scopes: ScopeSet;
  scopesText: string;
  userId: number;
  username: string;
  accountId: number;
  accountEuuid: string;
  restricted: boolean;
  globalGrants: GlobalGrants;
  /** The scopes in canonical form (the X-OAuth-Scopes header). */
  scopesHeader?: string;
  /**
   * The user's row, read with the token (GET /profile answers from it). Kept exact by the
   * principal cache's invalidations; absent on principals built elsewhere.
   */
  user?: Readonly<UserRow>;
}
