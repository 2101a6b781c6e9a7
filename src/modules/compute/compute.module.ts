import { defineArea } from '../../platform/area.js';
import { catalogueModule } from '../catalogue/catalogue.module.js';
import { networkingModule } from '../networking/networking.module.js';
import { placementModule } from '../placement/placement.module.js';
import { backupJobs } from './backups.jobs.js';
import { computeBackupsRoutes } from './backups.routes.js';
import { BackupsService } from './backups.service.js';
import { CloneService } from './clone.service.js';
import { computeEntities } from './compute.entities.js';
import { computeJobs } from './compute.jobs.js';
import { FirewallApplyService, firewallApplyJob } from './firewall-apply.js';
import { configsRoutes } from './configs.routes.js';
import { ConfigsService } from './configs.service.js';
import { diskJobs } from './disks.jobs.js';
import { disksRoutes } from './disks.routes.js';
import { DisksService } from './disks.service.js';
import { instancesRoutes } from './instances.routes.js';
import { InstancesService } from './instances.service.js';
import { interfacesRoutes } from './interfaces.routes.js';
import { InterfacesService } from './interfaces.service.js';
import { computeInterfacesRoutes } from './compute-interfaces.routes.js';
import { ComputeInterfacesService } from './compute-interfaces.service.js';
import { computeIpsRoutes } from './ips.routes.js';
import { MigrateService } from './migrate.service.js';
import { opJobs } from './ops.jobs.js';
import { computeOpsRoutes } from './ops.routes.js';
import { OpsService } from './ops.service.js';
import { PowerService } from './power.service.js';
import { RebuildService } from './rebuild.service.js';
import { computeStatsRoutes } from './stats.routes.js';
import { StatsService } from './stats.service.js';
import { MachinesService } from './machines.service.js';
import { machinesRoutes } from './machines.routes.js';

/**
 * Compute instances: create, power, disks, configs and interfaces, IPs (served by the networking
 * area's services), stats, and the long operations (resize, mutate, migrate, rebuild, rescue,
 * clone, backups), each a durable job.
 */
export const computeModule = defineArea({
  name: 'compute',
  needs: [catalogueModule, networkingModule, placementModule],
  tables: [
    'instances',
    'disks',
    'configs',
    'config_interfaces',
    'compute_interfaces',
    'instance_runs',
    'instance_clones',
    'backups',
    'instance_seeds',
    'machine_samples',
    'disk_sources',
  ],
  entities: computeEntities,
  jobs: [...computeJobs, ...diskJobs, ...opJobs, ...backupJobs, firewallApplyJob],
  services: (
    { db, clock, events, queue, machines, log, config },
    { catalogue: { catalogue }, networking, placement: { groups: placement } },
  ) => {
    const { firewalls, ipAllocator: ips } = networking;
    const computeInterfaces = new ComputeInterfacesService({ db, clock, events, ips, firewalls });
    const instances = new InstancesService({
      db,
      clock,
      events,
      queue,
      catalogue,
      ips,
      firewalls,
      placement,
      machines,
      computeInterfaces,
    });
    return {
      instances,
      computeInterfaces,
      power: new PowerService({ db, clock, events, queue, machines }, instances),
      disks: new DisksService({ db, clock, events, queue, catalogue, machines }, instances),
      configs: new ConfigsService({ db, clock, events, catalogue }, instances),
      interfaces: new InterfacesService({ db, clock, events }, instances),
      stats: new StatsService({ db, clock, catalogue, firewalls, machines }, instances),
      firewallApply: new FirewallApplyService({ db, events, queue }, instances),
      ops: new OpsService({ db, clock, events, queue, catalogue, ips, machines }, instances),
      migrate: new MigrateService(
        { db, clock, events, queue, catalogue, ips, placement, machines },
        instances,
      ),
      rebuild: new RebuildService({ db, clock, events, queue, catalogue, machines }, instances),
      clone: new CloneService(
        { db, clock, events, queue, catalogue, ips, placement, machines, computeInterfaces },
        instances,
      ),
      backups: new BackupsService({ db, clock, events, queue, catalogue, machines }, instances),
      machines: new MachinesService({
        db,
        machines,
        events,
        queue,
        clock,
        log: log.child({ subsystem: 'machines' }),
        watchMs: config.machines.watchMs,
      }),
    };
  },
  api: (ctx) => [
    instancesRoutes(ctx),
    disksRoutes(ctx),
    configsRoutes(ctx),
    interfacesRoutes(ctx),
    computeInterfacesRoutes(ctx),
    computeIpsRoutes(ctx),
    computeStatsRoutes(ctx),
    computeOpsRoutes(ctx),
    computeBackupsRoutes(ctx),
  ],
  internal: (ctx) => [machinesRoutes(ctx)],
});
