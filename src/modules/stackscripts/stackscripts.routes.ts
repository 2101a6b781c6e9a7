import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../platform/area.js';
import type { StackScriptsService } from './stackscripts.service.js';
import { principal, xFilter } from '../../http/principal.js';
import { Empty, PageQuery } from '../../http/schemas/common.js';
import {
  CreateStackScriptBody,
  StackScriptPage,
  StackScriptParams,
  StackScriptSchema,
  UpdateStackScriptBody,
} from './stackscripts.schemas.js';

type Ctx = RouteContext<{ stackScripts: StackScriptsService }>;

const tags = ['StackScripts'];
const read = { scopes: ['stackscripts:read_only'] };
const write = { scopes: ['stackscripts:read_write'] };

export function stackScriptsRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.stackScripts;
  return async (app) => {
    app.get(
      '/compute/stackscripts',
      {
        schema: {
          tags,
          summary: 'StackScripts List',
          querystring: PageQuery,
          response: { 200: StackScriptPage },
        },
        // Without a token (or without stackscripts:read_only) only public scripts are listed.
        config: {
          operationId: 'getStackScripts',
          auth: 'public',
          acceptedScopes: ['stackscripts:read_only'],
          paged: true,
        },
      },
      (req) => svc.list(req.principal, req.query, xFilter(req)),
    );
    app.post(
      '/compute/stackscripts',
      {
        schema: {
          tags,
          summary: 'StackScript Create',
          body: CreateStackScriptBody,
          response: { 200: StackScriptSchema },
        },
        config: { operationId: 'addStackScript', ...write },
      },
      (req) => svc.create(principal(req), req.body),
    );
    app.get(
      '/compute/stackscripts/:stackscriptId',
      {
        schema: {
          tags,
          summary: 'StackScript View',
          params: StackScriptParams,
          response: { 200: StackScriptSchema },
        },
        config: { operationId: 'getStackScript', ...read },
      },
      (req) => svc.get(principal(req), req.params.stackscriptId),
    );
    app.put(
      '/compute/stackscripts/:stackscriptId',
      {
        schema: {
          tags,
          summary: 'StackScript Update',
          params: StackScriptParams,
          body: UpdateStackScriptBody,
          response: { 200: StackScriptSchema },
        },
        config: { operationId: 'updateStackScript', ...write },
      },
      (req) => svc.update(principal(req), req.params.stackscriptId, req.body),
    );
    app.delete(
      '/compute/stackscripts/:stackscriptId',
      {
        schema: {
          tags,
          summary: 'StackScript Delete',
          params: StackScriptParams,
          response: { 200: Empty },
        },
        config: { operationId: 'deleteStackScript', ...write },
      },
      async (req) => {
        await svc.delete(principal(req), req.params.stackscriptId);
        return {};
      },
    );
  };
}
