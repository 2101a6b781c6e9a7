import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import type { RouteContext } from '../../platform/area.js';
import type { EventsService } from './events.service.js';
import { sendJsonText } from '../../http/json-text.js';
import { principal, xFilter } from '../../http/principal.js';
import { Empty, PageQuery } from '../../http/schemas/common.js';
import { EventIdParams, EventPage, EventSchema } from './events.schemas.js';

type Ctx = RouteContext<{ events: EventsService }>;

const tags = ['Account'];

export function eventsRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.events;
  return async (app) => {
    app.get(
      '/account/events',
      {
        schema: {
          tags,
          summary: 'Events List',
          querystring: PageQuery,
          response: { 200: EventPage },
        },
        config: { operationId: 'getEvents', scopes: ['events:read_only'], paged: true },
      },
      async (req, reply) => {
        // Rendered by the route's own serializer, then kept encoded (events.feed.ts).
        const serialize = reply.getSerializationFunction('200') ?? JSON.stringify;
        const body = await svc.listJson(principal(req), req.query, xFilter(req), (page) =>
          serialize(page as unknown as { [key: string]: unknown }),
        );
        return sendJsonText(reply as unknown as FastifyReply, body);
      },
    );
    app.get(
      '/account/events/:eventId',
      {
        schema: {
          tags,
          summary: 'Event View',
          params: EventIdParams,
          response: { 200: EventSchema },
        },
        config: { operationId: 'getEvent', scopes: ['events:read_only'] },
      },
      (req) => svc.get(principal(req), req.params.eventId),
    );
    app.post(
      '/account/events/:eventId/read',
      {
        schema: {
          tags,
          summary: 'Event Mark as Read',
          params: EventIdParams,
          response: { 200: Empty },
        },
        config: { operationId: 'eventRead', scopes: ['events:read_only'] },
      },
      async (req) => {
        await svc.markRead(principal(req), req.params.eventId);
        return {};
      },
    );
    app.post(
      '/account/events/:eventId/seen',
      {
        schema: {
          tags,
          summary: 'Event Mark as Seen',
          params: EventIdParams,
          response: { 200: Empty },
        },
        config: { operationId: 'eventSeen', scopes: ['events:read_only'] },
      },
      async (req) => {
        await svc.markSeen(principal(req), req.params.eventId);
        return {};
      },
    );
  };
}
