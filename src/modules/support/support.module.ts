import { defineArea } from '../../platform/area.js';
import { catalogueModule } from '../catalogue/catalogue.module.js';
import { ticketBlobsStateHook } from './support.blobs.js';
import { supportControlRoutes, supportRoutes } from './support.routes.js';
import { TicketsService } from './support.service.js';

/** Support tickets: on an entity or none, replies, attachments (blob store `tickets`), close. */
export const supportModule = defineArea({
  name: 'support',
  needs: [catalogueModule],
  tables: ['support_tickets', 'support_ticket_replies', 'support_ticket_attachments'],
  services: ({ db, clock, events, entities, blobs }, { catalogue: { catalogue } }) => ({
    tickets: new TicketsService({
      db,
      clock,
      events,
      entities,
      catalogue,
      bytes: blobs('tickets'),
    }),
  }),
  api: (ctx) => [supportRoutes(ctx)],
  internal: (ctx) => [supportControlRoutes(ctx)],
  stateHooks: ({ tickets }, { db }) => [ticketBlobsStateHook(db, tickets.d.bytes)],
});
