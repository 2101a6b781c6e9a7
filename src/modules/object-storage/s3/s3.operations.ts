import { header } from './s3.auth.js';
import type { S3Call } from './s3.context.js';

/** The S3 operation a request asks for, by S3's names (logs, metrics, dispatch). */
export type S3Operation =
  | 'ListBuckets'
  | 'CreateBucket'
  | 'DeleteBucket'
  | 'HeadBucket'
  | 'ListObjects'
  | 'ListObjectsV2'
  | 'GetBucketAcl'
  | 'PutBucketAcl'
  | 'GetBucketCors'
  | 'PutBucketCors'
  | 'DeleteBucketCors'
  | 'GetBucketLocation'
  | 'GetBucketVersioning'
  | 'ListMultipartUploads'
  | 'DeleteObjects'
  | 'GetObject'
  | 'HeadObject'
  | 'PutObject'
  | 'PostObject'
  | 'CopyObject'
  | 'DeleteObject'
  | 'GetObjectAcl'
  | 'PutObjectAcl'
  | 'CreateMultipartUpload'
  | 'UploadPart'
  | 'UploadPartCopy'
  | 'CompleteMultipartUpload'
  | 'AbortMultipartUpload'
  | 'ListParts'
  | 'NotImplemented'
  | 'MethodNotAllowed';

/** Names the operation from the method, the path's shape and the sub-resource parameters. */
export function s3Operation(
  c: Pick<S3Call, 'method' | 'bucket' | 'key' | 'query' | 'req'>,
): S3Operation {
  const { method, query: q } = c;
  if (c.bucket === undefined) return method === 'GET' ? 'ListBuckets' : 'MethodNotAllowed';
  if (c.key === undefined) {
    switch (method) {
      case 'GET':
        if (q.has('acl')) return 'GetBucketAcl';
        if (q.has('cors')) return 'GetBucketCors';
        if (q.has('location')) return 'GetBucketLocation';
        if (q.has('uploads')) return 'ListMultipartUploads';
        if (q.has('versioning')) return 'GetBucketVersioning';
        if (q.has('policy') || q.has('lifecycle') || q.has('website') || q.has('tagging'))
          return 'NotImplemented';
        return q.get('list-type') === '2' ? 'ListObjectsV2' : 'ListObjects';
      case 'HEAD':
        return 'HeadBucket';
      case 'PUT':
        if (q.has('acl')) return 'PutBucketAcl';
        if (q.has('cors')) return 'PutBucketCors';
        if (
          q.has('policy') ||
          q.has('lifecycle') ||
          q.has('website') ||
          q.has('tagging') ||
          q.has('versioning')
        )
          return 'NotImplemented';
        return 'CreateBucket';
      case 'DELETE':
        return q.has('cors') ? 'DeleteBucketCors' : 'DeleteBucket';
      case 'POST':
        return q.has('delete') ? 'DeleteObjects' : 'MethodNotAllowed';
      default:
        return 'MethodNotAllowed';
    }
  }
  switch (method) {
    case 'GET':
      if (q.has('acl')) return 'GetObjectAcl';
      if (q.has('uploadId')) return 'ListParts';
      return q.has('tagging') ? 'NotImplemented' : 'GetObject';
    case 'HEAD':
      return 'HeadObject';
    case 'PUT':
      if (q.has('acl')) return 'PutObjectAcl';
      if (q.has('tagging')) return 'NotImplemented';
      if (q.has('uploadId') && q.has('partNumber'))
        return header(c.req, 'x-amz-copy-source') !== undefined ? 'UploadPartCopy' : 'UploadPart';
      return header(c.req, 'x-amz-copy-source') !== undefined ? 'CopyObject' : 'PutObject';
    case 'POST':
      if (q.has('uploads')) return 'CreateMultipartUpload';
      if (q.has('uploadId')) return 'CompleteMultipartUpload';
      return 'PostObject';
    case 'DELETE':
      return q.has('uploadId') ? 'AbortMultipartUpload' : 'DeleteObject';
    default:
      return 'MethodNotAllowed';
  }
}
