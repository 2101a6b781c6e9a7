import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../platform/area.js';
import type { VpcsService } from './vpcs.service.js';
import type { SubnetsService } from './subnets.service.js';
import { principal, xFilter } from '../../http/principal.js';
import { Empty, PageQuery } from '../../http/schemas/common.js';
import {
  CreateSubnetBody,
  CreateVpcBody,
  SubnetPage,
  SubnetParams,
  SubnetSchema,
  UpdateSubnetBody,
  UpdateVpcBody,
  RegionParams,
  VpcAvailabilityPage,
  VpcAvailabilitySchema,
  VpcDefaultRangesSchema,
  VpcIpPage,
  VpcIpv6Page,
  VpcPage,
  VpcParams,
  VpcSchema,
} from './vpcs.schemas.js';
import { DEFAULT_IPV4_RANGES, FORBIDDEN_IPV4_RANGES } from './vpcs.rules.js';

type Ctx = RouteContext<{ vpcs: VpcsService; subnets: SubnetsService }>;

const tags = ['VPCs'];
// The spec leaves the scope of the VPC and subnet reads unlisted: any valid token, as the reference.
const anyToken = { auth: 'token' as const };
const write = { scopes: ['vpc:read_write'] };
const ips = { scopes: ['ips:read_only'] };
const read = { scopes: ['vpc:read_only'] };
const regionTags = ['Regions'];

export function vpcsRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.vpcs;
  const subnets = ctx.services.subnets;
  return async (app) => {
    app.get(
      '/vpcs',
      {
        schema: { tags, summary: 'VPCs List', querystring: PageQuery, response: { 200: VpcPage } },
        config: { operationId: 'getVPCs', ...anyToken, paged: true },
      },
      (req) => svc.list(principal(req), req.query, xFilter(req)),
    );
    app.post(
      '/vpcs',
      {
        schema: { tags, summary: 'VPC Create', body: CreateVpcBody, response: { 200: VpcSchema } },
        config: { operationId: 'createVPC', ...write },
      },
      (req) => svc.create(principal(req), req.body),
    );
    app.get(
      '/vpcs/ips',
      {
        schema: {
          tags,
          summary: 'VPCs IP Addresses List',
          querystring: PageQuery,
          response: { 200: VpcIpPage },
        },
        config: { operationId: 'getAllVPCIPs', ...ips, paged: true },
      },
      (req) => svc.ips(principal(req), req.query, xFilter(req)),
    );
    app.get(
      '/vpcs/ipv6s',
      {
        schema: {
          tags,
          summary: 'VPCs IPv6 Addresses List',
          querystring: PageQuery,
          response: { 200: VpcIpv6Page },
        },
        config: { operationId: 'getAllVPCIPv6s', ...ips, paged: true },
      },
      (req) => svc.ipv6s(principal(req), req.query, xFilter(req)),
    );
    // The ranges subnets may use and those refused within them; the same for every account.
    app.get(
      '/vpcs/default-ranges',
      {
        schema: {
          tags,
          summary: 'VPC Default Ranges View',
          response: { 200: VpcDefaultRangesSchema },
        },
        config: { operationId: 'getVPCDefaultRanges', ...anyToken },
      },
      () => ({
        default_ipv4_ranges: [...DEFAULT_IPV4_RANGES],
        forbidden_ipv4_ranges: [...FORBIDDEN_IPV4_RANGES],
      }),
    );
    // VPC availability by region: the catalogue's capabilities and the VPCs allocated there.
    app.get(
      '/regions/vpc-availability',
      {
        schema: {
          tags: regionTags,
          summary: 'Regions VPC Availability List',
          querystring: PageQuery,
          response: { 200: VpcAvailabilityPage },
        },
        config: { operationId: 'getRegionsVPCAvailability', ...read, paged: true },
      },
      (req) => svc.availability(req.query),
    );
    app.get(
      '/regions/:regionId/vpc-availability',
      {
        schema: {
          tags: regionTags,
          summary: 'Region VPC Availability View',
          params: RegionParams,
          response: { 200: VpcAvailabilitySchema },
        },
        config: { operationId: 'getRegionVPCAvailability', ...read },
      },
      (req) => svc.regionAvailability(req.params.regionId),
    );
    app.get(
      '/vpcs/:vpcId',
      {
        schema: { tags, summary: 'VPC View', params: VpcParams, response: { 200: VpcSchema } },
        config: { operationId: 'getVPC', ...anyToken },
      },
      (req) => svc.get(principal(req), req.params.vpcId),
    );
    app.put(
      '/vpcs/:vpcId',
      {
        schema: {
          tags,
          summary: 'VPC Update',
          params: VpcParams,
          body: UpdateVpcBody,
          response: { 200: VpcSchema },
        },
        config: { operationId: 'updateVPC', ...write },
      },
      (req) => svc.update(principal(req), req.params.vpcId, req.body),
    );
    app.delete(
      '/vpcs/:vpcId',
      {
        schema: { tags, summary: 'VPC Delete', params: VpcParams, response: { 200: Empty } },
        config: { operationId: 'deleteVPC', ...write },
      },
      async (req) => {
        await svc.delete(principal(req), req.params.vpcId);
        return {};
      },
    );
    app.get(
      '/vpcs/:vpcId/ips',
      {
        schema: {
          tags,
          summary: 'VPC IP Addresses List',
          params: VpcParams,
          querystring: PageQuery,
          response: { 200: VpcIpPage },
        },
        config: { operationId: 'getVPCIPs', ...ips, paged: true },
      },
      (req) => svc.ips(principal(req), req.query, xFilter(req), req.params.vpcId),
    );
    app.get(
      '/vpcs/:vpcId/ipv6s',
      {
        schema: {
          tags,
          summary: 'VPC IPv6 Addresses List',
          params: VpcParams,
          querystring: PageQuery,
          response: { 200: VpcIpv6Page },
        },
        config: { operationId: 'getVPCIPv6s', ...ips, paged: true },
      },
      (req) => svc.ipv6s(principal(req), req.query, xFilter(req), req.params.vpcId),
    );
    app.get(
      '/vpcs/:vpcId/subnets',
      {
        schema: {
          tags,
          summary: 'VPC Subnets List',
          params: VpcParams,
          querystring: PageQuery,
          response: { 200: SubnetPage },
        },
        config: { operationId: 'getVPCSubnets', ...anyToken, paged: true },
      },
      (req) => subnets.list(principal(req), req.params.vpcId, req.query, xFilter(req)),
    );
    app.post(
      '/vpcs/:vpcId/subnets',
      {
        schema: {
          tags,
          summary: 'VPC Subnet Create',
          params: VpcParams,
          body: CreateSubnetBody,
          response: { 200: SubnetSchema },
        },
        config: { operationId: 'createVPCSubnet', ...write },
      },
      (req) => subnets.create(principal(req), req.params.vpcId, req.body),
    );
    app.get(
      '/vpcs/:vpcId/subnets/:vpcSubnetId',
      {
        schema: {
          tags,
          summary: 'VPC Subnet View',
          params: SubnetParams,
          response: { 200: SubnetSchema },
        },
        config: { operationId: 'getVPCSubnet', ...anyToken },
      },
      (req) => subnets.get(principal(req), req.params.vpcId, req.params.vpcSubnetId),
    );
    app.put(
      '/vpcs/:vpcId/subnets/:vpcSubnetId',
      {
        schema: {
          tags,
          summary: 'VPC Subnet Update',
          params: SubnetParams,
          body: UpdateSubnetBody,
          response: { 200: SubnetSchema },
        },
        config: { operationId: 'updateVPCSubnet', ...write },
      },
      (req) => subnets.update(principal(req), req.params.vpcId, req.params.vpcSubnetId, req.body),
    );
    app.delete(
      '/vpcs/:vpcId/subnets/:vpcSubnetId',
      {
        schema: {
          tags,
          summary: 'VPC Subnet Delete',
          params: SubnetParams,
          response: { 200: Empty },
        },
        config: { operationId: 'deleteVPCSubnet', ...write },
      },
      async (req) => {
        await subnets.delete(principal(req), req.params.vpcId, req.params.vpcSubnetId);
        return {};
      },
    );
  };
}
