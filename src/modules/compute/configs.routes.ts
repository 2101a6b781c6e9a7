import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../platform/area.js';
import type { ConfigsService } from './configs.service.js';
import { principal, xFilter } from '../../http/principal.js';
import { Empty, PageQuery } from '../../http/schemas/common.js';
import { ComputeParams } from './compute.schemas.js';
import {
  ConfigPage,
  ConfigParams,
  ConfigSchema,
  CreateConfigBody,
  UpdateConfigBody,
} from './configs.schemas.js';

type Ctx = RouteContext<{ configs: ConfigsService }>;

const tags = ['Compute Instances'];
const read = { scopes: ['computes:read_only'] };
const write = { scopes: ['computes:read_write'] };
const base = '/compute/instances/:computeId/configs';

export function configsRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.configs;
  return async (app) => {
    app.get(
      base,
      {
        schema: {
          tags,
          summary: 'Configuration Profiles List',
          params: ComputeParams,
          querystring: PageQuery,
          response: { 200: ConfigPage },
        },
        config: { operationId: 'getComputeConfigs', ...read, paged: true },
      },
      (req) => svc.list(principal(req), req.params.computeId, req.query, xFilter(req)),
    );
    app.post(
      base,
      {
        schema: {
          tags,
          summary: 'Configuration Profile Create',
          params: ComputeParams,
          body: CreateConfigBody,
          response: { 200: ConfigSchema },
        },
        config: { operationId: 'addComputeConfig', ...write },
      },
      (req) => svc.create(principal(req), req.params.computeId, req.body),
    );
    app.get(
      `${base}/:configId`,
      {
        schema: {
          tags,
          summary: 'Configuration Profile View',
          params: ConfigParams,
          response: { 200: ConfigSchema },
        },
        config: { operationId: 'getComputeConfig', ...read },
      },
      (req) => svc.get(principal(req), req.params.computeId, req.params.configId),
    );
    app.put(
      `${base}/:configId`,
      {
        schema: {
          tags,
          summary: 'Configuration Profile Update',
          params: ConfigParams,
          body: UpdateConfigBody,
          response: { 200: ConfigSchema },
        },
        config: { operationId: 'updateComputeConfig', ...write },
      },
      (req) => svc.update(principal(req), req.params.computeId, req.params.configId, req.body),
    );
    app.delete(
      `${base}/:configId`,
      {
        schema: {
          tags,
          summary: 'Configuration Profile Delete',
          params: ConfigParams,
          response: { 200: Empty },
        },
        config: { operationId: 'deleteComputeConfig', ...write },
      },
      async (req) => {
        await svc.delete(principal(req), req.params.computeId, req.params.configId);
        return {};
      },
    );
  };
}
