import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../platform/area.js';
import type { NbConfigsService } from './configs.service.js';
import type { NbNodesService } from './nodes.service.js';
import { principal, xFilter } from '../../http/principal.js';
import { Empty, PageQuery } from '../../http/schemas/common.js';
import {
  ConfigBody,
  ConfigPage,
  ConfigParams,
  ConfigSchema,
  NbParams,
  NodeBody,
  NodePage,
  NodeParams,
  NodeSchema,
  RebuildBody,
  UpdateNodeBody,
} from './nodebalancers.schemas.js';

type Ctx = RouteContext<{ configs: NbConfigsService; nodes: NbNodesService }>;

const tags = ['NodeBalancers'];
const read = { scopes: ['nodebalancers:read_only'] };
const write = { scopes: ['nodebalancers:read_write'] };
const CONFIG = '/nodebalancers/:nodeBalancerId/configs/:configId';
const NODE = `${CONFIG}/nodes/:nodeId`;

/** The configs (ports) of a NodeBalancer and their nodes. */
export function nbConfigsRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.configs;
  const nodes = ctx.services.nodes;
  return async (app) => {
    app.get(
      '/nodebalancers/:nodeBalancerId/configs',
      {
        schema: {
          tags,
          summary: 'Configs List',
          params: NbParams,
          querystring: PageQuery,
          response: { 200: ConfigPage },
        },
        config: { operationId: 'getNodeBalancerConfigs', ...read, paged: true },
      },
      (req) => svc.list(principal(req), req.params.nodeBalancerId, req.query, xFilter(req)),
    );
    app.post(
      '/nodebalancers/:nodeBalancerId/configs',
      {
        schema: {
          tags,
          summary: 'Config Create',
          params: NbParams,
          body: ConfigBody,
          response: { 200: ConfigSchema },
        },
        config: { operationId: 'createNodeBalancerConfig', ...write },
      },
      (req) => svc.create(principal(req), req.params.nodeBalancerId, req.body),
    );
    app.get(
      CONFIG,
      {
        schema: {
          tags,
          summary: 'Config View',
          params: ConfigParams,
          response: { 200: ConfigSchema },
        },
        config: { operationId: 'getNodeBalancerConfig', ...read },
      },
      (req) => svc.get(principal(req), req.params.nodeBalancerId, req.params.configId),
    );
    app.put(
      CONFIG,
      {
        schema: {
          tags,
          summary: 'Config Update',
          params: ConfigParams,
          body: ConfigBody,
          response: { 200: ConfigSchema },
        },
        config: { operationId: 'updateNodeBalancerConfig', ...write },
      },
      (req) => svc.update(principal(req), req.params.nodeBalancerId, req.params.configId, req.body),
    );
    app.delete(
      CONFIG,
      {
        schema: { tags, summary: 'Config Delete', params: ConfigParams, response: { 200: Empty } },
        config: { operationId: 'deleteNodeBalancerConfig', ...write },
      },
      async (req) => {
        await svc.delete(principal(req), req.params.nodeBalancerId, req.params.configId);
        return {};
      },
    );
    app.post(
      `${CONFIG}/rebuild`,
      {
        schema: {
          tags,
          summary: 'Config Rebuild',
          params: ConfigParams,
          body: RebuildBody,
          response: { 200: ConfigSchema },
        },
        config: { operationId: 'rebuildNodeBalancerConfig', ...write },
      },
      (req) =>
        svc.rebuild(principal(req), req.params.nodeBalancerId, req.params.configId, req.body),
    );
    app.get(
      `${CONFIG}/nodes`,
      {
        schema: {
          tags,
          summary: 'Nodes List',
          params: ConfigParams,
          querystring: PageQuery,
          response: { 200: NodePage },
        },
        config: { operationId: 'getNodeBalancerConfigNodes', ...read, paged: true },
      },
      (req) =>
        nodes.listNodes(
          principal(req),
          req.params.nodeBalancerId,
          req.params.configId,
          req.query,
          xFilter(req),
        ),
    );
    app.post(
      `${CONFIG}/nodes`,
      {
        schema: {
          tags,
          summary: 'Node Create',
          params: ConfigParams,
          body: NodeBody,
          response: { 200: NodeSchema },
        },
        config: { operationId: 'createNodeBalancerNode', ...write },
      },
      (req) =>
        nodes.createNode(principal(req), req.params.nodeBalancerId, req.params.configId, req.body),
    );
    app.get(
      NODE,
      {
        schema: { tags, summary: 'Node View', params: NodeParams, response: { 200: NodeSchema } },
        // The reference asks nodebalancers:read_write to view a node (not read_only).
        config: { operationId: 'getNodeBalancerNode', ...read },
      },
      (req) =>
        nodes.getNode(
          principal(req),
          req.params.nodeBalancerId,
          req.params.configId,
          req.params.nodeId,
        ),
    );
    app.put(
      NODE,
      {
        schema: {
          tags,
          summary: 'Node Update',
          params: NodeParams,
          body: UpdateNodeBody,
          response: { 200: NodeSchema },
        },
        config: { operationId: 'updateNodeBalancerNode', ...write },
      },
      (req) =>
        nodes.updateNode(
          principal(req),
          req.params.nodeBalancerId,
          req.params.configId,
          req.params.nodeId,
          req.body,
        ),
    );
    app.delete(
      NODE,
      {
        schema: { tags, summary: 'Node Delete', params: NodeParams, response: { 200: Empty } },
        config: { operationId: 'deleteNodeBalancerConfigNode', ...write },
      },
      async (req) => {
        await nodes.deleteNode(
          principal(req),
          req.params.nodeBalancerId,
          req.params.configId,
          req.params.nodeId,
        );
        return {};
      },
    );
  };
}
