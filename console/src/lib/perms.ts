import { useQuery } from '@tanstack/react-query';
import { get } from './api';

export interface Profile {
  username: string;
  email: string;
  restricted: boolean;
  two_factor_auth: boolean;
  timezone: string;
}

type Permission = 'read_only' | 'read_write' | null;
export interface Grants {
  global: Record<string, boolean | Permission> & { account_access: Permission };
  [type: string]: unknown;
}

export function useProfile() {
  return useQuery({ queryKey: ['/profile'], queryFn: () => get<Profile>('/profile') });
}

/** The user's grants (restricted users only; an unrestricted user may do anything). */
export function useGrants(profile: Profile | undefined) {
  return useQuery({
    queryKey: ['/profile/grants'],
    enabled: profile?.restricted === true,
    queryFn: () => get<Grants>('/profile/grants'),
  });
}

/** Grant types of the API and the console's sections they open. */
export type GrantType =
  | 'compute'
  | 'volume'
  | 'firewall'
  | 'nodebalancer'
  | 'vpc'
  | 'image'
  | 'stackscript'
  | 'domain'
  | 'longview';

export interface Can {
  unrestricted: boolean;
  /** Whether the section has anything for this user: an entity grant or the add grant. */
  see(type: GrantType): boolean;
  /** The global `add_*` grant. */
  add(type: GrantType): boolean;
  /** read_write on one entity. */
  write(type: GrantType, id: number): boolean;
  account: Permission;
}

const ADD: Record<GrantType, string> = {
  compute: 'add_computes',
  volume: 'add_volumes',
  firewall: 'add_firewalls',
  nodebalancer: 'add_nodebalancers',
  vpc: 'add_vpcs',
  image: 'add_images',
  stackscript: 'add_stackscripts',
  domain: 'add_domains',
  longview: 'add_longview',
};

/** What the signed-in user may see and do, from its profile and grants. */
export function permissions(profile: Profile | undefined, grants: Grants | undefined): Can {
  if (!profile?.restricted)
    return {
      unrestricted: true,
      see: () => true,
      add: () => true,
      write: () => true,
      account: 'read_write',
    };
  const list = (t: GrantType) =>
    ((grants?.[t] as { id: number; permissions: Permission }[] | undefined) ?? []).filter(
      (g) => g.permissions !== null,
    );
  const add = (t: GrantType) => grants?.global[ADD[t]] === true;
  return {
    unrestricted: false,
    see: (t) => add(t) || list(t).length > 0,
    add,
    write: (t, id) => list(t).some((g) => g.id === id && g.permissions === 'read_write'),
    account: grants?.global.account_access ?? null,
  };
}
