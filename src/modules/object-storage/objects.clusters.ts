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
