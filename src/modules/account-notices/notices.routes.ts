import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import type { StratusApp } from '../../http/stratus-app.js';
import type { RouteContext } from '../../platform/area.js';
import type { NoticesService } from './notices.service.js';
import type { MaintenanceService } from './maintenance.service.js';
import { principal, xFilter } from '../../http/principal.js';
import { PageQuery } from '../../http/schemas/common.js';
import {
  AvailabilityPage,
  AvailabilitySchema,
  CreateMaintenanceBody,
  MaintenanceIdParams,
  MaintenancePage,
  MaintenancePolicyPage,
  NotificationPage,
  OperatorMaintenanceList,
  OperatorMaintenanceSchema,
  RegionParams,
} from './notices.schemas.js';

type Ctx = RouteContext<{ notices: NoticesService; maintenance: MaintenanceService }>;

const tags = ['Account'];
const read = { scopes: ['account:read_only'] };

/** `/account/maintenance`, `/maintenance/policies`, `/account/notifications`, `/account/availability*` (v4beta too). */
export function noticesRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const { notices: svc, maintenance } = ctx.services;
  return async (app) => {
    app.get(
      '/account/maintenance',
      {
        schema: {
          tags,
          summary: 'Maintenance List',
          querystring: PageQuery,
          response: { 200: MaintenancePage },
        },
        config: { operationId: 'getMaintenance', auth: 'token', paged: true },
      },
      (req) => maintenance.list(principal(req), req.query, xFilter(req)),
    );
    app.get(
      '/maintenance/policies',
      {
        schema: {
          tags: ['Maintenance'],
          summary: 'Maintenance Policies List',
          querystring: PageQuery,
          response: { 200: MaintenancePolicyPage },
        },
        config: { operationId: 'getMaintenancePolicies', auth: 'token', paged: true },
      },
      (req) => maintenance.policies(req.query),
    );
    app.get(
      '/account/notifications',
      {
        schema: {
          tags,
          summary: 'Notifications List',
          querystring: PageQuery,
          response: { 200: NotificationPage },
        },
        config: { operationId: 'getNotifications', ...read, paged: true },
      },
      (req) => svc.notifications(principal(req), req.query),
    );
    app.get(
      '/account/availability',
      {
        schema: {
          tags: ['account'],
          summary: 'Account Availability',
          querystring: PageQuery,
          response: { 200: AvailabilityPage },
        },
        config: { operationId: 'getAvailability', ...read, paged: true },
      },
      (req) => svc.availability(req.query),
    );
    app.get(
      '/account/availability/:id',
      {
        schema: {
          tags: ['account'],
          summary: 'Region Service Availability',
          params: RegionParams,
          response: { 200: AvailabilitySchema },
        },
        config: { operationId: 'getAccountAvailability', ...read },
      },
      (req) => svc.availabilityOf(req.params.id),
    );
  };
}

/** The operator's maintenance under `/_stratus/maintenance` (operator token; hidden from docs). */
export function noticesOperatorRoutes(ctx: Ctx): FastifyPluginAsync {
  const svc = ctx.services.maintenance;
  return async (plain) => {
    const app = plain as unknown as StratusApp;
    const hide = { hide: true, tags: ['Emulator controls'] };
    // Summaries and operation ids for the controls' own document (/_stratus/openapi.json).
    const doc = (operationId: string, summary: string) => ({ ...hide, operationId, summary });
    app.get(
      '/_stratus/maintenance',
      {
        schema: {
          ...doc(
            'stratusListMaintenance',
            'Scheduled maintenance of instances (?euuid=: one account)',
          ),
          response: { 200: OperatorMaintenanceList },
        },
      },
      (req) => svc.listMaintenance((req.query as { euuid?: string }).euuid),
    );
    app.post(
      '/_stratus/maintenance',
      {
        schema: {
          ...doc('stratusCreateMaintenance', 'Schedule an instance\u2019s maintenance'),
          body: CreateMaintenanceBody,
          response: { 200: OperatorMaintenanceSchema },
        },
      },
      (req) => svc.createMaintenance(req.body),
    );
    app.post(
      '/_stratus/maintenance/:id/cancel',
      {
        schema: {
          ...doc('stratusCancelMaintenance', 'Cancel scheduled maintenance'),
          params: MaintenanceIdParams,
          response: { 200: OperatorMaintenanceSchema },
        },
      },
      (req) => svc.cancelMaintenance(req.params.id),
    );
  };
}
