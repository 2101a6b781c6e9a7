import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { s3Operation } from './s3.operations.js';

const op = (method: string, path: string, query = '', headers: Record<string, string> = {}) => {
  const [bucket, ...rest] = path.split('/').filter((s, i) => i > 0 || s !== '');
  return s3Operation({
    method,
    bucket: bucket || undefined,
    key: rest.length > 0 ? rest.join('/') : undefined,
    query: new Map(new URLSearchParams(query)),
    req: { headers } as unknown as IncomingMessage,
  });
};

describe('s3Operation', () => {
  it('s3Operation: names requests by method, path shape and sub-resource', () => {
    expect(op('GET', '')).toBe('ListBuckets');
    expect(op('PUT', 'b')).toBe('CreateBucket');
    expect(op('GET', 'b', 'list-type=2')).toBe('ListObjectsV2');
    expect(op('GET', 'b')).toBe('ListObjects');
    expect(op('POST', 'b', 'delete=')).toBe('DeleteObjects');
    expect(op('PUT', 'b/k')).toBe('PutObject');
    expect(op('PUT', 'b/k', '', { 'x-amz-copy-source': '/b/j' })).toBe('CopyObject');
    expect(op('PUT', 'b/k', 'partNumber=1&uploadId=u')).toBe('UploadPart');
    expect(op('POST', 'b/k', 'uploads=')).toBe('CreateMultipartUpload');
    expect(op('POST', 'b/k', 'uploadId=u')).toBe('CompleteMultipartUpload');
    expect(op('DELETE', 'b/k', 'uploadId=u')).toBe('AbortMultipartUpload');
    expect(op('GET', 'b/k', 'acl=')).toBe('GetObjectAcl');
    expect(op('PUT', 'b', 'policy=')).toBe('NotImplemented');
    expect(op('PATCH', 'b/k')).toBe('MethodNotAllowed');
  });
});
