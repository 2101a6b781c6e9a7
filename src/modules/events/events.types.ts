/**
 * Every `entity.type` the reference's Event schema allows (its enum, in its order). Clients that
 * parse events into enums stop at any other value, so an event may only name one of these.
 */
export const EVENT_ENTITY_TYPES = [
  'account',
  'backups',
  'community',
  'disks',
  'domain',
  'entity_transfer',
  'firewall',
  'image',
  'ipaddress',
  'compute',
  'longview',
  'managed_service',
  'nodebalancer',
  'oauth_client',
  'profile',
  'stackscript',
  'tag',
  'ticket',
  'token',
  'user',
  'user_ssh_key',
  'volume',
] as const;
/**
 * Entity types outside the reference revision's enum that the real service writes and Stratus
 * follows (docs/fidelity.md): VPC events name `vpc`, subnet events `subnet`, placement group
 * events `placement_group`; disk events name the disk `disk` and boot and config events the
 * config `compute_config` (secondary entities, the real wire). `reserved_ipv4_address` is the type a reserved address has among
 * tagged objects (`GET /tags/{label}`); events about addresses name `ipaddress`.
 */
export const EXTRA_EVENT_ENTITY_TYPES = [
  'vpc',
  'subnet',
  'placement_group',
  'reserved_ipv4_address',
  'disk',
  'compute_config',
] as const;
export type EventEntityType =
  | (typeof EVENT_ENTITY_TYPES)[number]
  | (typeof EXTRA_EVENT_ENTITY_TYPES)[number];

/**
 * A reference to an entity in an event: `{id, type, label, url}`. `id` is an integer, null only
 * for the types the reference lists as having none (`account`, `profile`).
 */
export interface EntityRef {
  type: EventEntityType;
  id: number | null;
  label: string | null;
  url: string | null;
}

/** `canceled`: a scheduled event that will not happen (maintenance canceled before it started). */
export type EventStatus =
  | 'canceled'
  | 'failed'
  | 'finished'
  | 'notification'
  | 'scheduled'
  | 'started';

export interface NewEvent {
  accountId: number;
  action: string;
  entity: EntityRef | null;
  secondaryEntity?: EntityRef | null;
  status: EventStatus;
  username: string | null;
  message?: string | null;
  percentComplete?: number | null;
  rate?: string | null;
  timeRemaining?: string | number | null;
}

export interface EventChange {
  status?: EventStatus;
  percentComplete?: number | null;
  message?: string | null;
  timeRemaining?: string | number | null;
  entityLabel?: string | null;
}

/** Stable entity type names, labels and URL paths for events and grants. */
export const entityRefs = {
  compute: (id: number, label: string | null): EntityRef => ({
    type: 'compute',
    id,
    label,
    url: `/v4/compute/instances/${id}`,
  }),
  disk: (computeId: number, diskId: number, label: string | null): EntityRef => ({
    type: 'disk',
    id: diskId,
    label,
    url: `/v4/compute/instances/${computeId}/disks/${diskId}`,
  }),
  config: (computeId: number, configId: number, label: string | null): EntityRef => ({
    type: 'compute_config',
    id: configId,
    label,
    url: `/v4/compute/instances/${computeId}/configs/${configId}`,
  }),
  /**
   * A public image (`compute/debian12`): its id is a string, so it is not stored in the integer
   * id column; the answer takes it from the URL (`events.repository.ts`).
   */
  publicImage: (imageId: string, label: string | null): EntityRef => ({
    type: 'image',
    id: null,
    label,
    url: `/v4/images/${imageId}`,
  }),
  volume: (id: number, label: string | null): EntityRef => ({
    type: 'volume',
    id,
    label,
    url: `/v4/volumes/${id}`,
  }),
  account: (euuid: string): EntityRef => ({
    type: 'account',
    id: null,
    label: euuid,
    url: '/v4/account',
  }),
  user: (id: number, username: string): EntityRef => ({
    type: 'user',
    id,
    label: username,
    url: `/v4/account/users/${username}`,
  }),
  token: (id: number, label: string): EntityRef => ({
    type: 'token',
    id,
    label,
    url: `/v4/profile/tokens/${id}`,
  }),
  sshKey: (id: number, label: string): EntityRef => ({
    type: 'user_ssh_key',
    id,
    label,
    url: `/v4/profile/sshkeys/${id}`,
  }),
};
