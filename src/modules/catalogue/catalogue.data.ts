import fs from 'node:fs';
import type { Static } from '@sinclair/typebox';
import type { ImageSchema, KernelSchema, RegionSchema, TypeSchema } from './catalogue.schemas.js';

export type Region = Static<typeof RegionSchema>;
export type InstanceType = Static<typeof TypeSchema>;
export type Kernel = Static<typeof KernelSchema>;
export type Image = Static<typeof ImageSchema>;

export interface RegionExtras {
  volume_hardware_type: 'nvme' | 'hdd';
  /** Where the region's dual-stack VPCs take their IPv6 ranges (regions with `VPC Dual Stack`). */
  vpc_ipv6_pool?: string;
}
export interface ImageExtras {
  min_disk_mb: number;
  filesystem: string;
}

function load<T>(name: string): T {
  return JSON.parse(fs.readFileSync(new URL(`./data/${name}`, import.meta.url), 'utf8')) as T;
}

/** The catalogue shipped with the project: read once, immutable. */
export interface CatalogueData {
  regions: readonly Region[];
  regionExtras: Readonly<Record<string, RegionExtras>>;
  types: readonly InstanceType[];
  kernels: readonly Kernel[];
  images: readonly Image[];
  imageExtras: Readonly<Record<string, ImageExtras>>;
}

let cached: CatalogueData | undefined;

export function catalogueData(): CatalogueData {
  cached ??= Object.freeze({
    regions: load<Region[]>('regions.json'),
    regionExtras: load<Record<string, RegionExtras>>('region-extras.json'),
    types: load<InstanceType[]>('types.json'),
    kernels: load<Kernel[]>('kernels.json'),
    images: load<Image[]>('images.json'),
    imageExtras: load<Record<string, ImageExtras>>('image-extras.json'),
  });
  return cached;
}

/**
 * The plans sold only at distributed sites (capability `Distributed Plans`): the provider's web
 * manager tells them by their ids (`nanode-edge-…`, `g6-dedicated-edge-…`), and a distributed
 * site offers no other plan.
 */
export function isDistributedPlan(type: { id: string }): boolean {
  return type.id.includes('nanode-edge') || type.id.includes('dedicated-edge');
}

/** Plans whose availability varies by region, and whether a region offers each (deterministic). */
export function regionAvailability(
  data: CatalogueData,
): { region: string; plan: string; available: boolean }[] {
  const out: { region: string; plan: string; available: boolean }[] = [];
  for (const r of data.regions) {
    if (!r.capabilities.includes('Computes')) continue;
    for (const t of data.types) {
      if (t.class !== 'premium' && t.class !== 'gpu') continue;
      const capability = t.class === 'gpu' ? 'GPU Computes' : 'Premium Plans';
      // The largest plans sell out first: a stable, plausible pattern.
      const soldOut = t.class === 'gpu' ? t.gpus >= 4 : t.vcpus >= 64;
      out.push({
        region: r.id,
        plan: t.id,
        available: r.capabilities.includes(capability) && !soldOut,
      });
    }
  }
  return out;
}
