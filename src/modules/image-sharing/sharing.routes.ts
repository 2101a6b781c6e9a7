import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principal } from '../../http/principal.js';
import { Empty, PageQuery } from '../../http/schemas/common.js';
import type { RouteContext } from '../../platform/area.js';
import {
  AddImagesBody,
  AddMemberBody,
  ConsumerShareGroupSchema,
  CreatedTokenSchema,
  CreateShareGroupBody,
  CreateTokenBody,
  GroupMemberParams,
  GroupParams,
  GroupShareParams,
  GroupSplitShareParams,
  ImageGroupsParams,
  ImageGroupsSplitParams,
  MemberPage,
  MemberSchema,
  ShareGroupPage,
  ShareGroupSchema,
  SharedImagePage,
  SharedImageSchema,
  TokenPage,
  TokenParams,
  TokenSchema,
  UpdateLabelBody,
  UpdateShareBody,
  UpdateShareGroupBody,
} from './sharing.schemas.js';
import type { SharingService } from './sharing.service.js';

type Ctx = RouteContext<{ sharing: SharingService }>;

const tags = ['Images'];
const read = { scopes: ['images:read_only'] };
const write = { scopes: ['images:read_write'] };

/**
 * Image share groups: the producer's groups, their images and members, the groups of an image,
 * and the consumer's tokens (scopes as recorded: `images:read_only` to read, `images:read_write`
 * to change and to list members).
 */
export function sharingRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.sharing;
  return async (app) => {
    app.get(
      '/images/sharegroups',
      {
        schema: {
          tags,
          summary: 'Share Groups List',
          querystring: PageQuery,
          response: { 200: ShareGroupPage },
        },
        config: { operationId: 'getSharegroups', ...read, paged: true },
      },
      (req) => svc.listGroups(principal(req), req.query),
    );
    app.post(
      '/images/sharegroups',
      {
        schema: {
          tags,
          summary: 'Share Group Create',
          body: CreateShareGroupBody,
          response: { 200: ShareGroupSchema },
        },
        config: { operationId: 'postSharegroup', ...write },
      },
      (req) => svc.createGroup(principal(req), req.body),
    );
    app.get(
      '/images/sharegroups/:sharegroupId',
      {
        schema: {
          tags,
          summary: 'Share Group View',
          params: GroupParams,
          response: { 200: ShareGroupSchema },
        },
        config: { operationId: 'getSharegroup', ...read },
      },
      (req) => svc.getGroup(principal(req), req.params.sharegroupId),
    );
    app.put(
      '/images/sharegroups/:sharegroupId',
      {
        schema: {
          tags,
          summary: 'Share Group Update',
          params: GroupParams,
          body: UpdateShareGroupBody,
          response: { 200: ShareGroupSchema },
        },
        config: { operationId: 'putSharegroup', ...write },
      },
      (req) => svc.updateGroup(principal(req), req.params.sharegroupId, req.body),
    );
    app.delete(
      '/images/sharegroups/:sharegroupId',
      {
        schema: {
          tags,
          summary: 'Share Group Delete',
          params: GroupParams,
          response: { 200: Empty },
        },
        config: { operationId: 'deleteSharegroup', ...write },
      },
      async (req) => {
        await svc.deleteGroup(principal(req), req.params.sharegroupId);
        return {};
      },
    );
    app.get(
      '/images/sharegroups/:sharegroupId/images',
      {
        schema: {
          tags,
          summary: 'Share Group Images List',
          params: GroupParams,
          querystring: PageQuery,
          response: { 200: SharedImagePage },
        },
        config: { operationId: 'getSharegroupImages', ...read, paged: true },
      },
      (req) => svc.listShares(principal(req), req.params.sharegroupId, req.query),
    );
    app.post(
      '/images/sharegroups/:sharegroupId/images',
      {
        schema: {
          tags,
          summary: 'Share Group Images Add',
          params: GroupParams,
          body: AddImagesBody,
          response: { 200: SharedImagePage },
        },
        config: { operationId: 'postSharegroupImages', ...write },
      },
      (req) => svc.addImages(principal(req), req.params.sharegroupId, req.body),
    );
    const updateShare = {
      tags,
      summary: 'Share Group Image Update',
      body: UpdateShareBody,
      response: { 200: SharedImageSchema },
    };
    app.put(
      '/images/sharegroups/:sharegroupId/images/:imageId',
      {
        schema: { ...updateShare, params: GroupShareParams },
        config: { operationId: 'putSharegroupImage', ...write },
      },
      (req) =>
        svc.updateShare(principal(req), req.params.sharegroupId, req.params.imageId, req.body),
    );
    app.put(
      '/images/sharegroups/:sharegroupId/images/shared/:shareId',
      {
        schema: { ...updateShare, params: GroupSplitShareParams, hide: true },
        config: { operationId: 'putSharegroupImageSplit', ...write },
      },
      (req) =>
        svc.updateShare(
          principal(req),
          req.params.sharegroupId,
          `shared/${req.params.shareId}`,
          req.body,
        ),
    );
    const removeShare = { tags, summary: 'Share Group Image Remove', response: { 200: Empty } };
    app.delete(
      '/images/sharegroups/:sharegroupId/images/:imageId',
      {
        schema: { ...removeShare, params: GroupShareParams },
        config: { operationId: 'deleteSharegroupImage', ...write },
      },
      async (req) => {
        await svc.removeShare(principal(req), req.params.sharegroupId, req.params.imageId);
        return {};
      },
    );
    app.delete(
      '/images/sharegroups/:sharegroupId/images/shared/:shareId',
      {
        schema: { ...removeShare, params: GroupSplitShareParams, hide: true },
        config: { operationId: 'deleteSharegroupImageSplit', ...write },
      },
      async (req) => {
        await svc.removeShare(
          principal(req),
          req.params.sharegroupId,
          `shared/${req.params.shareId}`,
        );
        return {};
      },
    );
    app.get(
      '/images/sharegroups/:sharegroupId/members',
      {
        schema: {
          tags,
          summary: 'Share Group Members List',
          params: GroupParams,
          querystring: PageQuery,
          response: { 200: MemberPage },
        },
        config: { operationId: 'getSharegroupMembers', ...write, paged: true },
      },
      (req) => svc.listMembers(principal(req), req.params.sharegroupId, req.query),
    );
    app.post(
      '/images/sharegroups/:sharegroupId/members',
      {
        schema: {
          tags,
          summary: 'Share Group Member Add',
          params: GroupParams,
          body: AddMemberBody,
          response: { 200: MemberSchema },
        },
        config: { operationId: 'postSharegroupMember', ...write },
      },
      (req) => svc.addMember(principal(req), req.params.sharegroupId, req.body),
    );
    app.get(
      '/images/sharegroups/:sharegroupId/members/:tokenUuid',
      {
        schema: {
          tags,
          summary: 'Share Group Member View',
          params: GroupMemberParams,
          response: { 200: MemberSchema },
        },
        config: { operationId: 'getSharegroupMember', ...write },
      },
      (req) => svc.getMember(principal(req), req.params.sharegroupId, req.params.tokenUuid),
    );
    app.put(
      '/images/sharegroups/:sharegroupId/members/:tokenUuid',
      {
        schema: {
          tags,
          summary: 'Share Group Member Update',
          params: GroupMemberParams,
          body: UpdateLabelBody,
          response: { 200: MemberSchema },
        },
        config: { operationId: 'putSharegroupMember', ...write },
      },
      (req) =>
        svc.updateMember(
          principal(req),
          req.params.sharegroupId,
          req.params.tokenUuid,
          req.body.label,
        ),
    );
    app.delete(
      '/images/sharegroups/:sharegroupId/members/:tokenUuid',
      {
        schema: {
          tags,
          summary: 'Share Group Member Remove',
          params: GroupMemberParams,
          response: { 200: Empty },
        },
        config: { operationId: 'deleteSharegroupMember', ...write },
      },
      async (req) => {
        await svc.removeMember(principal(req), req.params.sharegroupId, req.params.tokenUuid);
        return {};
      },
    );
    const imageGroups = {
      tags,
      summary: 'Share Groups of an Image',
      querystring: PageQuery,
      response: { 200: ShareGroupPage },
    };
    app.get(
      '/images/:imageId/sharegroups',
      {
        schema: { ...imageGroups, params: ImageGroupsParams },
        config: { operationId: 'getImageSharegroups', ...read, paged: true },
      },
      (req) => svc.groupsOfImage(principal(req), req.params.imageId, req.query),
    );
    app.get(
      '/images/:vendor/:name/sharegroups',
      {
        schema: { ...imageGroups, params: ImageGroupsSplitParams, hide: true },
        config: { operationId: 'getImageSharegroupsSplit', ...read, paged: true },
      },
      (req) =>
        svc.groupsOfImage(principal(req), `${req.params.vendor}/${req.params.name}`, req.query),
    );
    // The consumer's side.
    app.get(
      '/images/sharegroups/tokens',
      {
        schema: {
          tags,
          summary: 'Share Group Tokens List',
          querystring: PageQuery,
          response: { 200: TokenPage },
        },
        config: { operationId: 'getSharegroupTokens', ...read, paged: true },
      },
      (req) => svc.listTokens(principal(req), req.query),
    );
    app.post(
      '/images/sharegroups/tokens',
      {
        schema: {
          tags,
          summary: 'Share Group Token Create',
          body: CreateTokenBody,
          response: { 200: CreatedTokenSchema },
        },
        config: { operationId: 'postSharegroupTokens', ...write },
      },
      (req) => svc.createToken(principal(req), req.body),
    );
    app.get(
      '/images/sharegroups/tokens/:tokenUuid',
      {
        schema: {
          tags,
          summary: 'Share Group Token View',
          params: TokenParams,
          response: { 200: TokenSchema },
        },
        config: { operationId: 'getSharegroupToken', ...read },
      },
      (req) => svc.getToken(principal(req), req.params.tokenUuid),
    );
    app.put(
      '/images/sharegroups/tokens/:tokenUuid',
      {
        schema: {
          tags,
          summary: 'Share Group Token Update',
          params: TokenParams,
          body: UpdateLabelBody,
          response: { 200: TokenSchema },
        },
        config: { operationId: 'putSharegroupToken', ...write },
      },
      (req) => svc.updateToken(principal(req), req.params.tokenUuid, req.body.label),
    );
    app.delete(
      '/images/sharegroups/tokens/:tokenUuid',
      {
        schema: {
          tags,
          summary: 'Share Group Token Delete',
          params: TokenParams,
          response: { 200: Empty },
        },
        config: { operationId: 'deleteSharegroupToken', ...write },
      },
      async (req) => {
        await svc.deleteToken(principal(req), req.params.tokenUuid);
        return {};
      },
    );
    app.get(
      '/images/sharegroups/tokens/:tokenUuid/sharegroup',
      {
        schema: {
          tags,
          summary: 'Share Group by Token',
          params: TokenParams,
          response: { 200: ConsumerShareGroupSchema },
        },
        config: { operationId: 'getSharegroupByToken', ...read },
      },
      (req) => svc.tokenGroup(principal(req), req.params.tokenUuid),
    );
    app.get(
      '/images/sharegroups/tokens/:tokenUuid/sharegroup/images',
      {
        schema: {
          tags,
          summary: 'Share Group Images by Token',
          params: TokenParams,
          querystring: PageQuery,
          response: { 200: SharedImagePage },
        },
        config: { operationId: 'getSharegroupImagesByToken', ...read, paged: true },
      },
      (req) => svc.tokenGroupImages(principal(req), req.params.tokenUuid, req.query),
    );
  };
}
