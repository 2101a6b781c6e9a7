import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../platform/area.js';
import type { PaymentMethodsService } from './payment-methods.service.js';
import { principal, xFilter } from '../../http/principal.js';
import { Empty, PageQuery } from '../../http/schemas/common.js';
import {
  CreditCardBody,
  PaymentMethodCreateBody,
  PaymentMethodPage,
  PaymentMethodParams,
  PaymentMethodSchema,
} from './payment-methods.schemas.js';

type Ctx = RouteContext<{ paymentMethods: PaymentMethodsService }>;

const tags = ['Account'];

/** /account/payment-methods and the deprecated /account/credit-card. */
export function paymentMethodsRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.paymentMethods;
  return async (app) => {
    app.get(
      '/account/payment-methods',
      {
        schema: {
          tags,
          summary: 'Payment Methods List',
          querystring: PageQuery,
          response: { 200: PaymentMethodPage },
        },
        config: { operationId: 'getPaymentMethods', scopes: ['account:read_only'], paged: true },
      },
      (req) => svc.list(principal(req), req.query, xFilter(req)),
    );
    app.post(
      '/account/payment-methods',
      {
        schema: {
          tags,
          summary: 'Payment Method Add',
          body: PaymentMethodCreateBody,
          response: { 200: Empty },
        },
        config: { operationId: 'createPaymentMethod', scopes: ['account:read_write'] },
      },
      async (req) => {
        await svc.create(principal(req), req.body);
        return {};
      },
    );
    app.get(
      '/account/payment-methods/:paymentMethodId',
      {
        schema: {
          tags,
          summary: 'Payment Method View',
          params: PaymentMethodParams,
          response: { 200: PaymentMethodSchema },
        },
        config: { operationId: 'getPaymentMethod', scopes: ['account:read_only'] },
      },
      (req) => svc.get(principal(req), req.params.paymentMethodId),
    );
    app.delete(
      '/account/payment-methods/:paymentMethodId',
      {
        schema: {
          tags,
          summary: 'Payment Method Delete',
          params: PaymentMethodParams,
          response: { 200: Empty },
        },
        // The spec (and the reference) declare account:read_only here; the grant is read_write.
        config: { operationId: 'deletePaymentMethod', scopes: ['account:read_only'] },
      },
      async (req) => {
        await svc.remove(principal(req), req.params.paymentMethodId);
        return {};
      },
    );
    app.post(
      '/account/payment-methods/:paymentMethodId/make-default',
      {
        schema: {
          tags,
          summary: 'Payment Method Make Default',
          params: PaymentMethodParams,
          response: { 200: Empty },
        },
        config: { operationId: 'makePaymentMethodDefault', scopes: ['account:read_write'] },
      },
      async (req) => {
        await svc.makeDefault(principal(req), req.params.paymentMethodId);
        return {};
      },
    );
    app.post(
      '/account/credit-card',
      {
        schema: {
          tags,
          summary: 'Credit Card Add/Edit (deprecated)',
          body: CreditCardBody,
          response: { 200: Empty },
        },
        config: { operationId: 'createCreditCard', scopes: ['account:read_write'] },
      },
      async (req) => {
        await svc.addCreditCard(principal(req), req.body);
        return {};
      },
    );
  };
}
