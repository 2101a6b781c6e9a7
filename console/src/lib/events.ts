import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { get, type Page } from './api';

export interface ApiEvent {
  id: number;
  action: string;
  status: 'failed' | 'finished' | 'notification' | 'scheduled' | 'started';
  percent_complete: number | null;
  created: string;
  username: string | null;
  entity: { id: number | string; label: string; type: string; url: string } | null;
  secondary_entity?: { id: number | string; label: string; type: string; url: string } | null;
  seen: boolean;
}

/** Actions whose words are not their name with spaces (the newer areas' events). */
const ACTION_WORDS: Record<string, string> = {
  placement_group_create: 'placement group created',
  placement_group_update: 'placement group renamed',
  placement_group_delete: 'placement group deleted',
  placement_group_assign: 'instance assigned to placement group',
  placement_group_unassign: 'instance removed from placement group',
  placement_group_became_compliant: 'placement group compliant again',
  placement_group_became_non_compliant: 'placement group became non-compliant',
  reserved_ip_create: 'IP address reserved',
  reserved_ip_delete: 'reserved IP address released',
  reserved_ip_assign: 'reserved IP address assigned',
  reserved_ip_unassign: 'reserved IP address unassigned',
};

/** Entity types written as words. */
const TYPE_WORDS: Record<string, string> = {
  placement_group: 'placement group',
  ipaddress: 'IP address',
  compute: 'instance',
  nodebalancer: 'NodeBalancer',
};

/** An event's action as words (`placement_group_assign`: "instance assigned to placement group"). */
export const actionWords = (action: string): string =>
  ACTION_WORDS[action] ?? action.replace(/_/g, ' ');

/** An event's entities as words: "placement group db-group, instance web-1". */
export function entityWords(e: Pick<ApiEvent, 'entity' | 'secondary_entity'>): string {
  const one = (x: ApiEvent['entity'] | undefined) =>
    x ? `${TYPE_WORDS[x.type] ?? x.type.replace(/_/g, ' ')} ${x.label}` : '';
  return [one(e.entity), one(e.secondary_entity)].filter(Boolean).join(', ') || '—';
}

/**
 * Live status as the provider's console does it: the event feed is polled (every second while
 * something is in progress, every 5 seconds otherwise); when it changes, or while work is in
 * progress, the visible data is fetched again, so a new instance is seen going through
 * `provisioning` and `booting` to `running`.
 */
export function useEventPoller(enabled: boolean): void {
  const client = useQueryClient();
  const last = useRef('');
  useEffect(() => {
    if (!enabled) return;
    let stop = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      let busy = false;
      try {
        const page = await get<Page<ApiEvent>>('/account/events', {
          query: { page_size: 25 },
        });
        busy = page.data.some((e) => e.status === 'scheduled' || e.status === 'started');
        const print = page.data
          .map((e) => `${e.id}:${e.status}:${e.percent_complete ?? ''}:${e.seen}`)
          .join(',');
        if (print !== last.current || busy) {
          const first = last.current === '';
          last.current = print;
          client.setQueryData(['events-feed'], page);
          if (!first || busy)
            await client.invalidateQueries({
              predicate: (q) => q.queryKey[0] !== 'events-feed' && q.queryKey[0] !== '/profile',
            });
        }
      } catch {
        // a restricted user without events, or the server restarting: try again later
      }
      if (!stop) timer = setTimeout(tick, busy ? 1000 : 5000);
    };
    void tick();
    return () => {
      stop = true;
      if (timer) clearTimeout(timer);
    };
  }, [enabled, client]);
}
