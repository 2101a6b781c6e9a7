import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../platform/area.js';
import type { NodeBalancersService } from './nodebalancers.service.js';
import { principal, xFilter } from '../../http/principal.js';
import { Empty, PageQuery } from '../../http/schemas/common.js';
import { FirewallPage } from '../networking/firewalls.schemas.js';
import {
  ComputeNbParams,
  CreateNodeBalancerBody,
  NbParams,
  NbVpcConfigPage,
  NbVpcConfigSchema,
  NbVpcParams,
  NodeBalancerPage,
  NodeBalancerSchema,
  StatsSchema,
  UpdateNodeBalancerBody,
} from './nodebalancers.schemas.js';

type Ctx = RouteContext<{ nodebalancers: NodeBalancersService }>;

const tags = ['NodeBalancers'];
const read = { scopes: ['nodebalancers:read_only'] };
const write = { scopes: ['nodebalancers:read_write'] };

export function nodebalancersRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.nodebalancers;
  return async (app) => {
    app.get(
      '/nodebalancers',
      {
        schema: {
          tags,
          summary: 'NodeBalancers List',
          querystring: PageQuery,
          response: { 200: NodeBalancerPage },
        },
        config: { operationId: 'getNodeBalancers', ...read, paged: true },
      },
      (req) => svc.list(principal(req), req.query, xFilter(req)),
    );
    app.post(
      '/nodebalancers',
      {
        schema: {
          tags,
          summary: 'NodeBalancer Create',
          body: CreateNodeBalancerBody,
          response: { 200: NodeBalancerSchema },
        },
        config: { operationId: 'createNodeBalancer', ...write },
      },
      (req) => svc.create(principal(req), req.body),
    );
    app.get(
      '/nodebalancers/:nodeBalancerId',
      {
        schema: {
          tags,
          summary: 'NodeBalancer View',
          params: NbParams,
          response: { 200: NodeBalancerSchema },
        },
        config: { operationId: 'getNodeBalancer', ...read },
      },
      (req) => svc.get(principal(req), req.params.nodeBalancerId),
    );
    app.put(
      '/nodebalancers/:nodeBalancerId',
      {
        schema: {
          tags,
          summary: 'NodeBalancer Update',
          params: NbParams,
          body: UpdateNodeBalancerBody,
          response: { 200: NodeBalancerSchema },
        },
        config: { operationId: 'updateNodeBalancer', ...write },
      },
      (req) => svc.update(principal(req), req.params.nodeBalancerId, req.body),
    );
    app.delete(
      '/nodebalancers/:nodeBalancerId',
      {
        schema: {
          tags,
          summary: 'NodeBalancer Delete',
          params: NbParams,
          response: { 200: Empty },
        },
        config: { operationId: 'deleteNodeBalancer', ...write },
      },
      async (req) => {
        await svc.delete(principal(req), req.params.nodeBalancerId);
        return {};
      },
    );
    app.get(
      '/nodebalancers/:nodeBalancerId/stats',
      {
        schema: {
          tags,
          summary: 'NodeBalancer Statistics View',
          params: NbParams,
          response: { 200: StatsSchema },
        },
        config: { operationId: 'getNodeBalancerStats', ...read, rateLimit: 'stats' },
      },
      (req) => svc.stats(principal(req), req.params.nodeBalancerId),
    );
    app.get(
      '/nodebalancers/:nodeBalancerId/firewalls',
      {
        schema: {
          tags,
          summary: 'Firewalls List',
          params: NbParams,
          querystring: PageQuery,
          response: { 200: FirewallPage },
        },
        config: { operationId: 'getNodeBalancerFirewalls', ...read, paged: true },
      },
      (req) => svc.firewalls(principal(req), req.params.nodeBalancerId, req.query),
    );
    app.get(
      '/nodebalancers/:nodeBalancerId/vpcs',
      {
        schema: {
          tags,
          summary: 'NodeBalancer VPC Configurations List',
          params: NbParams,
          querystring: PageQuery,
          response: { 200: NbVpcConfigPage },
        },
        config: { operationId: 'getNodeBalancerVpcConfigs', ...read, paged: true },
      },
      (req) => svc.listVpcs(principal(req), req.params.nodeBalancerId, req.query, xFilter(req)),
    );
    app.get(
      '/nodebalancers/:nodeBalancerId/vpcs/:vpcConfigId',
      {
        schema: {
          tags,
          summary: 'NodeBalancer VPC Configuration View',
          params: NbVpcParams,
          response: { 200: NbVpcConfigSchema },
        },
        config: { operationId: 'getNodeBalancerVpcConfig', ...read },
      },
      (req) => svc.getVpc(principal(req), req.params.nodeBalancerId, req.params.vpcConfigId),
    );
    app.get(
      '/compute/instances/:computeId/nodebalancers',
      {
        schema: {
          tags: ['Compute Instances'],
          summary: 'Compute NodeBalancers View',
          params: ComputeNbParams,
          querystring: PageQuery,
          response: { 200: NodeBalancerPage },
        },
        config: {
          operationId: 'getComputeNodeBalancers',
          scopes: ['computes:read_only'],
          paged: true,
        },
      },
      (req) => svc.listForInstance(principal(req), req.params.computeId, req.query, xFilter(req)),
    );
  };
}
