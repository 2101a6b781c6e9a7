import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../platform/area.js';
import type { TagsService } from './tags.service.js';
import { principal, xFilter } from '../../http/principal.js';
import { Empty, PageQuery } from '../../http/schemas/common.js';
import {
  type CreateTag,
  createTagBody,
  TagPage,
  TagParams,
  TagSchema,
  taggedObjectPage,
} from './tags.schemas.js';

type Ctx = RouteContext<{ tags: TagsService }>;

const tags = ['Tags'];

/** `/tags`: the body of create and the tagged objects follow the declared taggable types. */
export function tagsRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.tags;
  const CreateTagBody = createTagBody(ctx.entities);
  const TaggedPage = taggedObjectPage(ctx.entities);
  return async (app) => {
    app.get(
      '/tags',
      {
        schema: { tags, summary: 'Tags List', querystring: PageQuery, response: { 200: TagPage } },
        config: { operationId: 'getTags', scopes: ['account:read_only'], paged: true },
      },
      (req) => svc.list(principal(req), req.query, xFilter(req)),
    );
    app.post(
      '/tags',
      {
        schema: {
          tags,
          summary: 'New Tag Create',
          body: CreateTagBody,
          response: { 200: TagSchema },
        },
        config: { operationId: 'createTag', scopes: ['account:read_write'] },
      },
      (req) => svc.create(principal(req), req.body as CreateTag),
    );
    app.get(
      '/tags/:tagLabel',
      {
        schema: {
          tags,
          summary: 'Tagged Objects List',
          params: TagParams,
          querystring: PageQuery,
          response: { 200: TaggedPage },
        },
        config: { operationId: 'getTaggedObjects', scopes: ['account:read_only'], paged: true },
      },
      (req) => svc.objects(principal(req), req.params.tagLabel, req.query, xFilter(req)),
    );
    app.delete(
      '/tags/:tagLabel',
      {
        schema: { tags, summary: 'Tag Delete', params: TagParams, response: { 200: Empty } },
        config: { operationId: 'deleteTag', scopes: ['account:read_write'] },
      },
      async (req) => {
        await svc.delete(principal(req), req.params.tagLabel);
        return {};
      },
    );
  };
}
