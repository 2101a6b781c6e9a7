import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import type { RouteContext } from '../../platform/area.js';
import type { StratusApp } from '../../http/stratus-app.js';
import type { TicketsService } from './support.service.js';
import { errors } from '../../errors/errors.js';
import { principal, xFilter } from '../../http/principal.js';
import { Empty, PageQuery } from '../../http/schemas/common.js';
import { ATTACHMENT_MAX_BYTES } from './support.files.js';
import {
  AttachmentBody,
  CreateTicketBody,
  ReplyBody,
  ReplyPage,
  ReplySchema,
  SupportReplyBody,
  SupportTicketBody,
  TicketPage,
  TicketParams,
  TicketSchema,
} from './support.schemas.js';

type Ctx = RouteContext<{ tickets: TicketsService }>;

const tags = ['Support'];
const read = { scopes: ['account:read_only'] };
const write = { scopes: ['account:read_write'] };

/** `/support/tickets`: tickets, replies, attachments (multipart), close. */
export function supportRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.tickets;
  return async (app) => {
    // Multipart bodies for attachments only (this scope); one file, at most the size limit.
    await app.register(multipart, {
      limits: { fileSize: ATTACHMENT_MAX_BYTES, files: 1, fields: 10, parts: 11 },
      throwFileSizeLimit: true,
    });
    app.get(
      '/support/tickets',
      {
        schema: {
          tags,
          summary: 'Support Tickets List',
          querystring: PageQuery,
          response: { 200: TicketPage },
        },
        config: { operationId: 'getTickets', ...read, paged: true },
      },
      (req) => svc.list(principal(req), req.query, xFilter(req)),
    );
    app.post(
      '/support/tickets',
      {
        schema: {
          tags,
          summary: 'Support Ticket Open',
          body: CreateTicketBody,
          response: { 200: TicketSchema },
        },
        config: { operationId: 'createTicket', ...write, rateLimit: 'ticket_create' },
      },
      (req) => svc.create(principal(req), req.body),
    );
    app.get(
      '/support/tickets/:ticketId',
      {
        schema: {
          tags,
          summary: 'Support Ticket View',
          params: TicketParams,
          response: { 200: TicketSchema },
        },
        config: { operationId: 'getTicket', ...read },
      },
      (req) => svc.get(principal(req), req.params.ticketId),
    );
    app.post(
      '/support/tickets/:ticketId/attachments',
      {
        schema: {
          tags,
          summary: 'Support Ticket Attachment Create',
          consumes: ['multipart/form-data'],
          params: TicketParams,
          body: AttachmentBody,
          response: { 200: Empty },
        },
        // The body is a multipart stream read by the handler; the id was checked canonical
        // (src/http/path-ids.ts) before validation, so it only needs to become a number.
        validatorCompiler: ({ httpPart }) =>
          httpPart === 'params'
            ? (v: unknown) => {
                const params = v as { ticketId: unknown };
                params.ticketId = Number(params.ticketId);
                return true;
              }
            : () => true,
        config: { operationId: 'createTicketAttachment', ...write },
      },
      async (req) => {
        const p = principal(req);
        await svc.checkAttachable(p, req.params.ticketId);
        let part: Awaited<ReturnType<typeof req.file>>;
        try {
          part = req.isMultipart() ? await req.file() : undefined;
        } catch (err) {
          throw errors.invalidField(
            'file',
            `The multipart body could not be read: ${String((err as Error).message)}`,
          );
        }
        await svc.attach(
          p,
          req.params.ticketId,
          part && part.fieldname === 'file'
            ? { filename: part.filename, mimetype: part.mimetype, stream: part.file }
            : undefined,
        );
        return {};
      },
    );
    app.post(
      '/support/tickets/:ticketId/close',
      {
        schema: {
          tags,
          summary: 'Support Ticket Close',
          params: TicketParams,
          response: { 200: Empty },
        },
        config: { operationId: 'closeTicket', ...write },
      },
      async (req) => {
        await svc.close(principal(req), req.params.ticketId);
        return {};
      },
    );
    app.get(
      '/support/tickets/:ticketId/replies',
      {
        schema: {
          tags,
          summary: 'Replies List',
          params: TicketParams,
          querystring: PageQuery,
          response: { 200: ReplyPage },
        },
        config: { operationId: 'getTicketReplies', ...read, paged: true },
      },
      (req) => svc.replies(principal(req), req.params.ticketId, req.query),
    );
    app.post(
      '/support/tickets/:ticketId/replies',
      {
        schema: {
          tags,
          summary: 'Reply Create',
          params: TicketParams,
          body: ReplyBody,
          response: { 200: ReplySchema },
        },
        config: { operationId: 'createTicketReply', ...write },
      },
      (req) => svc.reply(principal(req), req.params.ticketId, req.body.description),
    );
  };
}

/**
 * Support's side, for test suites (behind the operator token, hidden from the API document):
 * `POST /_stratus/support/tickets` opens a ticket on an account as support, and
 * `POST /_stratus/support/tickets/{ticketId}/replies` answers one (a `new` ticket becomes `open`).
 */
export function supportControlRoutes(ctx: Ctx): FastifyPluginAsync {
  const svc = ctx.services.tickets;
  return async (plain) => {
    const app = plain as unknown as StratusApp;
    const hide = { hide: true, tags: ['Emulator controls'] };
    app.post(
      '/_stratus/support/tickets',
      {
        schema: {
          ...hide,
          operationId: 'stratusOpenSupportTicket',
          summary: 'Open a ticket on an account, as support',
          body: SupportTicketBody,
          response: { 200: TicketSchema },
        },
      },
      (req) => svc.openForAccount(req.body.euuid, req.body.summary, req.body.description),
    );
    app.post(
      '/_stratus/support/tickets/:ticketId/replies',
      {
        schema: {
          ...hide,
          operationId: 'stratusReplyToSupportTicket',
          summary: 'Reply to a ticket, as support',
          params: TicketParams,
          body: SupportReplyBody,
          response: { 200: ReplySchema },
        },
      },
      (req) => svc.supportReply(req.params.ticketId, req.body.description, req.body.created_by),
    );
  };
}
