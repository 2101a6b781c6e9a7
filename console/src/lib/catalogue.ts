import { useQuery } from '@tanstack/react-query';
import type { Option } from '../components/form';
import { all } from './api';

/** Selector options from a collection (every page), cached for the session. */
export function useOptions<T>(
  path: string,
  toOption: (row: T) => Option,
  opts: { filter?: unknown; enabled?: boolean } = {},
): Option[] {
  const q = useQuery({
    queryKey: ['options', path, opts.filter],
    enabled: opts.enabled ?? true,
    staleTime: 60_000,
    queryFn: () => all<T>(path, opts.filter),
  });
  return (q.data ?? []).map(toOption);
}

export interface Region {
  id: string;
  label: string;
  capabilities: string[];
  site_type?: string;
}

/** The regions with their capabilities (the fields a region cannot take are not offered). */
export function useRegionList(): Region[] {
  const q = useQuery({
    queryKey: ['options', '/regions', undefined],
    staleTime: 60_000,
    queryFn: () => all<Region>('/regions'),
  });
  return q.data ?? [];
}

/** Whether the region (by id) has the capability. */
export const regionHas = (regions: Region[], id: unknown, capability: string) =>
  regions.some((r) => r.id === id && r.capabilities.includes(capability));

export const useRegions = () =>
  useOptions<{ id: string; label: string }>('/regions', (r) => ({
    value: r.id,
    label: `${r.label} (${r.id})`,
  }));

const notice = (sec: number) =>
  sec >= 86_400 ? `${Math.round(sec / 86_400)} d` : `${Math.round(sec / 3600)} h`;

/** The maintenance policies (`/maintenance/policies`) as choices. */
export const usePolicies = () =>
  useOptions<{ slug: string; label: string; notification_period_sec: number }>(
    '/maintenance/policies',
    (m) => ({
      value: m.slug,
      label: `${m.label} (${notice(m.notification_period_sec)} notice)`,
    }),
  );

export const useTypes = () =>
  useOptions<{ id: string; label: string; price: { monthly: number } }>('/compute/types', (t) => ({
    value: t.id,
    label: `${t.label} — $${t.price.monthly}/mo`,
  }));

export const useImages = () =>
  useOptions<{ id: string; label: string; is_public: boolean; type: string }>('/images', (i) => ({
    value: i.id,
    label: `${i.label}${i.is_public ? '' : i.type === 'shared' ? ' (shared)' : ' (private)'}`,
  }));

/** The account's VPCs with their subnets (the choices of a VPC interface). */
export const useVpcSubnets = () =>
  useQuery({
    queryKey: ['options', 'vpc-subnets'],
    queryFn: () =>
      all<{
        id: number;
        label: string;
        region: string;
        subnets: { id: number; label: string; ipv4: string }[];
      }>('/vpcs'),
  });
