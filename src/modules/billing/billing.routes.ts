import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../platform/area.js';
import type { BillingService } from './billing.service.js';
import { principal } from '../../http/principal.js';
import { PageQuery } from '../../http/schemas/common.js';
import { pageOf } from '../../lib/pagination.js';
import {
  CancelBody,
  CancelResponse,
  InvoiceItemPage,
  InvoiceParams,
  InvoicePage,
  InvoiceSchema,
  PaymentCreateBody,
  PaymentPage,
  PaymentParams,
  PaymentSchema,
  PriceRecordPage,
} from './billing.schemas.js';
import {
  NETWORK_TRANSFER_PRICES,
  NODEBALANCER_PRICES,
  OBJECT_STORAGE_PRICES,
  type PriceRecord,
  RESERVED_IPV4_PRICES,
  VOLUME_PRICES,
} from './prices.js';

type Ctx = RouteContext<{ billing: BillingService }>;

const tags = ['Account'];
const read = { scopes: ['account:read_only'] };
const write = { scopes: ['account:read_write'] };

/** Invoices, payments and the account's cancellation. */
export function billingRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.billing;
  return async (app) => {
    app.get(
      '/account/invoices',
      {
        schema: {
          tags,
          summary: 'Invoices List',
          querystring: PageQuery,
          response: { 200: InvoicePage },
        },
        config: { operationId: 'getInvoices', ...read, paged: true },
      },
      (req) => svc.invoices(principal(req), req.query),
    );
    app.get(
      '/account/invoices/:invoiceId',
      {
        schema: {
          tags,
          summary: 'Invoice View',
          params: InvoiceParams,
          response: { 200: InvoiceSchema },
        },
        config: { operationId: 'getInvoice', ...read },
      },
      (req) => svc.invoice(principal(req), req.params.invoiceId),
    );
    app.get(
      '/account/invoices/:invoiceId/items',
      {
        schema: {
          tags,
          summary: 'Invoice Items List',
          params: InvoiceParams,
          querystring: PageQuery,
          response: { 200: InvoiceItemPage },
        },
        config: { operationId: 'getInvoiceItems', ...read, paged: true },
      },
      (req) => svc.invoiceItems(principal(req), req.params.invoiceId, req.query),
    );
    app.get(
      '/account/payments',
      {
        schema: {
          tags,
          summary: 'Payments List',
          querystring: PageQuery,
          response: { 200: PaymentPage },
        },
        config: { operationId: 'getPayments', ...read, paged: true },
      },
      (req) => svc.payments(principal(req), req.query),
    );
    app.get(
      '/account/payments/:paymentId',
      {
        schema: {
          tags,
          summary: 'Payment View',
          params: PaymentParams,
          response: { 200: PaymentSchema },
        },
        config: { operationId: 'getPayment', ...read },
      },
      (req) => svc.payment(principal(req), req.params.paymentId),
    );
    app.post(
      '/account/payments',
      {
        schema: {
          tags,
          summary: 'Payment Make',
          body: PaymentCreateBody,
          response: { 200: PaymentSchema },
        },
        config: { operationId: 'createPayment', ...write },
      },
      (req) => svc.pay(principal(req), req.body),
    );
    app.post(
      '/account/cancel',
      {
        schema: {
          tags,
          summary: 'Account Cancel',
          body: CancelBody,
          response: { 200: CancelResponse },
        },
        config: { operationId: 'cancelAccount', ...write },
      },
      (req) => svc.cancel(principal(req), (tx, id) => ctx.state.closeAccount(tx, id)),
    );
  };
}

/** The public price catalogues of the billable products that are not instance types. */
export function priceRoutes(): FastifyPluginAsyncTypebox {
  const catalogues: [string, string, string, string, PriceRecord[]][] = [
    ['/volumes/types', 'getVolumeTypes', 'Volumes', 'Volume Types List', VOLUME_PRICES],
    [
      '/nodebalancers/types',
      'getNodeBalancerTypes',
      'NodeBalancers',
      'NodeBalancer Types List',
      NODEBALANCER_PRICES,
    ],
    [
      '/object-storage/types',
      'getObjectStorageTypes',
      'Object Storage',
      'Object Storage Types List',
      OBJECT_STORAGE_PRICES,
    ],
    [
      '/network-transfer/prices',
      'getNetworkTransferPrices',
      'Networking',
      'Network Transfer Prices List',
      NETWORK_TRANSFER_PRICES,
    ],
    [
      '/networking/reserved/ips/types',
      'getReservedIpTypes',
      'Networking',
      'Reserved IP Types List',
      RESERVED_IPV4_PRICES,
    ],
  ];
  return async (app) => {
    for (const [path, operationId, tag, summary, records] of catalogues) {
      app.get(
        path,
        {
          schema: {
            tags: [tag],
            summary,
            querystring: PageQuery,
            response: { 200: PriceRecordPage },
          },
          config: { operationId, auth: 'public', paged: true },
        },
        (req) =>
          pageOf(
            req.query,
            async (limit, offset) => records.slice(offset, offset + limit),
            async () => records.length,
          ),
      );
    }
  };
}
