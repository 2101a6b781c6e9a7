import type { Generated } from 'kysely';

export type PrivateImageStatus = 'creating' | 'pending_upload' | 'available';

/** A private image's own state; its listed record is the `images` row `private/<id>`. */
export interface PrivateImagesTable {
  id: Generated<number>;
  account_id: number;
  label: string;
  description: string | null;
  status: PrivateImageStatus;
  /** MB: the source disk's size, or the uploaded raw image's size. */
  size: number;
  cloud_init: number;
  /** The image's first region: the region an upload was made to, or the captured instance's. */
  region: string | null;
  created_by: string;
  source_instance_id: number | null;
  source_disk_id: number | null;
  filesystem: string;
  /** SHA-256 of the upload URL's secret, while the upload is pending. */
  upload_token_hash: string | null;
  /** Epoch ms after which a pending upload is cancelled. */
  upload_expires: number | null;
  upload_event_id: number | null;
  /** Bytes kept in the blob store (the compressed upload). */
  stored_bytes: number;
  /** The upload's blob in the `images` blob store (null until the bytes are in). */
  blob_key: string | null;
  created: string;
  updated: string;
}

/** A replica's status, as the wire spells it (with spaces). */
export type ImageReplicaStatus =
  | 'pending replication'
  | 'replicating'
  | 'available'
  | 'pending deletion';

/** One region a private image is stored in (`POST /images/{id}/regions` adds and removes them). */
export interface ImageRegionsTable {
  /** Insertion order: replicas are listed in the order they were added. */
  id: Generated<number>;
  image_id: number;
  region: string;
  status: ImageReplicaStatus;
  created: string;
}

export interface ImageTables {
  private_images: PrivateImagesTable;
  image_regions: ImageRegionsTable;
}
