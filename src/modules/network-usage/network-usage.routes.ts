import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { RouteContext } from '../../platform/area.js';
import type { NetworkUsageService } from './network-usage.service.js';
import { principal } from '../../http/principal.js';

type Ctx = RouteContext<{ networkUsage: NetworkUsageService }>;

const Use = {
  billable: Type.Integer({ description: 'GB beyond the quota this month.' }),
  quota: Type.Integer({ description: 'GB included this month.' }),
  used: Type.Integer({ description: 'GB sent this month.' }),
};
const TransferSchema = Type.Object({
  ...Use,
  region_transfers: Type.Array(Type.Object({ id: Type.String(), ...Use })),
});

/** `GET /account/transfer`. */
export function networkUsageRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.networkUsage;
  return async (app) => {
    app.get(
      '/account/transfer',
      {
        schema: {
          tags: ['Account'],
          summary: 'Network Utilization View',
          response: { 200: TransferSchema },
        },
        config: { operationId: 'getTransfer', scopes: ['account:read_only'] },
      },
      (req) => svc.transfer(principal(req)),
    );
  };
}
