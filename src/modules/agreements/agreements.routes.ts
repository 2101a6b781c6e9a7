import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { RouteContext } from '../../platform/area.js';
import type { AgreementsService } from './agreements.service.js';
import { principal } from '../../http/principal.js';
import { Empty } from '../../http/schemas/common.js';

type Ctx = RouteContext<{ agreements: AgreementsService }>;

const AgreementsSchema = Type.Object({
  eu_model: Type.Boolean(),
  master_service_agreement: Type.Boolean(),
  privacy_policy: Type.Boolean(),
});
const AcknowledgeBody = Type.Partial(AgreementsSchema);

/** `/account/agreements` (not in the reference revision; as the recorded traffic shows it). */
export function agreementsRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.agreements;
  return async (app) => {
    app.get(
      '/account/agreements',
      {
        schema: {
          tags: ['Account'],
          summary: 'Agreements View',
          response: { 200: AgreementsSchema },
        },
        config: { operationId: 'getAccountAgreements', scopes: ['account:read_only'] },
      },
      (req) => svc.get(principal(req)),
    );
    app.post(
      '/account/agreements',
      {
        schema: {
          tags: ['Account'],
          summary: 'Agreements Acknowledge',
          body: AcknowledgeBody,
          response: { 200: Empty },
        },
        config: { operationId: 'acknowledgeAccountAgreement', scopes: ['account:read_write'] },
      },
      async (req) => {
        await svc.acknowledge(principal(req), req.body);
        return {};
      },
    );
  };
}
