import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principal, xFilter } from '../../http/principal.js';
import { Empty, PageQuery } from '../../http/schemas/common.js';
import type { RouteContext } from '../../platform/area.js';
import {
  AddressParams,
  ReservedIpPage,
  ReservedIpSchema,
  ReserveIpBody,
  UpdateReservedIpBody,
} from './ips.schemas.js';
import type { ReservedIpsService } from './reserved.service.js';

type Ctx = RouteContext<{ reserved: ReservedIpsService }>;

const tags = ['Networking'];

/**
 * `/networking/reserved/ips`: reserved IPv4 addresses (`/networking/reserved/ips/types`, their
 * prices, is served by the billing area with the other price catalogues).
 */
export function reservedRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.reserved;
  return async (app) => {
    app.get(
      '/networking/reserved/ips',
      {
        schema: {
          tags,
          summary: 'Reserved IP Addresses List',
          querystring: PageQuery,
          response: { 200: ReservedIpPage },
        },
        config: { operationId: 'getReservedIps', scopes: ['ips:read_only'], paged: true },
      },
      (req) => svc.list(principal(req), req.query, xFilter(req)),
    );
    app.post(
      '/networking/reserved/ips',
      {
        schema: {
          tags,
          summary: 'Reserved IP Address Create',
          body: ReserveIpBody,
          response: { 200: ReservedIpSchema },
        },
        config: { operationId: 'postReserveIp', scopes: ['ips:read_write'] },
      },
      (req) =>
        svc.reserve(principal(req), { region: req.body.region, tags: req.body.tags ?? undefined }),
    );
    app.get(
      '/networking/reserved/ips/:address',
      {
        schema: {
          tags,
          summary: 'Reserved IP Address View',
          params: AddressParams,
          response: { 200: ReservedIpSchema },
        },
        config: { operationId: 'getReservedIp', scopes: ['ips:read_only'] },
      },
      (req) => svc.get(principal(req), req.params.address),
    );
    app.put(
      '/networking/reserved/ips/:address',
      {
        schema: {
          tags,
          summary: 'Reserved IP Address Update',
          params: AddressParams,
          body: UpdateReservedIpBody,
          response: { 200: ReservedIpSchema },
        },
        config: { operationId: 'putReservedIp', scopes: ['ips:read_write'] },
      },
      (req) => svc.update(principal(req), req.params.address, { tags: req.body.tags ?? undefined }),
    );
    app.delete(
      '/networking/reserved/ips/:address',
      {
        schema: {
          tags,
          summary: 'Reserved IP Address Delete',
          params: AddressParams,
          response: { 200: Empty },
        },
        config: { operationId: 'deleteReservedIp', scopes: ['ips:read_write'] },
      },
      async (req) => {
        await svc.delete(principal(req), req.params.address);
        return {};
      },
    );
  };
}
