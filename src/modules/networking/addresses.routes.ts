import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../platform/area.js';
import type { AssignService } from './assign.service.js';
import type { Ipv6Service } from './ipv6.service.js';
import type { VlansService } from './vlans.service.js';
import { principal, xFilter } from '../../http/principal.js';
import { Empty, PageQuery } from '../../http/schemas/common.js';
import {
  AssignBody,
  CreatedRangeSchema,
  CreateRangeBody,
  Ipv6PoolPage,
  Ipv6RangeBgpSchema,
  Ipv6RangePage,
  RangeParams,
  ShareBody,
  VlanPage,
  VlanParams,
} from './ips.schemas.js';

type Ctx = RouteContext<{ assign: AssignService; ipv6: Ipv6Service; vlans: VlansService }>;

const tags = ['Networking'];
const writeBoth = { scopes: ['ips:read_write', 'computes:read_write'] };

/** Assign and share, IPv6 pools and ranges, VLANs. */
export function addressesRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const { assign, ipv6, vlans } = ctx.services;
  return async (app) => {
    for (const [path, op, summary] of [
      ['/networking/ips/assign', 'assignIPs', 'IP Addresses Assign'],
      ['/networking/ipv4/assign', 'assignIPv4s', 'Compute IPs Assign'],
    ] as const) {
      app.post(
        path,
        {
          schema: { tags, summary, body: AssignBody, response: { 200: Empty } },
          config: { operationId: op, ...writeBoth },
        },
        async (req) => {
          await assign.assign(principal(req), req.body);
          return {};
        },
      );
    }
    for (const [path, op, summary] of [
      ['/networking/ips/share', 'shareIPs', 'IP Addresses Share'],
      ['/networking/ipv4/share', 'shareIPv4s', 'IPv4 Sharing Configure'],
    ] as const) {
      app.post(
        path,
        {
          schema: { tags, summary, body: ShareBody, response: { 200: Empty } },
          config: { operationId: op, ...writeBoth },
        },
        async (req) => {
          await assign.share(principal(req), req.body);
          return {};
        },
      );
    }
    app.get(
      '/networking/ipv6/pools',
      {
        schema: {
          tags,
          summary: 'IPv6 Pools List',
          querystring: PageQuery,
          response: { 200: Ipv6PoolPage },
        },
        config: { operationId: 'getIPv6Pools', scopes: ['ips:read_only'], paged: true },
      },
      (req) => ipv6.pools(principal(req), req.query),
    );
    app.get(
      '/networking/ipv6/ranges',
      {
        schema: {
          tags,
          summary: 'IPv6 Ranges List',
          querystring: PageQuery,
          response: { 200: Ipv6RangePage },
        },
        config: { operationId: 'getIPv6Ranges', scopes: ['ips:read_only'], paged: true },
      },
      (req) => ipv6.list(principal(req), req.query),
    );
    app.post(
      '/networking/ipv6/ranges',
      {
        schema: {
          tags,
          summary: 'IPv6 Range Create',
          body: CreateRangeBody,
          response: { 200: CreatedRangeSchema },
        },
        config: { operationId: 'postIPv6Range', ...writeBoth },
      },
      (req) => ipv6.create(principal(req), req.body),
    );
    app.get(
      '/networking/ipv6/ranges/:range',
      {
        schema: {
          tags,
          summary: 'IPv6 Range View',
          params: RangeParams,
          response: { 200: Ipv6RangeBgpSchema },
        },
        config: { operationId: 'getIPv6Range', scopes: ['ips:read_only'] },
      },
      (req) => ipv6.get(principal(req), req.params.range),
    );
    app.delete(
      '/networking/ipv6/ranges/:range',
      {
        schema: {
          tags,
          summary: 'IPv6 Range Delete',
          params: RangeParams,
          response: { 200: Empty },
        },
        config: { operationId: 'deleteIPv6Range', scopes: ['ips:read_write'] },
      },
      async (req) => {
        await ipv6.delete(principal(req), req.params.range);
        return {};
      },
    );
    app.get(
      '/networking/vlans',
      {
        schema: {
          tags,
          summary: 'VLANs List',
          querystring: PageQuery,
          response: { 200: VlanPage },
        },
        config: { operationId: 'getVLANs', scopes: ['computes:read_only'], paged: true },
      },
      (req) => vlans.list(principal(req), req.query, xFilter(req)),
    );
    app.delete(
      '/networking/vlans/:regionId/:label',
      {
        schema: {
          tags,
          summary: 'VLAN Delete',
          description:
            'Deletes a VLAN that no interface names any more (a VLAN outlives its last interface until deleted). 400 while an interface of a configuration profile or an instance names it.',
          params: VlanParams,
          response: { 200: Empty },
        },
        config: { operationId: 'deleteVLAN', scopes: ['computes:read_write'] },
      },
      async (req) => {
        await vlans.delete(principal(req), req.params.regionId, req.params.label);
        return {};
      },
    );
  };
}
