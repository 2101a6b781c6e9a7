import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { RouteContext } from '../../platform/area.js';
import type { BucketsService } from './buckets.service.js';
import type { ContentService } from './content.service.js';
import type { KeysService } from './keys.service.js';
import type { QuotasService } from './objects.quotas.js';
import { principal } from '../../http/principal.js';
import { Empty, PageQuery } from '../../http/schemas/common.js';
import { publicOrigin } from '../../http/public-url.js';
import {
  AccessBody,
  AccessSchema,
  EndpointPage,
  GlobalQuotaPage,
  GlobalQuotaSchema,
  QuotaPage,
  QuotaParams,
  QuotaSchema,
  QuotaUsageSchema,
  BucketPage,
  BucketParams,
  BucketSchema,
  ClusterPage,
  ClusterParams,
  ClusterSchema,
  CreateBucketBody,
  CreateKeyBody,
  KeyPage,
  KeyParams,
  KeySchema,
  ObjectAclBody,
  ObjectAclQuery,
  ObjectAclSchema,
  ObjectListQuery,
  ObjectListSchema,
  ObjectUrlBody,
  ObjectUrlSchema,
  SslBody,
  SslSchema,
  TransferSchema,
  UpdateKeyBody,
} from './objects.schemas.js';

type Ctx = RouteContext<{
  buckets: BucketsService;
  content: ContentService;
  keys: KeysService;
  quotas: QuotasService;
}>;

const tags = ['Object Storage'];
const read = { scopes: ['object_storage:read_only'], rateLimit: 'object_storage' as const };
const write = { scopes: ['object_storage:read_write'], rateLimit: 'object_storage' as const };

export function objectStorageRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const { buckets, content, keys, quotas } = ctx.services;
  const base = (req: FastifyRequest) => ctx.config.s3Endpoint ?? publicOrigin(ctx.config, req);
  return async (app) => {
    app.get(
      '/object-storage/clusters',
      {
        schema: {
          tags,
          summary: 'Clusters List',
          querystring: PageQuery,
          response: { 200: ClusterPage },
        },
        config: { operationId: 'getObjectStorageClusters', auth: 'public', paged: true },
      },
      (req) => buckets.clusters(base(req), req.query),
    );
    app.get(
      '/object-storage/clusters/:clusterId',
      {
        schema: {
          tags,
          summary: 'Cluster View',
          params: ClusterParams,
          response: { 200: ClusterSchema },
        },
        config: { operationId: 'getObjectStorageCluster', auth: 'public' },
      },
      (req) => buckets.cluster(base(req), req.params.clusterId),
    );
    app.get(
      '/object-storage/buckets',
      {
        schema: {
          tags,
          summary: 'Buckets List',
          querystring: PageQuery,
          response: { 200: BucketPage },
        },
        config: { operationId: 'getObjectStorageBuckets', ...read, paged: true },
      },
      (req) => buckets.list(principal(req), base(req), req.query),
    );
    app.post(
      '/object-storage/buckets',
      {
        schema: {
          tags,
          summary: 'Bucket Create',
          body: CreateBucketBody,
          response: { 200: BucketSchema },
        },
        config: { operationId: 'createObjectStorageBucket', ...write },
      },
      (req) => buckets.create(principal(req), base(req), req.body),
    );
    app.get(
      '/object-storage/buckets/:clusterId',
      {
        schema: {
          tags,
          summary: 'Buckets in Cluster List',
          params: ClusterParams,
          querystring: PageQuery,
          response: { 200: BucketPage },
        },
        config: { operationId: 'getObjectStorageBucketinCluster', ...read, paged: true },
      },
      (req) => buckets.list(principal(req), base(req), req.query, req.params.clusterId),
    );
    app.get(
      '/object-storage/buckets/:clusterId/:bucket',
      {
        schema: {
          tags,
          summary: 'Bucket View',
          params: BucketParams,
          response: { 200: BucketSchema },
        },
        config: { operationId: 'getObjectStorageBucket', ...read },
      },
      (req) => buckets.get(principal(req), base(req), req.params.clusterId, req.params.bucket),
    );
    app.delete(
      '/object-storage/buckets/:clusterId/:bucket',
      {
        schema: { tags, summary: 'Bucket Remove', params: BucketParams, response: { 200: Empty } },
        config: { operationId: 'deleteObjectStorageBucket', ...write },
      },
      (req) => buckets.remove(principal(req), req.params.clusterId, req.params.bucket),
    );
    for (const [method, operationId, summary] of [
      ['POST', 'modifyObjectStorageBucketAccess', 'Object Storage Bucket Access Modify'],
      ['PUT', 'updateObjectStorageBucketAccess', 'Object Storage Bucket Access Update'],
    ] as const) {
      app.route({
        method,
        url: '/object-storage/buckets/:clusterId/:bucket/access',
        schema: { tags, summary, params: BucketParams, body: AccessBody, response: { 200: Empty } },
        config: { operationId, ...write },
        handler: (req) =>
          buckets.access(principal(req), req.params.clusterId, req.params.bucket, req.body),
      });
    }
    app.get(
      '/object-storage/buckets/:clusterId/:bucket/access',
      {
        schema: {
          tags,
          summary: 'Object Storage Bucket Access View',
          params: BucketParams,
          response: { 200: AccessSchema },
        },
        config: { operationId: 'getObjectStorageBucketAccess', ...read },
      },
      (req) => buckets.accessGet(principal(req), req.params.clusterId, req.params.bucket),
    );
    app.get(
      '/object-storage/buckets/:clusterId/:bucket/object-acl',
      {
        schema: {
          tags,
          summary: 'Object ACL Config View',
          params: BucketParams,
          querystring: ObjectAclQuery,
          response: { 200: ObjectAclSchema },
        },
        config: { operationId: 'viewObjectStorageBucketACL', ...read },
      },
      (req) =>
        content.getAcl(principal(req), req.params.clusterId, req.params.bucket, req.query.name),
    );
    app.put(
      '/object-storage/buckets/:clusterId/:bucket/object-acl',
      {
        schema: {
          tags,
          summary: 'Object ACL Config Update',
          params: BucketParams,
          body: ObjectAclBody,
          response: { 200: ObjectAclSchema },
        },
        config: { operationId: 'updateObjectStorageBucketACL', ...write },
      },
      (req) => content.putAcl(principal(req), req.params.clusterId, req.params.bucket, req.body),
    );
    app.get(
      '/object-storage/buckets/:clusterId/:bucket/object-list',
      {
        schema: {
          tags,
          summary: 'Object Storage Bucket Contents List',
          params: BucketParams,
          querystring: ObjectListQuery,
          response: { 200: ObjectListSchema },
        },
        config: { operationId: 'getObjectStorageBucketContent', ...read },
      },
      (req) => content.list(principal(req), req.params.clusterId, req.params.bucket, req.query),
    );
    app.post(
      '/object-storage/buckets/:clusterId/:bucket/object-url',
      {
        schema: {
          tags,
          summary: 'Object Storage Object URL Create',
          params: BucketParams,
          body: ObjectUrlBody,
          response: { 200: ObjectUrlSchema },
        },
        config: { operationId: 'createObjectStorageObjectURL', ...write },
      },
      (req) =>
        content.url(principal(req), base(req), req.params.clusterId, req.params.bucket, req.body),
    );
    app.get(
      '/object-storage/buckets/:clusterId/:bucket/ssl',
      {
        schema: {
          tags,
          summary: 'Object Storage TLS/SSL Cert View',
          params: BucketParams,
          response: { 200: SslSchema },
        },
        config: { operationId: 'getObjectStorageSSL', ...read },
      },
      (req) => content.sslGet(principal(req), req.params.clusterId, req.params.bucket),
    );
    app.post(
      '/object-storage/buckets/:clusterId/:bucket/ssl',
      {
        schema: {
          tags,
          summary: 'Object Storage TLS/SSL Cert Upload',
          params: BucketParams,
          body: SslBody,
          response: { 200: SslSchema },
        },
        config: { operationId: 'createObjectStorageSSL', ...write },
      },
      (req) => content.sslPost(principal(req), req.params.clusterId, req.params.bucket, req.body),
    );
    app.delete(
      '/object-storage/buckets/:clusterId/:bucket/ssl',
      {
        schema: {
          tags,
          summary: 'Object Storage TLS/SSL Cert Delete',
          params: BucketParams,
          response: { 200: Empty },
        },
        config: { operationId: 'deleteObjectStorageSSL', ...write },
      },
      (req) => content.sslDelete(principal(req), req.params.clusterId, req.params.bucket),
    );
    app.post(
      '/object-storage/cancel',
      {
        schema: { tags, summary: 'Object Storage Cancel', response: { 200: Empty } },
        config: { operationId: 'cancelObjectStorage', ...write },
      },
      (req) => buckets.cancel(principal(req)),
    );
    app.get(
      '/object-storage/transfer',
      {
        schema: {
          tags,
          summary: 'Object Storage Transfer View',
          response: { 200: TransferSchema },
        },
        config: { operationId: 'getObjectStorageTransfer', ...read },
      },
      (req) => buckets.transfer(principal(req)),
    );
    app.get(
      '/object-storage/keys',
      {
        schema: {
          tags,
          summary: 'Object Storage Keys List',
          querystring: PageQuery,
          response: { 200: KeyPage },
        },
        config: { operationId: 'getObjectStorageKeys', ...read, paged: true },
      },
      (req) => keys.list(principal(req), base(req), req.query),
    );
    app.post(
      '/object-storage/keys',
      {
        schema: {
          tags,
          summary: 'Object Storage Key Create',
          body: CreateKeyBody,
          response: { 200: KeySchema },
        },
        config: { operationId: 'createObjectStorageKeys', ...write },
      },
      (req) => keys.create(principal(req), base(req), req.body),
    );
    app.get(
      '/object-storage/keys/:keyId',
      {
        schema: {
          tags,
          summary: 'Object Storage Key View',
          params: KeyParams,
          response: { 200: KeySchema },
        },
        config: { operationId: 'getObjectStorageKey', ...read },
      },
      (req) => keys.get(principal(req), base(req), req.params.keyId),
    );
    app.put(
      '/object-storage/keys/:keyId',
      {
        schema: {
          tags,
          summary: 'Object Storage Key Update',
          params: KeyParams,
          body: UpdateKeyBody,
          response: { 200: KeySchema },
        },
        config: { operationId: 'updateObjectStorageKey', ...write },
      },
      (req) => keys.update(principal(req), base(req), req.params.keyId, req.body),
    );
    app.delete(
      '/object-storage/keys/:keyId',
      {
        schema: {
          tags,
          summary: 'Object Storage Key Revoke',
          params: KeyParams,
          response: { 200: Empty },
        },
        config: { operationId: 'deleteObjectStorageKey', ...write },
      },
      (req) => keys.revoke(principal(req), req.params.keyId),
    );
    app.get(
      '/object-storage/endpoints',
      {
        schema: {
          tags,
          summary: 'Object Storage Endpoints List',
          querystring: PageQuery,
          response: { 200: EndpointPage },
        },
        config: { operationId: 'getObjectStorageEndpoints', ...read, paged: true },
      },
      (req) => quotas.endpoints(base(req), req.query),
    );
    app.get(
      '/object-storage/quotas',
      {
        schema: {
          tags,
          summary: 'Object Storage Quotas List',
          querystring: PageQuery,
          response: { 200: QuotaPage },
        },
        config: { operationId: 'getObjectStorageQuotas', ...read, paged: true },
      },
      (req) => quotas.quotas(principal(req), base(req), req.query),
    );
    app.get(
      '/object-storage/quotas/:quotaId',
      {
        schema: {
          tags,
          summary: 'Object Storage Quota View',
          params: QuotaParams,
          response: { 200: QuotaSchema },
        },
        config: { operationId: 'getObjectStorageQuota', ...read },
      },
      (req) => quotas.quota(principal(req), base(req), req.params.quotaId),
    );
    app.get(
      '/object-storage/quotas/:quotaId/usage',
      {
        schema: {
          tags,
          summary: 'Object Storage Quota Usage View',
          params: QuotaParams,
          response: { 200: QuotaUsageSchema },
        },
        config: { operationId: 'getObjectStorageQuotaUsage', ...read },
      },
      (req) => quotas.usage(principal(req), base(req), req.params.quotaId),
    );
    app.get(
      '/object-storage/global-quotas',
      {
        schema: {
          tags,
          summary: 'Object Storage Global Quotas List',
          querystring: PageQuery,
          response: { 200: GlobalQuotaPage },
        },
        config: { operationId: 'getObjectStorageGlobalQuotas', ...read, paged: true },
      },
      (req) => quotas.globalQuotas(principal(req), req.query),
    );
    app.get(
      '/object-storage/global-quotas/:quotaId',
      {
        schema: {
          tags,
          summary: 'Object Storage Global Quota View',
          params: QuotaParams,
          response: { 200: GlobalQuotaSchema },
        },
        config: { operationId: 'getObjectStorageGlobalQuota', ...read },
      },
      (req) => quotas.globalQuota(principal(req), req.params.quotaId),
    );
    app.get(
      '/object-storage/global-quotas/:quotaId/usage',
      {
        schema: {
          tags,
          summary: 'Object Storage Global Quota Usage View',
          params: QuotaParams,
          response: { 200: QuotaUsageSchema },
        },
        config: { operationId: 'getObjectStorageGlobalQuotaUsage', ...read },
      },
      (req) => quotas.globalUsage(principal(req), req.params.quotaId),
    );
  };
}
