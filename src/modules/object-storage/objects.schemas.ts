import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Nullable, PageOf } from '../../http/schemas/common.js';

const BUCKET_ACLS = ['private', 'public-read', 'authenticated-read', 'public-read-write'] as const;
const ACLS = [...BUCKET_ACLS, 'custom'] as const;
const lit = <T extends readonly string[]>(values: T) =>
  Type.Unsafe<T[number]>(Type.Union(values.map((v) => Type.Literal(v))));

export const BucketAclSchema = lit(BUCKET_ACLS);
export const AclSchema = lit(ACLS);

export const ClusterSchema = Type.Object({
  id: Type.String(),
  domain: Type.String(),
  status: lit(['available', 'unavailable'] as const),
  region: Type.String(),
  static_site_domain: Type.String(),
});
export type ApiCluster = Static<typeof ClusterSchema>;
export const ClusterPage = PageOf(ClusterSchema);
export const ClusterParams = Type.Object({ clusterId: Type.String() });

export const EndpointTypeSchema = lit(['E0', 'E1', 'E2', 'E3'] as const);

export const BucketSchema = Type.Object({
  created: DateTime(),
  cluster: Type.String(),
  region: Type.String(),
  label: Type.String(),
  hostname: Type.String(),
  size: Type.Integer(),
  objects: Type.Integer(),
  endpoint_type: EndpointTypeSchema,
  s3_endpoint: Type.String(),
});
export type ApiBucket = Static<typeof BucketSchema>;
export const BucketPage = PageOf(BucketSchema);
export const BucketParams = Type.Object({ clusterId: Type.String(), bucket: Type.String() });

export const CreateBucketBody = Type.Object({
  label: Type.String(),
  /** Deprecated by the provider in favour of `region`: one of the two is needed. */
  cluster: Type.Optional(Type.String()),
  region: Type.Optional(Type.String()),
  endpoint_type: Type.Optional(EndpointTypeSchema),
  s3_endpoint: Type.Optional(Type.String()),
  cors_enabled: Type.Optional(Type.Boolean({ default: false })),
  acl: Type.Optional(BucketAclSchema),
});
export type CreateBucket = Static<typeof CreateBucketBody>;

export const AccessBody = Type.Object({
  cors_enabled: Type.Optional(Type.Boolean()),
  acl: Type.Optional(AclSchema),
});
export type BucketAccess = Static<typeof AccessBody>;
export const AccessSchema = Type.Object({
  acl: AclSchema,
  acl_xml: Type.String(),
  cors_enabled: Type.Boolean(),
  cors_xml: Nullable(Type.String()),
});
export type ApiBucketAccessConfig = Static<typeof AccessSchema>;

export const ObjectAclQuery = Type.Object({ name: Type.String() });
export const ObjectAclBody = Type.Object({ acl: AclSchema, name: Type.String() });
export type ObjectAclUpdate = Static<typeof ObjectAclBody>;
export const ObjectAclSchema = Type.Object({ acl: AclSchema, acl_xml: Type.String() });
export type ApiObjectAcl = Static<typeof ObjectAclSchema>;

export const ObjectListQuery = Type.Object({
  marker: Type.Optional(Type.String()),
  delimiter: Type.Optional(Type.String()),
  prefix: Type.Optional(Type.String()),
  page_size: Type.Optional(Type.Integer({ minimum: 25, maximum: 500, default: 100 })),
});
export type ObjectListParams = Static<typeof ObjectListQuery>;

export const ObjectSchema = Type.Object({
  name: Type.String(),
  etag: Type.Optional(Type.String()),
  last_modified: Type.Optional(Type.String()),
  owner: Type.Optional(Type.String()),
  size: Type.Optional(Type.Integer()),
});
export type ApiObject = Static<typeof ObjectSchema>;
export const ObjectListSchema = Type.Object({
  data: Type.Array(ObjectSchema),
  next_marker: Nullable(Type.String()),
  is_truncated: Type.Boolean(),
});
export type ApiObjectList = Static<typeof ObjectListSchema>;

export const ObjectUrlBody = Type.Object({
  method: Type.String({ default: 'GET' }),
  name: Type.String(),
  content_type: Type.Optional(Type.String()),
  expires_in: Type.Optional(Type.Integer({ minimum: 360, maximum: 86400, default: 3600 })),
});
export type ObjectUrlRequest = Static<typeof ObjectUrlBody>;
export const ObjectUrlSchema = Type.Object({
  url: Type.String(),
  /** Whether the object exists now (the URL is made either way). */
  exists: Type.Boolean(),
});

export const SslBody = Type.Object({ certificate: Type.String(), private_key: Type.String() });
export type SslUpload = Static<typeof SslBody>;
export const SslSchema = Type.Object({ ssl: Type.Boolean() });

const KeyPermission = lit(['read_write', 'read_only'] as const);
export const BucketAccessItem = Type.Object({
  cluster: Type.String(),
  region: Type.String(),
  bucket_name: Type.String(),
  permissions: KeyPermission,
});
export type ApiBucketAccess = Static<typeof BucketAccessItem>;
/** A requested entry names its bucket's `region` or (deprecated) `cluster`. */
export const BucketAccessRequest = Type.Object({
  cluster: Type.Optional(Type.String()),
  region: Type.Optional(Type.String()),
  bucket_name: Type.String(),
  permissions: KeyPermission,
});
export type BucketAccessRequestT = Static<typeof BucketAccessRequest>;
export const KeyRegionSchema = Type.Object({
  id: Type.String(),
  s3_endpoint: Type.String(),
  endpoint_type: EndpointTypeSchema,
});
export type ApiKeyRegion = Static<typeof KeyRegionSchema>;

export const KeySchema = Type.Object({
  id: Type.Integer(),
  label: Type.String(),
  access_key: Type.String(),
  secret_key: Type.String(),
  limited: Type.Boolean(),
  bucket_access: Nullable(Type.Array(BucketAccessItem)),
  regions: Type.Array(KeyRegionSchema),
});
export type ApiKey = Static<typeof KeySchema>;
export const KeyPage = PageOf(KeySchema);
export const KeyParams = Type.Object({ keyId: Type.Integer() });
export const CreateKeyBody = Type.Object({
  label: Type.Optional(Type.String()),
  bucket_access: Type.Optional(Type.Array(BucketAccessRequest)),
  /** The regions the key works in (none given: every region). */
  regions: Type.Optional(Type.Array(Type.String())),
});
export type CreateKey = Static<typeof CreateKeyBody>;
export const UpdateKeyBody = Type.Object({
  label: Type.Optional(Type.String()),
  regions: Type.Optional(Type.Array(Type.String())),
});
export type UpdateKey = Static<typeof UpdateKeyBody>;

export const TransferSchema = Type.Object({ used: Type.Integer() });

export const EndpointSchema = Type.Object({
  region: Type.String(),
  endpoint_type: EndpointTypeSchema,
  s3_endpoint: Nullable(Type.String()),
});
export type ApiEndpoint = Static<typeof EndpointSchema>;
export const EndpointPage = PageOf(EndpointSchema);

export const QuotaSchema = Type.Object({
  quota_id: Type.String(),
  quota_name: Type.String(),
  quota_type: Type.String(),
  endpoint_type: EndpointTypeSchema,
  s3_endpoint: Type.String(),
  description: Type.String(),
  quota_limit: Type.Integer(),
  resource_metric: Type.String(),
  has_usage: Type.Boolean(),
});
export type ApiQuota = Static<typeof QuotaSchema>;
export const QuotaPage = PageOf(QuotaSchema);
export const GlobalQuotaSchema = Type.Object({
  quota_id: Type.String(),
  quota_name: Type.String(),
  quota_type: Type.String(),
  description: Type.String(),
  quota_limit: Type.Integer(),
  resource_metric: Type.String(),
  has_usage: Type.Boolean(),
});
export type ApiGlobalQuota = Static<typeof GlobalQuotaSchema>;
export const GlobalQuotaPage = PageOf(GlobalQuotaSchema);
export const QuotaParams = Type.Object({ quotaId: Type.String() });
export const QuotaUsageSchema = Type.Object({
  quota_limit: Type.Integer(),
  usage: Nullable(Type.Integer()),
});
export type ApiQuotaUsage = Static<typeof QuotaUsageSchema>;
