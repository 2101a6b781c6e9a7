import FindMyWay from 'find-my-way';
import { errors } from '../errors/errors.js';

/**
 * Areas of the reference (and of the recorded traffic of later revisions) that Stratus does not
 * serve. A request to one of their paths answers 501 naming the area, in the API's error
 * format, instead of a bare "Not found"; a path no area has stays a plain 404. Paths are those
 * of the reference and the recorded wire, relative to `/v4`; every method of a path is covered.
 */
export interface UnservedArea {
  /** How the answer names it: "The <name> area is not provided by this server." */
  name: string;
  /** The entity type a ticket or grant would name (`database`, `lkecluster`), if any. */
  entityType?: string;
  paths: readonly string[];
}

const db = (engine: 'mysql' | 'postgresql') => [
  `/databases/${engine}/config`,
  `/databases/${engine}/instances`,
  `/databases/${engine}/instances/{instanceId}`,
  `/databases/${engine}/instances/{instanceId}/backups`,
  `/databases/${engine}/instances/{instanceId}/backups/{backupId}`,
  `/databases/${engine}/instances/{instanceId}/backups/{backupId}/restore`,
  `/databases/${engine}/instances/{instanceId}/credentials`,
  `/databases/${engine}/instances/{instanceId}/credentials/reset`,
  `/databases/${engine}/instances/{instanceId}/patch`,
  `/databases/${engine}/instances/{instanceId}/resume`,
  `/databases/${engine}/instances/{instanceId}/ssl`,
  `/databases/${engine}/instances/{instanceId}/suspend`,
];

export const UNSERVED_AREAS: readonly UnservedArea[] = [
  {
    name: 'Kubernetes (LKE)',
    entityType: 'lkecluster',
    paths: [
      '/lke/clusters',
      '/lke/clusters/{clusterId}',
      '/lke/clusters/{clusterId}/api-endpoints',
      '/lke/clusters/{clusterId}/control_plane_acl',
      '/lke/clusters/{clusterId}/dashboard',
      '/lke/clusters/{clusterId}/kubeconfig',
      '/lke/clusters/{clusterId}/nodes/{nodeId}',
      '/lke/clusters/{clusterId}/nodes/{nodeId}/recycle',
      '/lke/clusters/{clusterId}/pools',
      '/lke/clusters/{clusterId}/pools/{poolId}',
      '/lke/clusters/{clusterId}/pools/{poolId}/recycle',
      '/lke/clusters/{clusterId}/recycle',
      '/lke/clusters/{clusterId}/regenerate',
      '/lke/clusters/{clusterId}/servicetoken',
      '/lke/tiers/{tier}/versions',
      '/lke/tiers/{tier}/versions/{version}',
      '/lke/types',
      '/lke/versions',
      '/lke/versions/{version}',
    ],
  },
  {
    name: 'Managed Databases',
    entityType: 'database',
    paths: [
      '/databases/engines',
      '/databases/engines/{engineId}',
      '/databases/instances',
      '/databases/types',
      '/databases/types/{typeId}',
      ...db('mysql'),
      ...db('postgresql'),
    ],
  },
  {
    name: 'Monitoring (metrics, alerts, dashboards and log streams)',
    paths: [
      '/monitor/alert-channels',
      '/monitor/alert-definitions',
      '/monitor/dashboards',
      '/monitor/dashboards/{id}',
      '/monitor/services',
      '/monitor/services/{serviceType}',
      '/monitor/services/{serviceType}/alert-definitions',
      '/monitor/services/{serviceType}/alert-definitions/{id}',
      '/monitor/services/{serviceType}/alert-definitions/{id}/clone',
      '/monitor/services/{serviceType}/alert-definitions/{id}/entities',
      '/monitor/services/{serviceType}/dashboards',
      '/monitor/services/{serviceType}/metric-definitions',
      '/monitor/services/{serviceType}/metrics',
      '/monitor/services/{serviceType}/token',
      '/monitor/streams',
      '/monitor/streams/destinations',
      '/monitor/streams/destinations/{id}',
      '/monitor/streams/destinations/{id}/history',
      '/monitor/streams/{id}',
      '/monitor/streams/{id}/history',
    ],
  },
  {
    name: 'Identity and access (IAM roles)',
    paths: [
      '/entities',
      '/iam/role-permissions',
      '/iam/users/{username}/permissions/account',
      '/iam/users/{username}/permissions/{entityType}/{entityId}',
      '/iam/users/{username}/role-permissions',
    ],
  },
];

/** The answer's reason for an unserved area. */
export function notProvidedReason(area: Pick<UnservedArea, 'name'>): string {
  return `The ${area.name} area is not provided by this server.`;
}

/** The area whose entities a type names (`database`, `lkecluster`), when Stratus does not serve it. */
export function unservedEntity(entityType: string): UnservedArea | undefined {
  return UNSERVED_AREAS.find((a) => a.entityType === entityType);
}

/**
 * Looks up `/v4` paths among the unserved areas. Served routes win: the app asks this only for a
 * request no route took, so an area served later (or by another build) simply stops matching.
 */
export class UnservedRouter {
  private readonly router = FindMyWay({
    ignoreTrailingSlash: true,
    ignoreDuplicateSlashes: true,
    defaultRoute: () => {},
  });
  private readonly areas: UnservedArea[] = [];

  constructor(areas: readonly UnservedArea[] = UNSERVED_AREAS) {
    for (const [i, area] of areas.entries()) {
      this.areas.push(area);
      for (const p of area.paths) {
        const route = `/v4${p.replace(/\{([^}]+)\}/g, ':$1')}`;
        // The same template may come twice through different parameter names: first wins.
        if (this.router.find('GET', route) === null) {
          this.router.on('GET', route, () => {}, { area: i });
        }
      }
    }
  }

  /** The unserved area a request path (under `/v4`, without its query) belongs to. */
  find(path: string): UnservedArea | undefined {
    const hit = this.router.find('GET', path);
    if (!hit) return undefined;
    const i = (hit.store as { area?: number } | undefined)?.area;
    return i === undefined ? undefined : this.areas[i];
  }
}

let shared: UnservedRouter | undefined;

/**
 * The router of the shipped unserved areas, made at its first use (a request no route answers,
 * or a served route checking its parameter), not at start-up.
 */
export function unservedRouter(): UnservedRouter {
  shared ??= new UnservedRouter();
  return shared;
}

/**
 * Throws the 501 of an unserved area when `path` (under `/v4`) is one of its paths. For served
 * routes whose parameters also take an unserved path (`GET /images/{imageId}` takes
 * `/images/sharegroups`): they call it before looking the parameter up.
 */
export function refuseUnserved(path: string): void {
  const area = unservedRouter().find(path);
  if (area) throw errors.notProvided(notProvidedReason(area));
}
