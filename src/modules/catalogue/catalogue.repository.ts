import type { Database } from '../../db/database.js';
import { fromBool } from '../../db/database.js';
import type { FilterSpec } from '../../lib/filter.js';
import { type CatalogueData, regionAvailability } from './catalogue.data.js';

export const TYPE_FILTERS: FilterSpec = {
  label: { kind: 'string', column: 'types.label' },
  class: { kind: 'string', column: 'types.class' },
  disk: { kind: 'int', column: 'types.disk' },
  memory: { kind: 'int', column: 'types.memory' },
  vcpus: { kind: 'int', column: 'types.vcpus' },
  gpus: { kind: 'int', column: 'types.gpus' },
  transfer: { kind: 'int', column: 'types.transfer' },
  network_out: { kind: 'int', column: 'types.network_out' },
};

export const KERNEL_FILTERS: FilterSpec = {
  label: { kind: 'string', column: 'kernels.label' },
  version: { kind: 'string', column: 'kernels.version' },
  kvm: { kind: 'bool', column: 'kernels.kvm' },
  architecture: { kind: 'string', column: 'kernels.architecture' },
  pvops: { kind: 'bool', column: 'kernels.pvops' },
  deprecated: { kind: 'bool', column: 'kernels.deprecated' },
};

export const IMAGE_FILTERS: FilterSpec = {
  label: { kind: 'string', column: 'images.label' },
  deprecated: { kind: 'bool', column: 'images.deprecated' },
  is_public: { kind: 'bool', column: 'images.is_public' },
  size: { kind: 'int', column: 'images.size' },
  type: { kind: 'string', column: 'images.type' },
  vendor: { kind: 'string', column: 'images.vendor' },
  // The reference forbids ordering by image status.
  status: { kind: 'string', column: 'images.status', orderable: false },
};

export const AVAILABILITY_FILTERS: FilterSpec = {
  region: { kind: 'string', column: 'region_availability.region' },
  plan: { kind: 'string', column: 'region_availability.plan' },
  available: { kind: 'bool', column: 'region_availability.available' },
};

/** Regions have no filterable fields. */
export const REGION_FILTERS: FilterSpec = {};

/**
 * Loads the shipped catalogue into its tables (replacing the previous copy) so that lists are
 * filtered and paged in SQL like every other collection. Private images are left alone.
 */
export async function seedCatalogue(db: Database, data: CatalogueData): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.db.deleteFrom('regions').execute();
    await tx.db.deleteFrom('types').execute();
    await tx.db.deleteFrom('kernels').execute();
    await tx.db.deleteFrom('region_availability').execute();
    await tx.db.deleteFrom('images').where('account_id', 'is', null).execute();
    await tx.db
      .insertInto('regions')
      .values(data.regions.map((r) => ({ id: r.id, data: JSON.stringify(r) })))
      .execute();
    await tx.db
      .insertInto('types')
      .values(
        data.types.map((t) => ({
          id: t.id,
          label: t.label,
          class: t.class,
          disk: t.disk,
          memory: t.memory,
          vcpus: t.vcpus,
          gpus: t.gpus,
          transfer: t.transfer,
          network_out: t.network_out,
          data: JSON.stringify(t),
        })),
      )
      .execute();
    await tx.db
      .insertInto('kernels')
      .values(
        data.kernels.map((k) => ({
          id: k.id,
          label: k.label,
          version: k.version,
          kvm: fromBool(k.kvm),
          architecture: k.architecture,
          pvops: fromBool(k.pvops),
          deprecated: fromBool(k.deprecated),
          built: k.built,
          data: JSON.stringify(k),
        })),
      )
      .execute();
    await tx.db
      .insertInto('images')
      .values(
        data.images.map((i) => ({
          id: i.id,
          account_id: null,
          label: i.label,
          deprecated: fromBool(i.deprecated),
          is_public: 1,
          size: i.size,
          type: i.type,
          vendor: i.vendor,
          status: i.status,
          created: i.created,
          data: JSON.stringify(i),
        })),
      )
      .execute();
    const avail = regionAvailability(data);
    for (let i = 0; i < avail.length; i += 200) {
      await tx.db
        .insertInto('region_availability')
        .values(avail.slice(i, i + 200).map((a) => ({ ...a, available: fromBool(a.available) })))
        .execute();
    }
  });
}
