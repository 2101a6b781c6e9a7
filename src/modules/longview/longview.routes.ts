import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../platform/area.js';
import type { LongviewService } from './longview.service.js';
import { errors } from '../../errors/errors.js';
import { principal, xFilter } from '../../http/principal.js';
import { Empty, PageQuery } from '../../http/schemas/common.js';
import { pageOf } from '../../lib/pagination.js';
import { LONGVIEW_SUBSCRIPTIONS, subscription } from './longview.data.js';
import {
  CreatedLongviewClientSchema,
  CreateLongviewClientBody,
  LongviewClientPage,
  LongviewClientParams,
  LongviewClientSchema,
  LongviewPlanSchema,
  LongviewSubscriptionPage,
  LongviewSubscriptionSchema,
  SubscriptionParams,
  UpdateLongviewClientBody,
  UpdateLongviewPlanBody,
} from './longview.schemas.js';

type Ctx = RouteContext<{ longview: LongviewService }>;

const tags = ['Longview'];
const read = { scopes: ['longview:read_only'] };
const write = { scopes: ['longview:read_write'] };

/** `/longview`: clients, the plan, and the public list of subscriptions. */
export function longviewRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.longview;
  return async (app) => {
    app.get(
      '/longview/clients',
      {
        schema: {
          tags,
          summary: 'Longview Clients List',
          querystring: PageQuery,
          response: { 200: LongviewClientPage },
        },
        config: { operationId: 'getLongviewClients', ...read, paged: true },
      },
      (req) => svc.list(principal(req), req.query, xFilter(req)),
    );
    app.post(
      '/longview/clients',
      {
        schema: {
          tags,
          summary: 'Longview Client Create',
          body: CreateLongviewClientBody,
          response: { 200: CreatedLongviewClientSchema },
        },
        config: { operationId: 'createLongviewClient', ...write },
      },
      async (req) => {
        const c = await svc.create(principal(req), req.body);
        // As recorded from the real service: the create answer's apps are 0/1.
        const n = (b: boolean) => (b ? 1 : 0);
        return {
          ...c,
          apps: { apache: n(c.apps.apache), nginx: n(c.apps.nginx), mysql: n(c.apps.mysql) },
        };
      },
    );
    app.get(
      '/longview/clients/:clientId',
      {
        schema: {
          tags,
          summary: 'Longview Client View',
          params: LongviewClientParams,
          response: { 200: LongviewClientSchema },
        },
        config: { operationId: 'getLongviewClient', ...read },
      },
      (req) => svc.get(principal(req), req.params.clientId),
    );
    app.put(
      '/longview/clients/:clientId',
      {
        schema: {
          tags,
          summary: 'Longview Client Update',
          params: LongviewClientParams,
          body: UpdateLongviewClientBody,
          response: { 200: LongviewClientSchema },
        },
        config: { operationId: 'updateLongviewClient', ...write },
      },
      (req) => svc.update(principal(req), req.params.clientId, req.body.label),
    );
    app.delete(
      '/longview/clients/:clientId',
      {
        schema: {
          tags,
          summary: 'Longview Client Delete',
          params: LongviewClientParams,
          response: { 200: Empty },
        },
        config: { operationId: 'deleteLongviewClient', ...write },
      },
      async (req) => {
        await svc.delete(principal(req), req.params.clientId);
        return {};
      },
    );
    app.get(
      '/longview/plan',
      {
        schema: { tags, summary: 'Longview Plan View', response: { 200: LongviewPlanSchema } },
        config: { operationId: 'getLongviewPlan', ...read },
      },
      (req) => svc.plan(principal(req)),
    );
    app.put(
      '/longview/plan',
      {
        schema: {
          tags,
          summary: 'Longview Plan Update',
          body: UpdateLongviewPlanBody,
          response: { 200: LongviewPlanSchema },
        },
        config: { operationId: 'updateLongviewPlan', ...write },
      },
      (req) => svc.updatePlan(principal(req), req.body.longview_subscription),
    );
    app.get(
      '/longview/subscriptions',
      {
        schema: {
          tags,
          summary: 'Longview Subscriptions List',
          querystring: PageQuery,
          response: { 200: LongviewSubscriptionPage },
        },
        config: { operationId: 'getLongviewSubscriptions', auth: 'public', paged: true },
      },
      (req) =>
        pageOf(
          req.query,
          async (limit, offset) => LONGVIEW_SUBSCRIPTIONS.slice(offset, offset + limit),
          async () => LONGVIEW_SUBSCRIPTIONS.length,
        ),
    );
    app.get(
      '/longview/subscriptions/:subscriptionId',
      {
        schema: {
          tags,
          summary: 'Longview Subscription View',
          params: SubscriptionParams,
          response: { 200: LongviewSubscriptionSchema },
        },
        config: { operationId: 'getLongviewSubscription', auth: 'public' },
      },
      async (req) => {
        const s = subscription(req.params.subscriptionId);
        if (!s) throw errors.notFound();
        return s;
      },
    );
  };
}
