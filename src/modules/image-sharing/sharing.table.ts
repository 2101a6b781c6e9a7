import type { Generated } from 'kysely';

/** A producer account's share group. */
export interface ImageShareGroupsTable {
  id: Generated<number>;
  account_id: number;
  uuid: string;
  label: string;
  description: string;
  is_suspended: Generated<number>;
  created: string;
  updated: string | null;
  expiry: string | null;
}

/** A private image shared in a group: the entry `shared/<id>`, with its own label and description. */
export interface ImageSharesTable {
  id: Generated<number>;
  group_id: number;
  image_id: number;
  label: string;
  description: string;
  created: string;
  updated: string | null;
}

/** `pending` until a producer adds it as a member, then `active`; `revoked` once removed. */
export type ShareTokenStatus = 'pending' | 'active' | 'revoked';

/** A consumer account's token to join one group (the secret is kept as its SHA-256). */
export interface ImageShareTokensTable {
  id: Generated<number>;
  account_id: number;
  token_uuid: string;
  token_hash: string;
  label: string;
  group_id: number;
  status: ShareTokenStatus;
  created: string;
  updated: string | null;
  expiry: string | null;
}

/** A consumer in a group, added by the producer with the consumer's token. */
export interface ImageShareMembersTable {
  id: Generated<number>;
  group_id: number;
  token_id: number;
  label: string;
  status: string;
  created: string;
  updated: string | null;
  expiry: string | null;
}

export interface ImageSharingTables {
  image_share_groups: ImageShareGroupsTable;
  image_shares: ImageSharesTable;
  image_share_tokens: ImageShareTokensTable;
  image_share_members: ImageShareMembersTable;
}
