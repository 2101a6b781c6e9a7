import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../platform/area.js';
import type { StatsService } from './stats.service.js';
import type { FirewallApplyService } from './firewall-apply.js';
import { principal } from '../../http/principal.js';
import { Empty, PageQuery } from '../../http/schemas/common.js';
import { FirewallPage } from '../networking/firewalls.schemas.js';
import { ComputeParams } from './compute.schemas.js';
import {
  ComputeStatsSchema,
  TransferMonthSchema,
  TransferSchema,
  YearMonthParams,
} from './stats.schemas.js';

type Ctx = RouteContext<{ stats: StatsService; firewallApply: FirewallApplyService }>;

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
    app.post(
      '/compute/instances/:computeId/firewalls/apply',
      {
        schema: {
          tags,
          summary: 'Firewalls Apply',
          description:
            'Reapplies the firewalls assigned to the instance and its interfaces (event `firewall_apply`).',
          params: ComputeParams,
          response: { 200: Empty },
        },
        config: { operationId: 'postApplyFirewalls', scopes: ['computes:read_write'] },
      },
      async (req) => {
        await ctx.services.firewallApply.apply(principal(req), req.params.computeId);
        return {};
      },
    );
  };
}
