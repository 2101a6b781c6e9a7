import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../platform/area.js';
import type { TransfersService } from './transfers.service.js';
import { principal, xFilter } from '../../http/principal.js';
import { Empty, PageQuery } from '../../http/schemas/common.js';
import {
  CreateTransferBody,
  TokenParams,
  TransferPage,
  TransferSchema,
} from './transfers.schemas.js';

type Ctx = RouteContext<{ transfers: TransfersService }>;

const tags = ['Account'];
const read = { scopes: ['account:read_only'] };
const write = { scopes: ['account:read_write'] };

/**
 * `/account/service-transfers*` and the deprecated `/account/entity-transfers*`: the same
 * records and rules under both paths, with the reference's operationIds.
 */
export function transfersRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.transfers;
  return async (app) => {
    for (const [path, name, label] of [
      ['/account/service-transfers', 'ServiceTransfer', 'Service Transfer'],
      ['/account/entity-transfers', 'EntityTransfer', 'Entity Transfer'],
    ] as const) {
      const deprecated = name === 'EntityTransfer' ? { deprecated: true } : {};
      app.get(
        path,
        {
          schema: {
            tags,
            summary: `${label}s List`,
            ...deprecated,
            querystring: PageQuery,
            response: { 200: TransferPage },
          },
          config: { operationId: `get${name}s`, ...read, paged: true },
        },
        (req) => svc.list(principal(req), req.query, xFilter(req)),
      );
      app.post(
        path,
        {
          schema: {
            tags,
            summary: `${label} Create`,
            ...deprecated,
            body: CreateTransferBody,
            response: { 200: TransferSchema },
          },
          config: { operationId: `create${name}`, ...write },
        },
        (req) => svc.create(principal(req), req.body),
      );
      app.get(
        `${path}/:token`,
        {
          schema: {
            tags,
            summary: `${label} View`,
            ...deprecated,
            params: TokenParams,
            response: { 200: TransferSchema },
          },
          config: { operationId: `get${name}`, ...read },
        },
        (req) => svc.get(principal(req), req.params.token),
      );
      app.delete(
        `${path}/:token`,
        {
          schema: {
            tags,
            summary: `${label} Cancel`,
            ...deprecated,
            params: TokenParams,
            response: { 200: Empty },
          },
          config: { operationId: `delete${name}`, ...write },
        },
        async (req) => {
          await svc.cancel(principal(req), req.params.token);
          return {};
        },
      );
      app.post(
        `${path}/:token/accept`,
        {
          schema: {
            tags,
            summary: `${label} Accept`,
            ...deprecated,
            params: TokenParams,
            response: { 200: Empty },
          },
          config: { operationId: `accept${name}`, ...write, rateLimit: 'transfer_accept' },
        },
        async (req) => {
          await svc.accept(principal(req), req.params.token);
          return {};
        },
      );
    }
  };
}
