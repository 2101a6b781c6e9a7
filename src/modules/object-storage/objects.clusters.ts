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
 * Host names under which `<bucket>.<name>` is a virtual-host-style request: `localhost` and the
 * host of STRATUS_S3_ENDPOINT (else of STRATUS_PUBLIC_URL).
 */
export function virtualHostSuffixes(configured: string | undefined): string[] {
  const out = ['localhost'];
  if (configured) out.push(new URL(configured).hostname.toLowerCase());
  return out;
}

/** The bucket a Host header names in virtual-host style, or undefined (path style). */
export function bucketOfHost(
  host: string | undefined,
  suffixes: readonly string[],
): string | undefined {
  if (!host) return undefined;
  const name = host.toLowerCase().replace(/:\d+$/, '');
  for (const s of suffixes) {
    if (name.length > s.length + 1 && name.endsWith(`.${s}`)) return name.slice(0, -(s.length + 1));
  }
  return undefined;
}
