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

/**
 * The public base URL of the data plane: `STRATUS_S3_ENDPOINT` when the operator set one (a proxy
 * or DNS name in front), else the scheme and host the API request came in on, which reaches this
 * process.
 */
export function publicBase(configured: string | undefined, proto: string, host: string): string {
  return configured ?? `${proto}://${host}`;
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
    static_site_domain: noScheme(`${base}${S3_PREFIX}-website/${cluster}`),
  };
}

/** The bucket's path-style address (host-style names are not served). */
export function bucketHostname(base: string, cluster: string, label: string): string {
  return `${noScheme(clusterEndpoint(base, cluster))}/${label}`;
}
