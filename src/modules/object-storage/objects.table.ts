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
}

/** One stored piece of an object's bytes (one for a simple upload, one per part for multipart). */
export interface BlobRef {
  key: string;
  size: number;
}

export interface ObjObjectsTable {
  id: Generated<number>;
  bucket_id: number;
  name: string;
  size: number | string;
  etag: string;
  content_type: string;
  acl: ObjectAcl;
  /** JSON object of user metadata (`x-amz-meta-*`, lower-case names). */
  metadata: string;
  /** JSON array of BlobRef, in order. */
  blobs: string;
  last_modified: string;
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
}

export interface ObjPartsTable {
  upload_id: number;
  part_number: number;
  size: number | string;
  etag: string;
  blob: string;
  last_modified: string;
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
