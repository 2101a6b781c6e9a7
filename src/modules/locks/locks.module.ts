import { defineArea } from '../../platform/area.js';
import { locksRoutes } from './locks.routes.js';
import { LocksService } from './locks.service.js';

/**
 * Resource locks: delete protection of instances, volumes and NodeBalancers (`/locks`). The lock
 * rows live here; the areas of the locked entities read them (locks.repository) to refuse a
 * deletion, a rebuild or a transfer, and, under `cannot_delete_with_subresources`, the deletion
 * of their sub-resources.
 */
export const locksModule = defineArea({
  name: 'locks',
  needs: [],
  tables: ['resource_locks'],
  services: ({ db, clock, entities }) => ({
    locks: new LocksService({ db, clock, entities }),
  }),
  api: (ctx) => [locksRoutes(ctx)],
});
