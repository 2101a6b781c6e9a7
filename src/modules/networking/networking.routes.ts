import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../platform/area.js';
import type { IpsService } from './ips.service.js';
import { principal, xFilter } from '../../http/principal.js';
import {
  AddressParams,
  AllocateIpBody,
  IpAddressPage,
  IpAddressSchema,
  IpListQuery,
  UpdateIpBody,
} from './ips.schemas.js';

type Ctx = RouteContext<{ ips: IpsService }>;

const tags = ['Networking'];

/** The account's addresses: `/networking/ips[/{address}]`. */
export function networkingRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.ips;
  return async (app) => {
    app.get(
      '/networking/ips',
      {
        schema: {
          tags,
          summary: 'IP Addresses List',
          querystring: IpListQuery,
          response: { 200: IpAddressPage },
        },
        config: { operationId: 'getIPs', scopes: ['ips:read_only'], paged: true },
      },
      (req) => svc.list(principal(req), req.query, xFilter(req), req.query.skip_ipv6_rdns ?? false),
    );
    app.post(
      '/networking/ips',
      {
        schema: {
          tags,
          summary: 'IP Address Allocate',
          body: AllocateIpBody,
          response: { 200: IpAddressSchema },
        },
        config: { operationId: 'allocateIP', scopes: ['ips:read_write', 'computes:read_write'] },
      },
      (req) =>
        svc.allocate(principal(req), {
          type: req.body.type,
          public: req.body.public,
          compute_id: req.body.compute_id ?? undefined,
          reserved: req.body.reserved ?? undefined,
          region: req.body.region ?? undefined,
        }),
    );
    app.get(
      '/networking/ips/:address',
      {
        schema: {
          tags,
          summary: 'IP Address View',
          params: AddressParams,
          response: { 200: IpAddressSchema },
        },
        config: { operationId: 'getIP', scopes: ['ips:read_only'] },
      },
      (req) => svc.get(principal(req), req.params.address),
    );
    app.put(
      '/networking/ips/:address',
      {
        schema: {
          tags,
          summary: 'IP Address RDNS Update',
          params: AddressParams,
          body: UpdateIpBody,
          response: { 200: IpAddressSchema },
        },
        config: { operationId: 'updateIP', scopes: ['ips:read_write'] },
      },
      (req) =>
        svc.update(principal(req), req.params.address, {
          ...req.body,
          reserved: req.body.reserved ?? undefined,
        }),
    );
  };
}
