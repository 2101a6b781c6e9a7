/** A reference to an entity in an event: `{id, type, label, url}`. */
export interface EntityRef {
  type: string;
  id: number | null;
  label: string | null;
  url: string | null;
}

export type EventStatus = 'failed' | 'finished' | 'notification' | 'scheduled' | 'started';

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
  timeRemaining?: string | null;
}

export interface EventChange {
  status?: EventStatus;
  percentComplete?: number | null;
  message?: string | null;
  timeRemaining?: string | null;
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
    type: 'ssh_key',
    id,
    label,
    url: `/v4/profile/sshkeys/${id}`,
  }),
};
