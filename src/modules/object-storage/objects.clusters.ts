import type { CatalogueData } from '../catalogue/catalogue.data.js';
import type { ApiCluster } from './objects.schemas.js';

/** Where the data plane is mounted on the API listener. */
export const S3_PREFIX = '/_stratus/s3';

/** One object-storage cluster per catalogue region offering Object Storage: `<region>-1`. */
export function clusterIds(data: CatalogueData): string[] {
  return data.regions
    .filter((r) => r.capabilities.includes('Object Storage'))
    .map((r) => `${r.id}-1`);
}

/** A cluster's S3 endpoint: path-style requests go to `<endpoint>/<bucket>/<key>`. */
export function clusterEndpoint(base: string, cluster: string): string {
  return `${base}${S3_PREFIX}/${cluster}`;
}

const noScheme = (url: string) => url.replace(/^https?:\/\//, '');

export function toApiCluster(base: string, cluster: string): ApiCluster {
  return {
    id: cluster,
    domain: noScheme(clusterEndpoint(base, cluster)),
    status: 'available',
    region: cluster.replace(/-1$/, ''),
    static_site_domain: noScheme(`${base}${S3_PREFIX}-website/${cluster}`), // s3.website.ts
  };
}

/**
 * The bucket's address: path-style (`<domain>/<bucket>`, which reaches this server wherever its
 * domain does), or virtual-host-style (`<bucket>.<domain>`) when the operator's DNS resolves
 * such names to it (STRATUS_S3_VIRTUAL_HOSTS).
 */
export function bucketHostname(
  base: string,
  cluster: string,
  label: string,
  virtualHost = false,
): string {
  const domain = noScheme(clusterEndpoint(base, cluster));
  return virtualHost ? `${label}.${domain}` : `${domain}/${label}`;
}

/**
 * Host names under which `<bucket>.<name>` is a virtual-host-style request: `s3.localhost`,
 * `localhost` and the host of STRATUS_S3_ENDPOINT (else of STRATUS_PUBLIC_URL), longest first, so
 * `b.s3.localhost` is bucket `b`.
 */
export function virtualHostSuffixes(configured: string | undefined): string[] {
  const out = ['s3.localhost', 'localhost'];
  if (configured) out.push(new URL(configured).hostname.toLowerCase());
  return [...new Set(out)].sort((a, b) => b.length - a.length);
}

/**
 * What a Host header names under one of `suffixes`: `<cluster>.<suffix>` a cluster,
 * `<bucket>.<cluster>.<suffix>` a bucket of a cluster, `<bucket>.<suffix>` a bucket; nothing
 * for any other host (an address, or the suffix itself).
 */
export function parseS3Host(
  host: string | undefined,
  suffixes: readonly string[],
  clusters: readonly string[],
): { bucket?: string; cluster?: string } {
  if (!host) return {};
  const name = host.toLowerCase().replace(/:\d+$/, '');
  if (suffixes.includes(name)) return {};
  for (const s of suffixes) {
    if (name.length <= s.length + 1 || !name.endsWith(`.${s}`)) continue;
    const left = name.slice(0, -(s.length + 1));
    if (clusters.includes(left)) return { cluster: left };
    const c = clusters.find((id) => left.endsWith(`.${id}`));
    if (c) return { bucket: left.slice(0, -(c.length + 1)), cluster: c };
    return { bucket: left };
  }
  return {};
}

/** The cluster of requests that name none: `us-east-1` when it exists, else the first. */
export function defaultCluster(clusters: readonly string[]): string {
  return clusters.includes('us-east-1') ? 'us-east-1' : (clusters[0] ?? '');
}

/** Endpoint types: E0 the legacy clusters, E1–E3 the newer generations. */
export const ENDPOINT_TYPES = ['E0', 'E1', 'E2', 'E3'] as const;
export type EndpointType = (typeof ENDPOINT_TYPES)[number];

/**
 * The regions whose cluster is one of the provider's first (legacy, E0) clusters; every other
 * Object Storage region has a newer (E1) endpoint, as the recorded `/object-storage/endpoints`
 * shows for the regions Stratus's catalogue has.
 */
const LEGACY_REGIONS = new Set(['us-east', 'us-southeast', 'eu-central', 'ap-south']);

/** A region's S3 endpoint: its one cluster, reached through the data plane. */
export interface RegionEndpoint {
  region: string;
  cluster: string;
  endpoint_type: EndpointType;
}

/** The region of a cluster (`<region>-1`). */
export const regionOfCluster = (cluster: string): string => cluster.replace(/-1$/, '');

export function endpointOf(cluster: string): RegionEndpoint {
  const region = regionOfCluster(cluster);
  return { region, cluster, endpoint_type: LEGACY_REGIONS.has(region) ? 'E0' : 'E1' };
}

/**
 * A bucket path's `{clusterId}`: a cluster id, or (the newer form) the id of a region offering
 * Object Storage; null for anything else.
 */
export function resolveCluster(clusters: readonly string[], id: string): string | null {
  if (clusters.includes(id)) return id;
  return clusters.includes(`${id}-1`) ? `${id}-1` : null;
}

/** A cluster's S3 endpoint as the API names it (`s3_endpoint`): the cluster's `domain`. */
export const s3Endpoint = (base: string, cluster: string): string =>
  noScheme(clusterEndpoint(base, cluster));
