import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principal } from '../../http/principal.js';
import { Empty, PageQuery } from '../../http/schemas/common.js';
import type { RouteContext } from '../../platform/area.js';
import { FirewallPage } from '../networking/firewalls.schemas.js';
import {
  ComputeIdParams,
  ComputeInterfaceCreateBody,
  ComputeInterfaceList,
  ComputeInterfaceParams,
  ComputeInterfaceSchema,
  ComputeInterfaceUpdateBody,
  InterfaceSettingsBody,
  InterfaceSettingsSchema,
  UpgradeInterfacesBody,
  UpgradeInterfacesSchema,
} from './compute-interfaces.schemas.js';
import type { ComputeInterfacesService } from './compute-interfaces.service.js';

type Ctx = RouteContext<{ computeInterfaces: ComputeInterfacesService }>;

const tags = ['Compute Instances'];
const read = { scopes: ['computes:read_only'] };
const write = { scopes: ['computes:read_write'] };
const base = '/compute/instances/:computeId/interfaces';

/** An instance's own interfaces (`interface_generation: compute`), their settings and firewalls. */
export function computeInterfacesRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.computeInterfaces;
  return async (app) => {
    app.get(
      base,
      {
        schema: {
          tags,
          summary: 'Interfaces List',
          params: ComputeIdParams,
          response: { 200: ComputeInterfaceList },
        },
        config: { operationId: 'getComputeInterfaces', ...read },
      },
      (req) => svc.list(principal(req), req.params.computeId),
    );
    app.post(
      base,
      {
        schema: {
          tags,
          summary: 'Interface Add',
          params: ComputeIdParams,
          body: ComputeInterfaceCreateBody,
          response: { 200: ComputeInterfaceSchema },
        },
        config: { operationId: 'addComputeInterface', ...write },
      },
      (req) => svc.create(principal(req), req.params.computeId, req.body),
    );
    app.get(
      `${base}/settings`,
      {
        schema: {
          tags,
          summary: 'Interface Settings View',
          params: ComputeIdParams,
          response: { 200: InterfaceSettingsSchema },
        },
        config: { operationId: 'getComputeInterfaceSettings', ...read },
      },
      (req) => svc.settings(principal(req), req.params.computeId),
    );
    app.put(
      `${base}/settings`,
      {
        schema: {
          tags,
          summary: 'Interface Settings Update',
          params: ComputeIdParams,
          body: InterfaceSettingsBody,
          response: { 200: InterfaceSettingsSchema },
        },
        config: { operationId: 'updateComputeInterfaceSettings', ...write },
      },
      (req) => svc.updateSettings(principal(req), req.params.computeId, req.body),
    );
    app.get(
      `${base}/:interfaceId`,
      {
        schema: {
          tags,
          summary: 'Interface View',
          params: ComputeInterfaceParams,
          response: { 200: ComputeInterfaceSchema },
        },
        config: { operationId: 'getComputeInterface', ...read },
      },
      (req) => svc.get(principal(req), req.params.computeId, req.params.interfaceId),
    );
    app.put(
      `${base}/:interfaceId`,
      {
        schema: {
          tags,
          summary: 'Interface Update',
          params: ComputeInterfaceParams,
          body: ComputeInterfaceUpdateBody,
          response: { 200: ComputeInterfaceSchema },
        },
        config: { operationId: 'updateComputeInterface', ...write },
      },
      (req) => svc.update(principal(req), req.params.computeId, req.params.interfaceId, req.body),
    );
    app.delete(
      `${base}/:interfaceId`,
      {
        schema: {
          tags,
          summary: 'Interface Delete',
          params: ComputeInterfaceParams,
          response: { 200: Empty },
        },
        config: { operationId: 'deleteComputeInterface', ...write },
      },
      async (req) => {
        await svc.delete(principal(req), req.params.computeId, req.params.interfaceId);
        return {};
      },
    );
    app.post(
      '/compute/instances/:computeId/upgrade-interfaces',
      {
        schema: {
          tags,
          summary: 'Interfaces Upgrade',
          params: ComputeIdParams,
          body: UpgradeInterfacesBody,
          response: { 200: UpgradeInterfacesSchema },
        },
        config: { operationId: 'upgradeComputeInterfaces', ...write },
      },
      (req) => svc.upgrade(principal(req), req.params.computeId, req.body ?? {}),
    );
    app.get(
      `${base}/:interfaceId/firewalls`,
      {
        schema: {
          tags,
          summary: 'Interface Firewalls List',
          params: ComputeInterfaceParams,
          querystring: PageQuery,
          response: { 200: FirewallPage },
        },
        config: { operationId: 'getComputeInterfaceFirewalls', ...read, paged: true },
      },
      (req) =>
        svc.firewalls(principal(req), req.params.computeId, req.params.interfaceId, req.query),
    );
  };
}
