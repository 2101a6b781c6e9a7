import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../platform/area.js';
import type { StatsService } from './stats.service.js';
import { principal } from '../../http/principal.js';
import { PageQuery } from '../../http/schemas/common.js';
import { FirewallPage } from '../networking/firewalls.schemas.js';
import { ComputeParams } from './compute.schemas.js';
import {
  ComputeStatsSchema,
  TransferMonthSchema,
  TransferSchema,
  YearMonthParams,
} from './stats.schemas.js';

type Ctx = RouteContext<{ stats: StatsService }>;

const tags = ['Compute Instances'];
const read = { scopes: ['computes:read_only'] };

/** An instance's statistics, transfer, firewalls and NodeBalancers. */
export function computeStatsRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.stats;
  return async (app) => {
    app.get(
      '/compute/instances/:computeId/stats',
      {
        schema: {
          tags,
          summary: 'Compute Statistics View',
          params: ComputeParams,
          response: { 200: ComputeStatsSchema },
        },
        config: { operationId: 'getComputeStats', ...read, rateLimit: 'stats' },
      },
      (req) => svc.stats(principal(req), req.params.computeId),
    );
    app.get(
      '/compute/instances/:computeId/stats/:year/:month',
      {
        schema: {
          tags,
          summary: 'Statistics View (year/month)',
          params: YearMonthParams,
          response: { 200: ComputeStatsSchema },
        },
        config: { operationId: 'getComputeStatsByYearMonth', ...read, rateLimit: 'stats' },
      },
      (req) =>
        svc.statsMonth(principal(req), req.params.computeId, req.params.year, req.params.month),
    );
    app.get(
      '/compute/instances/:computeId/transfer',
      {
        schema: {
          tags,
          summary: 'Network Transfer View',
          params: ComputeParams,
          response: { 200: TransferSchema },
        },
        config: { operationId: 'getComputeTransfer', ...read },
      },
      (req) => svc.transfer(principal(req), req.params.computeId),
    );
    app.get(
      '/compute/instances/:computeId/transfer/:year/:month',
      {
        schema: {
          tags,
          summary: 'Network Transfer View (year/month)',
          params: YearMonthParams,
          response: { 200: TransferMonthSchema },
        },
        config: { operationId: 'getComputeTransferByYearMonth', ...read },
      },
      (req) =>
        svc.transferMonth(principal(req), req.params.computeId, req.params.year, req.params.month),
    );
    app.get(
      '/compute/instances/:computeId/firewalls',
      {
        schema: {
          tags,
          summary: 'Firewalls List',
          params: ComputeParams,
          querystring: PageQuery,
          response: { 200: FirewallPage },
        },
        config: { operationId: 'getComputeFirewalls', ...read, paged: true },
      },
      (req) => svc.firewalls(principal(req), req.params.computeId, req.query),
    );
  };
}
