import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../platform/area.js';
import type { InterfacesService } from './interfaces.service.js';
import { principal } from '../../http/principal.js';
import { Empty } from '../../http/schemas/common.js';
import { InterfaceSchema } from './compute.schemas.js';
import {
  AddInterfaceBody,
  ConfigParams,
  InterfaceList,
  InterfaceParams,
  OrderInterfacesBody,
  UpdateInterfaceBody,
} from './configs.schemas.js';

type Ctx = RouteContext<{ interfaces: InterfacesService }>;

const tags = ['Compute Instances'];
const read = { scopes: ['computes:read_only'] };
const write = { scopes: ['computes:read_write'] };
const base = '/compute/instances/:computeId/configs/:configId/interfaces';

export function interfacesRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.interfaces;
  return async (app) => {
    app.get(
      base,
      {
        schema: {
          tags,
          summary: 'Configuration Profile Interfaces List',
          params: ConfigParams,
          response: { 200: InterfaceList },
        },
        config: { operationId: 'getComputeConfigInterfaces', ...read },
      },
      (req) => svc.list(principal(req), req.params.computeId, req.params.configId),
    );
    app.post(
      base,
      {
        schema: {
          tags,
          summary: 'Configuration Profile Interface Add',
          params: ConfigParams,
          body: AddInterfaceBody,
          response: { 200: InterfaceSchema },
        },
        config: { operationId: 'addComputeConfigInterface', ...write },
      },
      (req) => svc.add(principal(req), req.params.computeId, req.params.configId, req.body),
    );
    app.post(
      `${base}/order`,
      {
        schema: {
          tags,
          summary: 'Configuration Profile Interfaces Order',
          params: ConfigParams,
          body: OrderInterfacesBody,
          response: { 200: Empty },
        },
        config: { operationId: 'orderComputeConfigInterfaces', ...write },
      },
      async (req) => {
        await svc.order(principal(req), req.params.computeId, req.params.configId, req.body.ids);
        return {};
      },
    );
    app.get(
      `${base}/:interfaceId`,
      {
        schema: {
          tags,
          summary: 'Configuration Profile Interface View',
          params: InterfaceParams,
          response: { 200: InterfaceSchema },
        },
        config: { operationId: 'getComputeConfigInterface', ...read },
      },
      (req) =>
        svc.get(principal(req), req.params.computeId, req.params.configId, req.params.interfaceId),
    );
    app.put(
      `${base}/:interfaceId`,
      {
        schema: {
          tags,
          summary: 'Configuration Profile Interface Update',
          params: InterfaceParams,
          body: UpdateInterfaceBody,
          response: { 200: InterfaceSchema },
        },
        config: { operationId: 'updateComputeConfigInterface', ...write },
      },
      (req) =>
        svc.update(
          principal(req),
          req.params.computeId,
          req.params.configId,
          req.params.interfaceId,
          req.body,
        ),
    );
    app.delete(
      `${base}/:interfaceId`,
      {
        schema: {
          tags,
          summary: 'Configuration Profile Interface Delete',
          params: InterfaceParams,
          response: { 200: Empty },
        },
        config: { operationId: 'deleteComputeConfigInterface', ...write },
      },
      async (req) => {
        await svc.delete(
          principal(req),
          req.params.computeId,
          req.params.configId,
          req.params.interfaceId,
        );
        return {};
      },
    );
  };
}
