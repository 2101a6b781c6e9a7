import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../platform/area.js';
import type { BetasService } from './betas.service.js';
import { principal, xFilter } from '../../http/principal.js';
import { Empty, PageQuery } from '../../http/schemas/common.js';
import {
  BetaParams,
  BetaProgramPage,
  BetaProgramSchema,
  EnrollBody,
  EnrolledBetaPage,
  EnrolledBetaSchema,
} from './betas.schemas.js';

type Ctx = RouteContext<{ betas: BetasService }>;

const tags = ['Beta Programs'];

/** `/betas` and `/account/betas`. */
export function betasRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.betas;
  return async (app) => {
    app.get(
      '/betas',
      {
        schema: {
          tags,
          summary: 'Beta Programs List',
          querystring: PageQuery,
          response: { 200: BetaProgramPage },
        },
        config: { operationId: 'getBetaPrograms', auth: 'token', paged: true },
      },
      (req) => svc.list(principal(req), req.query, xFilter(req)),
    );
    app.get(
      '/betas/:betaId',
      {
        schema: {
          tags,
          summary: 'Beta Program View',
          params: BetaParams,
          response: { 200: BetaProgramSchema },
        },
        config: { operationId: 'getBetaProgram', auth: 'token' },
      },
      (req) => svc.get(principal(req), req.params.betaId),
    );
    app.get(
      '/account/betas',
      {
        schema: {
          tags,
          summary: 'Enrolled Beta Programs List',
          querystring: PageQuery,
          response: { 200: EnrolledBetaPage },
        },
        config: {
          operationId: 'getEnrolledBetaPrograms',
          scopes: ['account:read_only'],
          paged: true,
        },
      },
      (req) => svc.enrolled(principal(req), req.query, xFilter(req)),
    );
    app.post(
      '/account/betas',
      {
        schema: {
          tags,
          summary: 'Beta Program Enroll',
          body: EnrollBody,
          response: { 200: Empty },
        },
        config: { operationId: 'enrollBetaProgram', scopes: ['account:read_write'] },
      },
      async (req) => {
        await svc.enroll(principal(req), req.body.id);
        return {};
      },
    );
    app.get(
      '/account/betas/:betaId',
      {
        schema: {
          tags,
          summary: 'Enrolled Beta Program View',
          params: BetaParams,
          response: { 200: EnrolledBetaSchema },
        },
        config: { operationId: 'getEnrolledBetaProgram', scopes: ['account:read_only'] },
      },
      (req) => svc.enrolledOne(principal(req), req.params.betaId),
    );
  };
}
