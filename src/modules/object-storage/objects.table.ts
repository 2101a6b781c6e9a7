import type { Generated } from 'kysely';

export type BucketAcl = 'private' | 'public-read' | 'authenticated-read' | 'public-read-write';
export type ObjectAcl = BucketAcl | 'custom';
export type KeyPermission = 'read_only' | 'read_write';

export interface ObjKeyringTable {
  name: string;
  value: string;
}

export interface ObjBucketsTable {
  id: Generated<number>;
  account_id: number;
  cluster: string;
  label: string;
  acl: ObjectAcl;
  cors_enabled: number;
  /** Bytes stored (billing reads it). bigint on PostgreSQL: read through Number(). */
  size: Generated<number | string>;
  objects: Generated<number>;
  /** Bytes received and sent by the data plane since the bucket was created. */
  bytes_in: Generated<number | string>;
  bytes_out: Generated<number | string>;
  ssl_cert: string | null;
  /** The TLS private key, sealed with the keyring (never stored in clear). */
  ssl_key_sealed: string | null;
  created: string;
  /** S3 versioning: null (never enabled), 'Enabled' or 'Suspended'. */
  versioning: string | null;
  /** Object lock was enabled at creation (it cannot be turned off). */
  object_lock: Generated<number>;
  /** JSON: the object lock default retention ({mode, days} or {mode, years}), or null. */
  lock_config: string | null;
  /** JSON Grant[] when `acl` is 'custom' (a canned `acl` is its own grants). */
  grants: string | null;
  /** The bucket policy document, as stored (JSON text), or null. */
  policy: string | null;
  /** JSON CorsRule[] (PutBucketCors); null with `cors_enabled` is CORS for all origins. */
  cors: string | null;
  /** JSON LifecycleRule[], or null. */
  lifecycle: string | null;
  /** JSON website configuration, or null. */
  website: string | null;
  /** JSON object of bucket tags, or null. */
  tags: string | null;
}

/** One stored piece of an object's bytes (one for a simple upload, one per part for multipart). */
export interface BlobRef {
  key: string;
  size: number;
}

/**
 * One version of an object (or a delete marker). Unversioned buckets keep one row per name, with
 * version id 'null'; exactly one row per name is the latest.
 */
export interface ObjObjectsTable {
  id: Generated<number>;
  bucket_id: number;
  name: string;
  /** 'null' for the null version. */
  version_id: Generated<string>;
  is_latest: Generated<number>;
  delete_marker: Generated<number>;
  size: number | string;
  etag: string;
  content_type: string;
  acl: ObjectAcl;
  /** JSON Grant[] when `acl` is 'custom'. */
  grants: string | null;
  /** The account that wrote this version; null: the bucket's owner. */
  owner_id: number | null;
  /** JSON object of user metadata (`x-amz-meta-*`, lower-case names) and kept headers. */
  metadata: string;
  /** JSON array of BlobRef, in order. */
  blobs: string;
  last_modified: string;
  /** JSON object of object tags, or null. */
  tags: string | null;
  /** Object lock retention: 'GOVERNANCE' | 'COMPLIANCE', until an ISO time (ms). */
  lock_mode: string | null;
  lock_until: string | null;
  legal_hold: Generated<number>;
  /** JSON SseRecord of a customer-encrypted (SSE-C) version, or null. */
  sse: string | null;
}

export interface ObjKeysTable {
  id: Generated<number>;
  account_id: number;
  /**
   * The user who created it (removed with that user); null for the account's internal key and
   * keys made before owners were recorded.
   */
  user_id: number | null;
  label: string;
  access_key: string;
  /** The secret, sealed with the keyring: SigV4 needs it back to verify signatures. */
  secret_sealed: string;
  limited: number;
  /** The account's internal key that signs the control plane's pre-signed URLs (never listed). */
  system: number;
  /** The regions it works in: a JSON array of region ids; null for every region. */
  regions: string | null;
  created: string;
}

export interface ObjKeyBucketsTable {
  key_id: number;
  cluster: string;
  bucket_name: string;
  permissions: KeyPermission;
}

export interface ObjUploadsTable {
  id: Generated<number>;
  upload_id: string;
  bucket_id: number;
  name: string;
  content_type: string;
  acl: ObjectAcl;
  metadata: string;
  created: string;
  grants: string | null;
  owner_id: number | null;
  tags: string | null;
  lock_mode: string | null;
  lock_until: string | null;
  legal_hold: Generated<number>;
  sse: string | null;
  /** JSON {versionId, etag} once completed (the row stays to answer a repeated complete). */
  completed: string | null;
}

export interface ObjPartsTable {
  upload_id: number;
  part_number: number;
  size: number | string;
  etag: string;
  blob: string;
  last_modified: string;
  /** JSON SseRecord when the part's blob is customer-encrypted. */
  sse: string | null;
}

export interface ObjTransferTable {
  account_id: number;
  /** `YYYY-MM` (UTC). */
  month: string;
  bytes_out: Generated<number | string>;
  bytes_in: Generated<number | string>;
}

export interface ObjectStorageTables {
  obj_keyring: ObjKeyringTable;
  obj_buckets: ObjBucketsTable;
  obj_objects: ObjObjectsTable;
  obj_keys: ObjKeysTable;
  obj_key_buckets: ObjKeyBucketsTable;
  obj_uploads: ObjUploadsTable;
  obj_parts: ObjPartsTable;
  obj_transfer: ObjTransferTable;
}
