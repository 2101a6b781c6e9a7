import { defineArea } from '../../platform/area.js';
import { billingRoutes, priceRoutes } from './billing.routes.js';
import { BillingService } from './billing.service.js';
import { invoicingJob } from './invoicing.js';
import { paymentMethodsRoutes } from './payment-methods.routes.js';
import { PaymentMethodsService } from './payment-methods.service.js';

/** Payment methods, the billing engine (periods, invoices, payments) and the price catalogues. */
export const billingModule = defineArea({
  name: 'billing',
  needs: [],
  tables: ['billing_facts', 'invoices', 'invoice_items', 'payments', 'payment_methods'],
  jobs: [invoicingJob],
  services: ({ db, clock, events }) => ({
    billing: new BillingService({ db, clock, events }),
    paymentMethods: new PaymentMethodsService({ db, clock, events }),
  }),
  api: (ctx) => [paymentMethodsRoutes(ctx), billingRoutes(ctx), priceRoutes()],
});
