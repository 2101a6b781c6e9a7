import type { Logger } from 'pino';
import type { DnsConfig } from '../../../config/dns-config.js';
import type { Database } from '../../../db/database.js';
import { DnsServer, type DnsListener } from './server.js';
import { ZoneSource } from './zones.js';

/**
 * The authoritative DNS server of a process: `stratus serve` starts it when STRATUS_DNS_PORT is
 * set, `stratus dns` runs it alone. Any number of processes may serve the same database.
 */
export class DnsService {
  readonly server: DnsServer;

  constructor(
    db: Database,
    readonly config: DnsConfig,
    log: Logger,
    onNotify: (zoneId: number) => Promise<void>,
  ) {
    this.server = new DnsServer({
      zones: new ZoneSource(db, config.nameservers),
      log,
      onNotify,
    });
  }

  /** Listens at the configured address, or the one given (tests: port 0). */
  listen(host = this.config.host, port = this.config.port ?? 0): Promise<DnsListener> {
    return this.server.listen(host, port);
  }
}
