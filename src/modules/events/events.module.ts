import { defineArea } from '../../platform/area.js';
import { FeedCache, feedCacheMetrics } from './events.feed.js';
import { eventsRoutes } from './events.routes.js';
import { EventsService } from './events.service.js';

/** The account's event feed. Events are written through the platform's EventWriter. */
export const eventsModule = defineArea({
  name: 'events',
  needs: [],
  tables: ['events', 'event_feeds'],
  services: ({ db, clock, config, queue }) => ({
    events: new EventsService(db, clock, new FeedCache(config.feedCacheMb * 1024 * 1024), queue),
  }),
  api: (ctx) => [eventsRoutes(ctx)],
  metrics: ({ events }) => feedCacheMetrics(events.cache.stats),
});
