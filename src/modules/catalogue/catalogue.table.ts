export interface RegionsTable {
  id: string;
  /** The full record, JSON. */
  data: string;
}

export interface TypesTable {
  id: string;
  label: string;
  class: string;
  disk: number;
  memory: number;
  vcpus: number;
  gpus: number;
  transfer: number;
  network_out: number;
  data: string;
}

export interface KernelsTable {
  id: string;
  label: string;
  version: string;
  kvm: number;
  architecture: string;
  pvops: number;
  deprecated: number;
  built: string;
  data: string;
}

export interface ImagesTable {
  id: string;
  /** null for public images. */
  account_id: number | null;
  label: string;
  deprecated: number;
  is_public: number;
  size: number;
  type: string;
  vendor: string | null;
  status: string;
  created: string;
  data: string;
  /** The private image's id (`private/<id>`), for grants; null for public images. */
  private_id?: number | null;
  /** A share group entry's number (`shared/<n>`), listed to the group's members; else null. */
  share_id?: number | null;
}

export interface RegionAvailabilityTable {
  region: string;
  plan: string;
  available: number;
}

export interface CatalogueTables {
  region_availability: RegionAvailabilityTable;
  regions: RegionsTable;
  types: TypesTable;
  kernels: KernelsTable;
  images: ImagesTable;
}
