import { defineArea } from '../../platform/area.js';
import { catalogueModule } from '../catalogue/catalogue.module.js';
import { addressesRoutes } from './addresses.routes.js';
import { AssignService } from './assign.service.js';
import { FirewallRulesetsService } from './firewall-rulesets.service.js';
import { firewallInternalRoutes, firewallsRoutes } from './firewalls.routes.js';
import { FirewallsService } from './firewalls.service.js';
import { ForwardDns } from './forward-dns.js';
import { IpAllocator, loadPools } from './ip-allocator.js';
import { IpsService } from './ips.service.js';
import { Ipv6Service } from './ipv6.service.js';
import { networkingEntities } from './networking.entities.js';
import { networkingRoutes } from './networking.routes.js';
import { reservedRoutes } from './reserved.routes.js';
import { ReservedIpsService } from './reserved.service.js';
import { setVlanClock, VlansService } from './vlans.service.js';

/**
 * IP addresses (the per-region pools they are drawn from, assign and share, reserved addresses,
 * IPv6 pools and ranges, reverse DNS), VLANs and firewalls. The compute and NodeBalancer areas draw addresses
 * from its allocator and apply its firewalls.
 */
export const networkingModule = defineArea({
  name: 'networking',
  needs: [catalogueModule],
  tables: [
    'ip_addresses',
    'ip_allocation_locks',
    'ip_shares',
    'ipv6_ranges',
    'ipv6_rdns',
    'firewalls',
    'firewall_devices',
    'firewall_rule_versions',
    'firewall_settings',
    'firewall_rulesets',
    'vlans',
  ],
  entities: networkingEntities,
  services: ({ config, db, clock, events, entities }, { catalogue: catalogueArea }) => {
    const { catalogue } = catalogueArea;
    setVlanClock(db, clock);
    const regions = catalogueArea.data.regions;
    const ipAllocator = new IpAllocator(
      loadPools(
        config.ipPoolsFile,
        regions.map((r) => r.id),
      ),
    );
    const reserved = new ReservedIpsService({
      db,
      clock,
      events,
      ips: ipAllocator,
      catalogue,
      limit: config.reservedIpv4Limit,
    });
    return {
      ipAllocator,
      reserved,
      ips: new IpsService({
        db,
        clock,
        events,
        ips: ipAllocator,
        forwardDns: new ForwardDns(config.rdnsResolver),
        reserved,
        catalogue,
      }),
      firewalls: new FirewallsService({ db, clock, events, entities }),
      rulesets: new FirewallRulesetsService({ db, clock }),
      assign: new AssignService({ db, ips: ipAllocator, clock }),
      ipv6: new Ipv6Service({ db, clock, ips: ipAllocator }),
      vlans: new VlansService(
        db,
        regions.filter((r) => r.capabilities.includes('Vlans')).map((r) => r.id),
      ),
    };
  },
  api: (ctx) => [
    networkingRoutes(ctx),
    firewallsRoutes(ctx),
    addressesRoutes(ctx),
    reservedRoutes(ctx),
  ],
  internal: (ctx) => [firewallInternalRoutes(ctx)],
});
