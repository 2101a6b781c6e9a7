import { defineArea } from '../../platform/area.js';
import { subsystem } from '../../logger.js';
import { DnsService } from './dns/dns.service.js';
import { domainEntities } from './domains.entities.js';
import { domainJobs } from './domains.jobs.js';
import { domainsRoutes } from './domains.routes.js';
import { DomainsService } from './domains.service.js';
import { RecordsService } from './records.service.js';

/**
 * Domains (DNS zones, master and slave) and their records, and the authoritative DNS server that
 * answers for them (UDP and TCP, STRATUS_DNS_*). Domains are free: nothing is billed.
 */
export const domainsModule = defineArea({
  name: 'domains',
  needs: [],
  tables: ['domains', 'domain_records', 'domain_slave_zones'],
  entities: domainEntities,
  jobs: domainJobs,
  services: ({ db, clock, events, queue, config, log }) => {
    const domains = new DomainsService({ db, clock, events, queue, dns: config.dns });
    return {
      domains,
      records: new RecordsService({ db, clock, events, domains }),
      dns: new DnsService(db, config.dns, subsystem(log, 'dns'), (id) => domains.refreshNow(id)),
    };
  },
  api: (ctx) => [domainsRoutes(ctx)],
});
