import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../platform/area.js';
import type { UsersService } from './users.service.js';
import { principal, xFilter } from '../../http/principal.js';
import { Empty, PageQuery } from '../../http/schemas/common.js';
import {
  UserCreateBody,
  UsernameParams,
  UserPage,
  UserSchema,
  UserUpdateBody,
} from './users.schemas.js';

type Ctx = RouteContext<{ users: UsersService }>;

const tags = ['Account'];

/** /account/users and /account/users/{username}: unrestricted users only. */
export function usersRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.users;
  return async (app) => {
    app.get(
      '/account/users',
      {
        schema: {
          tags,
          summary: 'Users List',
          querystring: PageQuery,
          response: { 200: UserPage },
        },
        config: { operationId: 'getUsers', scopes: ['account:read_only'], paged: true },
      },
      (req) => svc.list(principal(req), req.query, xFilter(req)),
    );
    app.post(
      '/account/users',
      {
        schema: {
          tags,
          summary: 'User Create',
          body: UserCreateBody,
          response: { 200: UserSchema },
        },
        config: { operationId: 'createUser', scopes: ['account:read_write'] },
      },
      (req) => svc.create(principal(req), req.body),
    );
    app.get(
      '/account/users/:username',
      {
        schema: {
          tags,
          summary: 'User View',
          params: UsernameParams,
          response: { 200: UserSchema },
        },
        config: { operationId: 'getUser', scopes: ['account:read_only'] },
      },
      (req) => svc.get(principal(req), req.params.username),
    );
    app.put(
      '/account/users/:username',
      {
        schema: {
          tags,
          summary: 'User Update',
          params: UsernameParams,
          body: UserUpdateBody,
          response: { 200: UserSchema },
        },
        config: { operationId: 'updateUser', scopes: ['account:read_write'] },
      },
      (req) => svc.update(principal(req), req.params.username, req.body),
    );
    app.delete(
      '/account/users/:username',
      {
        schema: { tags, summary: 'User Delete', params: UsernameParams, response: { 200: Empty } },
        config: { operationId: 'deleteUser', scopes: ['account:read_write'] },
      },
      async (req) => {
        await svc.delete(principal(req), req.params.username);
        return {};
      },
    );
  };
}
