import type { IncomingMessage } from 'node:http';

/** What a request addresses: the service (`/`), a bucket (`/b`) or an object (`/b/k`). */
export type S3Target = 'service' | 'bucket' | 'object';

/** One operation of the S3 API as the wire tells it apart: method, target, sub-resource, header. */
export interface S3OperationSpec {
  /** The operation's name in the S3 API (the AWS SDK's command without `Command`). */
  name: string;
  method: 'GET' | 'HEAD' | 'PUT' | 'POST' | 'DELETE' | 'OPTIONS';
  target: S3Target;
  /** Query parameters the request must carry (sub-resources, or required parameters). */
  query?: readonly string[];
  /** Query parameters that must carry these values. */
  values?: Readonly<Record<string, string>>;
  /** A header the request must carry (`x-amz-copy-source` tells a copy from a write). */
  header?: string;
  /**
   * Wire-identical to this other operation (an older name of the same request, or one the
   * provider's endpoint cannot tell apart): such a request is that operation.
   */
  sameAs?: string;
  /** Served by the handler of this operation (a second wire form of it). */
  servedAs?: string;
  /** Whether the provider's object storage offers it (its documentation or its clients). */
  provider: boolean;
  /** False for requests S3 serves outside its API model (POST Object, CORS preflight). */
  model?: boolean;
}

const op = (
  name: string,
  method: S3OperationSpec['method'],
  target: S3Target,
  more: Partial<Omit<S3OperationSpec, 'name' | 'method' | 'target'>> = {},
): S3OperationSpec => ({ name, method, target, provider: false, ...more });
const P = { provider: true } as const;
const q = (...query: string[]) => ({ query });

/**
 * Every operation of the S3 API: the commands of the AWS SDK's service model (@aws-sdk/client-s3,
 * API version 2006-03-01: botocore's 111 and the newer object annotation operations), plus the three requests S3 serves outside that model: the browser form upload (POST Object),
 * CORS preflight (OPTIONS) and the pre-signed POST of the control plane's `object-url`. A request
 * is the operation of the most specific row it matches; an operation Stratus does not serve is
 * answered `501 NotImplemented` with its name, so a request never runs as another operation.
 */
export const S3_OPERATIONS: readonly S3OperationSpec[] = [
  // The service.
  op('ListBuckets', 'GET', 'service', P),
  op('ListDirectoryBuckets', 'GET', 'service', { sameAs: 'ListBuckets' }),
  // POST /WriteGetObjectResponse (to an Object Lambda host): the path reads as a bucket.
  op('WriteGetObjectResponse', 'POST', 'bucket', { header: 'x-amz-request-route' }),
  // Buckets.
  op('CreateBucket', 'PUT', 'bucket', P),
  op('DeleteBucket', 'DELETE', 'bucket', P),
  op('HeadBucket', 'HEAD', 'bucket', P),
  op('ListObjects', 'GET', 'bucket', P),
  op('ListObjectsV2', 'GET', 'bucket', { ...P, values: { 'list-type': '2' } }),
  op('ListObjectVersions', 'GET', 'bucket', { ...P, ...q('versions') }),
  op('ListMultipartUploads', 'GET', 'bucket', { ...P, ...q('uploads') }),
  op('DeleteObjects', 'POST', 'bucket', { ...P, ...q('delete') }),
  op('PostObject', 'POST', 'bucket', { ...P, model: false }),
  op('GetBucketLocation', 'GET', 'bucket', { ...P, ...q('location') }),
  op('GetBucketAcl', 'GET', 'bucket', { ...P, ...q('acl') }),
  op('PutBucketAcl', 'PUT', 'bucket', { ...P, ...q('acl') }),
  op('GetBucketCors', 'GET', 'bucket', { ...P, ...q('cors') }),
  op('PutBucketCors', 'PUT', 'bucket', { ...P, ...q('cors') }),
  op('DeleteBucketCors', 'DELETE', 'bucket', { ...P, ...q('cors') }),
  op('GetBucketVersioning', 'GET', 'bucket', { ...P, ...q('versioning') }),
  op('PutBucketVersioning', 'PUT', 'bucket', { ...P, ...q('versioning') }),
  op('GetBucketPolicy', 'GET', 'bucket', { ...P, ...q('policy') }),
  op('PutBucketPolicy', 'PUT', 'bucket', { ...P, ...q('policy') }),
  op('DeleteBucketPolicy', 'DELETE', 'bucket', { ...P, ...q('policy') }),
  op('GetBucketPolicyStatus', 'GET', 'bucket', { ...P, ...q('policyStatus') }),
  op('GetBucketLifecycleConfiguration', 'GET', 'bucket', { ...P, ...q('lifecycle') }),
  op('GetBucketLifecycle', 'GET', 'bucket', {
    ...q('lifecycle'),
    sameAs: 'GetBucketLifecycleConfiguration',
  }),
  op('PutBucketLifecycleConfiguration', 'PUT', 'bucket', { ...P, ...q('lifecycle') }),
  op('PutBucketLifecycle', 'PUT', 'bucket', {
    ...q('lifecycle'),
    sameAs: 'PutBucketLifecycleConfiguration',
  }),
  op('DeleteBucketLifecycle', 'DELETE', 'bucket', { ...P, ...q('lifecycle') }),
  op('GetBucketWebsite', 'GET', 'bucket', { ...P, ...q('website') }),
  op('PutBucketWebsite', 'PUT', 'bucket', { ...P, ...q('website') }),
  op('DeleteBucketWebsite', 'DELETE', 'bucket', { ...P, ...q('website') }),
  op('GetBucketTagging', 'GET', 'bucket', { ...P, ...q('tagging') }),
  op('PutBucketTagging', 'PUT', 'bucket', { ...P, ...q('tagging') }),
  op('DeleteBucketTagging', 'DELETE', 'bucket', { ...P, ...q('tagging') }),
  op('GetObjectLockConfiguration', 'GET', 'bucket', { ...P, ...q('object-lock') }),
  op('PutObjectLockConfiguration', 'PUT', 'bucket', { ...P, ...q('object-lock') }),
  op('GetBucketAccelerateConfiguration', 'GET', 'bucket', q('accelerate')),
  op('PutBucketAccelerateConfiguration', 'PUT', 'bucket', q('accelerate')),
  op('GetBucketAbac', 'GET', 'bucket', q('abac')),
  op('PutBucketAbac', 'PUT', 'bucket', q('abac')),
  op('GetBucketAnalyticsConfiguration', 'GET', 'bucket', q('analytics', 'id')),
  op('PutBucketAnalyticsConfiguration', 'PUT', 'bucket', q('analytics', 'id')),
  op('DeleteBucketAnalyticsConfiguration', 'DELETE', 'bucket', q('analytics', 'id')),
  op('ListBucketAnalyticsConfigurations', 'GET', 'bucket', q('analytics')),
  op('GetBucketEncryption', 'GET', 'bucket', q('encryption')),
  op('PutBucketEncryption', 'PUT', 'bucket', q('encryption')),
  op('DeleteBucketEncryption', 'DELETE', 'bucket', q('encryption')),
  op('GetBucketIntelligentTieringConfiguration', 'GET', 'bucket', q('intelligent-tiering', 'id')),
  op('PutBucketIntelligentTieringConfiguration', 'PUT', 'bucket', q('intelligent-tiering', 'id')),
  op(
    'DeleteBucketIntelligentTieringConfiguration',
    'DELETE',
    'bucket',
    q('intelligent-tiering', 'id'),
  ),
  op('ListBucketIntelligentTieringConfigurations', 'GET', 'bucket', q('intelligent-tiering')),
  op('GetBucketInventoryConfiguration', 'GET', 'bucket', q('inventory', 'id')),
  op('PutBucketInventoryConfiguration', 'PUT', 'bucket', q('inventory', 'id')),
  op('DeleteBucketInventoryConfiguration', 'DELETE', 'bucket', q('inventory', 'id')),
  op('ListBucketInventoryConfigurations', 'GET', 'bucket', q('inventory')),
  op('GetBucketLogging', 'GET', 'bucket', q('logging')),
  op('PutBucketLogging', 'PUT', 'bucket', q('logging')),
  op('GetBucketMetadataConfiguration', 'GET', 'bucket', q('metadataConfiguration')),
  op('CreateBucketMetadataConfiguration', 'POST', 'bucket', q('metadataConfiguration')),
  op('DeleteBucketMetadataConfiguration', 'DELETE', 'bucket', q('metadataConfiguration')),
  op(
    'UpdateBucketMetadataInventoryTableConfiguration',
    'PUT',
    'bucket',
    q('metadataInventoryTable'),
  ),
  op('UpdateBucketMetadataJournalTableConfiguration', 'PUT', 'bucket', q('metadataJournalTable')),
  op(
    'UpdateBucketMetadataAnnotationTableConfiguration',
    'PUT',
    'bucket',
    q('metadataAnnotationTable'),
  ),
  op('GetBucketMetadataTableConfiguration', 'GET', 'bucket', q('metadataTable')),
  op('CreateBucketMetadataTableConfiguration', 'POST', 'bucket', q('metadataTable')),
  op('DeleteBucketMetadataTableConfiguration', 'DELETE', 'bucket', q('metadataTable')),
  op('GetBucketMetricsConfiguration', 'GET', 'bucket', q('metrics', 'id')),
  op('PutBucketMetricsConfiguration', 'PUT', 'bucket', q('metrics', 'id')),
  op('DeleteBucketMetricsConfiguration', 'DELETE', 'bucket', q('metrics', 'id')),
  op('ListBucketMetricsConfigurations', 'GET', 'bucket', q('metrics')),
  op('GetBucketNotificationConfiguration', 'GET', 'bucket', q('notification')),
  op('GetBucketNotification', 'GET', 'bucket', {
    ...q('notification'),
    sameAs: 'GetBucketNotificationConfiguration',
  }),
  op('PutBucketNotificationConfiguration', 'PUT', 'bucket', q('notification')),
  op('PutBucketNotification', 'PUT', 'bucket', {
    ...q('notification'),
    sameAs: 'PutBucketNotificationConfiguration',
  }),
  op('GetBucketOwnershipControls', 'GET', 'bucket', q('ownershipControls')),
  op('PutBucketOwnershipControls', 'PUT', 'bucket', q('ownershipControls')),
  op('DeleteBucketOwnershipControls', 'DELETE', 'bucket', q('ownershipControls')),
  op('GetPublicAccessBlock', 'GET', 'bucket', q('publicAccessBlock')),
  op('PutPublicAccessBlock', 'PUT', 'bucket', q('publicAccessBlock')),
  op('DeletePublicAccessBlock', 'DELETE', 'bucket', q('publicAccessBlock')),
  op('GetBucketReplication', 'GET', 'bucket', q('replication')),
  op('PutBucketReplication', 'PUT', 'bucket', q('replication')),
  op('DeleteBucketReplication', 'DELETE', 'bucket', q('replication')),
  op('GetBucketRequestPayment', 'GET', 'bucket', q('requestPayment')),
  op('PutBucketRequestPayment', 'PUT', 'bucket', q('requestPayment')),
  op('CreateSession', 'GET', 'bucket', q('session')),
  op('PreflightBucket', 'OPTIONS', 'bucket', { ...P, model: false }),
  // Objects.
  op('GetObject', 'GET', 'object', P),
  op('HeadObject', 'HEAD', 'object', P),
  op('PutObject', 'PUT', 'object', P),
  op('CopyObject', 'PUT', 'object', { ...P, header: 'x-amz-copy-source' }),
  op('DeleteObject', 'DELETE', 'object', P),
  op('GetObjectAcl', 'GET', 'object', { ...P, ...q('acl') }),
  op('PutObjectAcl', 'PUT', 'object', { ...P, ...q('acl') }),
  op('GetObjectTagging', 'GET', 'object', { ...P, ...q('tagging') }),
  op('PutObjectTagging', 'PUT', 'object', { ...P, ...q('tagging') }),
  op('DeleteObjectTagging', 'DELETE', 'object', { ...P, ...q('tagging') }),
  op('GetObjectRetention', 'GET', 'object', { ...P, ...q('retention') }),
  op('PutObjectRetention', 'PUT', 'object', { ...P, ...q('retention') }),
  op('GetObjectLegalHold', 'GET', 'object', { ...P, ...q('legal-hold') }),
  op('PutObjectLegalHold', 'PUT', 'object', { ...P, ...q('legal-hold') }),
  op('GetObjectAttributes', 'GET', 'object', {
    ...P,
    ...q('attributes'),
  }),
  op('CreateMultipartUpload', 'POST', 'object', { ...P, ...q('uploads') }),
  op('UploadPart', 'PUT', 'object', { ...P, ...q('partNumber', 'uploadId') }),
  op('UploadPartCopy', 'PUT', 'object', {
    ...P,
    ...q('partNumber', 'uploadId'),
    header: 'x-amz-copy-source',
  }),
  op('CompleteMultipartUpload', 'POST', 'object', { ...P, ...q('uploadId') }),
  op('AbortMultipartUpload', 'DELETE', 'object', { ...P, ...q('uploadId') }),
  op('ListParts', 'GET', 'object', { ...P, ...q('uploadId') }),
  // The control plane's object-url pre-signs POST to an object (SigV4): a write of the object.
  op('PostObjectUrl', 'POST', 'object', {
    ...P,
    ...q('X-Amz-Signature'),
    servedAs: 'PutObject',
    model: false,
  }),
  op('PreflightObject', 'OPTIONS', 'object', { ...P, model: false }),
  op('RestoreObject', 'POST', 'object', q('restore')),
  // S3 also wants `select-type=2`; any `select` request is this operation.
  op('SelectObjectContent', 'POST', 'object', q('select')),
  op('GetObjectTorrent', 'GET', 'object', q('torrent')),
  op('RenameObject', 'PUT', 'object', { ...q('renameObject'), header: 'x-amz-rename-source' }),
  op('UpdateObjectEncryption', 'PUT', 'object', q('encryption')),
  op('GetObjectAnnotation', 'GET', 'object', q('annotation', 'annotationName')),
  op('PutObjectAnnotation', 'PUT', 'object', q('annotation', 'annotationName')),
  op('DeleteObjectAnnotation', 'DELETE', 'object', q('annotation', 'annotationName')),
  op('ListObjectAnnotations', 'GET', 'object', q('annotation')),
];

const BY_NAME = new Map(S3_OPERATIONS.map((o) => [o.name, o]));

/** The operation row of a name (every name the dispatcher returns has one). */
export function s3OperationSpec(name: string): S3OperationSpec | undefined {
  return BY_NAME.get(name);
}

/** What the dispatcher reads of a request to name its operation. */
export interface OperationInput {
  method: string;
  bucket: string | undefined;
  key: string | undefined;
  query: ReadonlyMap<string, string>;
  headers: IncomingMessage['headers'];
}

// A second wire form of an operation (the pre-signed POST) yields to any operation proper.
const specificity = (o: S3OperationSpec) =>
  2 * (o.query?.length ?? 0) +
  Object.keys(o.values ?? {}).length +
  (o.header ? 1 : 0) -
  (o.servedAs ? 1 : 0);

/**
 * The operation a request asks for: the most specific row of `S3_OPERATIONS` whose method,
 * target, query parameters and header it has; a wire-identical alias resolves to the operation
 * it is the same as. Undefined when no operation has that method on that target (405).
 */
export function s3Operation(r: OperationInput): S3OperationSpec | undefined {
  const target: S3Target =
    r.bucket === undefined ? 'service' : r.key === undefined ? 'bucket' : 'object';
  let best: S3OperationSpec | undefined;
  for (const o of S3_OPERATIONS) {
    if (o.method !== r.method || o.target !== target || o.sameAs !== undefined) continue;
    if (o.query && !o.query.every((k) => r.query.has(k))) continue;
    if (o.values && !Object.entries(o.values).every(([k, v]) => r.query.get(k) === v)) continue;
    if (o.header && r.headers[o.header] === undefined) continue;
    if (!best || specificity(o) > specificity(best)) best = o;
  }
  return best;
}
