import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principal, xFilter } from '../../http/principal.js';
import { Empty, PageQuery } from '../../http/schemas/common.js';
import type { RouteContext } from '../../platform/area.js';
import {
  AssignBody,
  CreatePlacementGroupBody,
  GroupParams,
  PlacementGroupPage,
  PlacementGroupSchema,
  UnassignBody,
  UpdatePlacementGroupBody,
} from './placement.schemas.js';
import type { PlacementService } from './placement.service.js';

type Ctx = RouteContext<{ groups: PlacementService }>;

const tags = ['Placement Groups'];
const read = { scopes: ['computes:read_only'] };
const write = { scopes: ['computes:read_write'] };

/** `/placement/groups`: placement groups, their assignments and unassignments. */
export function placementRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.groups;
  return async (app) => {
    app.get(
      '/placement/groups',
      {
        schema: {
          tags,
          summary: 'Placement Groups List',
          querystring: PageQuery,
          response: { 200: PlacementGroupPage },
        },
        config: { operationId: 'getPlacementGroups', ...read, paged: true },
      },
      (req) => svc.list(principal(req), req.query, xFilter(req)),
    );
    app.post(
      '/placement/groups',
      {
        schema: {
          tags,
          summary: 'Placement Group Create',
          body: CreatePlacementGroupBody,
          response: { 200: PlacementGroupSchema },
        },
        config: { operationId: 'postPlacementGroup', ...write },
      },
      (req) => svc.create(principal(req), req.body),
    );
    app.get(
      '/placement/groups/:groupId',
      {
        schema: {
          tags,
          summary: 'Placement Group View',
          params: GroupParams,
          response: { 200: PlacementGroupSchema },
        },
        config: { operationId: 'getPlacementGroup', ...read },
      },
      (req) => svc.get(principal(req), req.params.groupId),
    );
    app.put(
      '/placement/groups/:groupId',
      {
        schema: {
          tags,
          summary: 'Placement Group Update',
          params: GroupParams,
          body: UpdatePlacementGroupBody,
          response: { 200: PlacementGroupSchema },
        },
        config: { operationId: 'putPlacementGroup', ...write },
      },
      (req) => svc.update(principal(req), req.params.groupId, req.body),
    );
    app.delete(
      '/placement/groups/:groupId',
      {
        schema: {
          tags,
          summary: 'Placement Group Delete',
          params: GroupParams,
          response: { 200: Empty },
        },
        config: { operationId: 'deletePlacementGroup', ...write },
      },
      async (req) => {
        await svc.delete(principal(req), req.params.groupId);
        return {};
      },
    );
    app.post(
      '/placement/groups/:groupId/assign',
      {
        schema: {
          tags,
          summary: 'Placement Group Assign',
          params: GroupParams,
          body: AssignBody,
          response: { 200: PlacementGroupSchema },
        },
        config: { operationId: 'postGroupAddCompute', ...write },
      },
      (req) => svc.assign(principal(req), req.params.groupId, req.body),
    );
    app.post(
      '/placement/groups/:groupId/unassign',
      {
        schema: {
          tags,
          summary: 'Placement Group Unassign',
          params: GroupParams,
          body: UnassignBody,
          response: { 200: PlacementGroupSchema },
        },
        config: { operationId: 'postGroupUnassign', ...write },
      },
      (req) => svc.unassign(principal(req), req.params.groupId, req.body),
    );
  };
}
