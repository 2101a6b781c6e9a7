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

export const useRegions = () =>
  useOptions<{ id: string; label: string }>('/regions', (r) => ({
    value: r.id,
    label: `${r.label} (${r.id})`,
  }));

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
