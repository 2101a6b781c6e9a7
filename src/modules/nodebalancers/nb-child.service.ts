import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { errors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { isoSeconds } from '../../lib/time.js';
import type { EventWriter } from '../events/events.writer.js';
import { type ConfigRow, findConfig, type NbRow, nbRef } from './nodebalancers.repository.js';
import type { KeySealer, NodeBalancersService } from './nodebalancers.service.js';

export interface NbConfigDeps {
  db: Database;
  clock: Clock;
  events: EventWriter;
  /** Seals TLS private keys (the process's one Sealer); `ready()` before a transaction. */
  sealer: KeySealer;
}

type Action =
  | 'nodebalancer_config_create'
  | 'nodebalancer_config_update'
  | 'nodebalancer_config_delete'
  | 'nodebalancer_node_create'
  | 'nodebalancer_node_update'
  | 'nodebalancer_node_delete';

/** What the configs and nodes services share: the NodeBalancer check, the config lookup, events. */
export abstract class NbChildService {
  constructor(
    protected readonly d: NbConfigDeps,
    protected readonly nbs: NodeBalancersService,
  ) {}

  protected now(): string {
    return isoSeconds(this.d.clock.nowMs());
  }

  /** Events of configs and nodes name their NodeBalancer. */
  protected event(db: Database, p: Principal, nb: NbRow, action: Action) {
    return this.d.events.record(db, {
      accountId: p.accountId,
      action,
      entity: nbRef(nb.id, nb.label),
      status: 'notification',
      username: p.username,
    });
  }

  /** A config of the NodeBalancer (404 otherwise). */
  protected async config(db: Database, nb: NbRow, id: number): Promise<ConfigRow> {
    const row = await findConfig(db, nb.id, id);
    if (!row) throw errors.notFound();
    return row;
  }
}
