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
  seen: boolean;
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
