import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../platform/area.js';
import type { IpsService } from '../networking/ips.service.js';
import { principal } from '../../http/principal.js';
import { Empty } from '../../http/schemas/common.js';
import { IpAddressSchema, RdnsBody } from '../networking/ips.schemas.js';
import { ComputeParams } from './compute.schemas.js';
import { AddIpBody, ComputeIpParams, InstanceIpsSchema } from './ips.schemas.js';

type Ctx = RouteContext<unknown, { networking: { ips: IpsService } }>;

const tags = ['Compute Instances'];
const read = { scopes: ['computes:read_only'] };
const write = { scopes: ['computes:read_write'] };

/** An instance's addresses: `/compute/instances/{computeId}/ips[/{address}]`. */
export function computeIpsRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.areas.networking.ips;
  return async (app) => {
    app.get(
      '/compute/instances/:computeId/ips',
      {
        schema: {
          tags,
          summary: 'Networking Information List',
          params: ComputeParams,
          response: { 200: InstanceIpsSchema },
        },
        config: { operationId: 'getComputeIPs', ...read },
      },
      (req) => svc.instanceIps(principal(req), req.params.computeId),
    );
    app.post(
      '/compute/instances/:computeId/ips',
      {
        schema: {
          tags,
          summary: 'IPv4 Address Allocate',
          params: ComputeParams,
          body: AddIpBody,
          response: { 200: IpAddressSchema },
        },
        config: { operationId: 'addComputeIP', ...write },
      },
      (req) =>
        svc.addToInstance(principal(req), req.params.computeId, {
          ...req.body,
          address: req.body.address ?? undefined,
        }),
    );
    app.get(
      '/compute/instances/:computeId/ips/:address',
      {
        schema: {
          tags,
          summary: 'IP Address View',
          params: ComputeIpParams,
          response: { 200: IpAddressSchema },
        },
        config: { operationId: 'getComputeIP', ...read },
      },
      (req) => svc.getOnInstance(principal(req), req.params.computeId, req.params.address),
    );
    app.put(
      '/compute/instances/:computeId/ips/:address',
      {
        schema: {
          tags,
          summary: 'IP Address RDNS Update',
          params: ComputeIpParams,
          body: RdnsBody,
          response: { 200: IpAddressSchema },
        },
        config: { operationId: 'updateComputeIP', ...write },
      },
      (req) =>
        svc.updateOnInstance(
          principal(req),
          req.params.computeId,
          req.params.address,
          req.body.rdns,
        ),
    );
    app.delete(
      '/compute/instances/:computeId/ips/:address',
      {
        schema: {
          tags,
          summary: 'IPv4 Address Delete',
          params: ComputeIpParams,
          response: { 200: Empty },
        },
        config: { operationId: 'removeComputeIP', ...write },
      },
      async (req) => {
        await svc.deleteFromInstance(principal(req), req.params.computeId, req.params.address);
        return {};
      },
    );
  };
}
