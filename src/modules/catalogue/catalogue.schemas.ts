import { Type } from '@sinclair/typebox';
import { DateTime, Nullable, PageOf } from '../../http/schemas/common.js';

const Price = Type.Object({ hourly: Type.Number(), monthly: Type.Number() });
const RegionPrice = Type.Object({
  id: Type.String(),
  hourly: Type.Number(),
  monthly: Type.Number(),
});

export const RegionSchema = Type.Object({
  id: Type.String(),
  label: Type.String(),
  country: Type.String(),
  capabilities: Type.Array(Type.String()),
  status: Type.String({ enum: ['ok', 'outage'] }),
  resolvers: Type.Object({ ipv4: Type.String(), ipv6: Type.String() }),
  /**
   * `core` data centers or `distributed` sites (the shipped catalogue has three: instances of
   * the distributed plans only, no Block Storage, NodeBalancers, VPCs, VLANs or backups).
   */
  site_type: Type.String({ enum: ['core', 'distributed'] }),
  /** The services monitored there: none (Stratus serves no monitoring). */
  monitors: Type.Object({
    alerts: Type.Array(Type.String()),
    metrics: Type.Array(Type.String()),
  }),
  placement_group_limits: Type.Object({
    maximum_pgs_per_customer: Nullable(Type.Integer()),
    maximum_computes_per_pg: Type.Integer(),
    maximum_computes_per_flexible_pg: Type.Integer(),
  }),
});

export const RegionAvailabilitySchema = Type.Object({
  region: Type.String(),
  plan: Type.String(),
  available: Type.Boolean(),
});

export const TypeSchema = Type.Object({
  id: Type.String(),
  label: Type.String(),
  class: Type.String({ enum: ['nanode', 'standard', 'dedicated', 'premium', 'gpu', 'highmem'] }),
  disk: Type.Integer(),
  memory: Type.Integer(),
  vcpus: Type.Integer(),
  gpus: Type.Integer(),
  network_out: Type.Integer(),
  transfer: Type.Integer(),
  price: Price,
  region_prices: Type.Array(RegionPrice),
  addons: Type.Object({
    backups: Type.Object({ price: Price, region_prices: Type.Array(RegionPrice) }),
  }),
  successor: Nullable(Type.String()),
});

export const KernelSchema = Type.Object({
  id: Type.String(),
  label: Type.String(),
  version: Type.String(),
  kvm: Type.Boolean(),
  architecture: Type.String({ enum: ['x86_64', 'i386'] }),
  pvops: Type.Boolean(),
  deprecated: Type.Boolean(),
  built: DateTime(),
});

export const ImageSchema = Type.Object({
  id: Type.String(),
  label: Type.String(),
  description: Nullable(Type.String()),
  created: DateTime(),
  updated: DateTime(),
  /** Null on a shared image (`shared/<n>`), as on the share group entries it is. */
  created_by: Nullable(Type.String()),
  deprecated: Type.Boolean(),
  is_public: Type.Boolean(),
  size: Type.Integer(),
  /** `shared`: an image of a share group the account is a member of (`shared/<n>`). */
  type: Type.String({ enum: ['manual', 'automatic', 'shared'] }),
  expiry: Nullable(DateTime()),
  eol: Nullable(DateTime()),
  vendor: Nullable(Type.String()),
  status: Type.String({ enum: ['creating', 'pending_upload', 'available'] }),
  capabilities: Type.Array(Type.String()),
  /** Private images carry tags (public ones: always empty). */
  tags: Type.Array(Type.String()),
  /** A private image's replicas (`POST /images/{id}/regions`); null for public images. */
  regions: Nullable(
    Type.Array(
      Type.Object({
        region: Type.String(),
        status: Type.String({
          enum: ['pending replication', 'replicating', 'available', 'pending deletion'],
        }),
      }),
    ),
  ),
  /** MB stored across the available replicas (`size` × their number); private images only. */
  total_size: Type.Optional(Type.Integer()),
  /** Whether a private image is shared in a share group; null on a shared image. */
  is_shared: Nullable(Type.Boolean()),
  /**
   * Private images: the share groups they are shared in (`shared_with`); shared images: the
   * group that shares them (`shared_by`, the source image hidden); public images: null.
   */
  image_sharing: Nullable(
    Type.Object({
      shared_with: Nullable(
        Type.Object({ sharegroup_count: Type.Integer(), sharegroup_list_url: Type.String() }),
      ),
      shared_by: Nullable(
        Type.Object({
          sharegroup_id: Type.Integer(),
          sharegroup_uuid: Type.String(),
          sharegroup_label: Type.String(),
          source_image_id: Nullable(Type.String()),
        }),
      ),
    }),
  ),
});

export const RegionPage = PageOf(RegionSchema);
export const RegionAvailabilityPage = PageOf(RegionAvailabilitySchema);
export const TypePage = PageOf(TypeSchema);
export const KernelPage = PageOf(KernelSchema);
export const ImagePage = PageOf(ImageSchema);
