import { type RawBuilder, type SqlBool, sql } from 'kysely';
import { GRANT_TYPES } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { toBool } from '../../db/database.js';
import type { FilterSpec } from '../../lib/filter.js';
import type { EventsTable } from './events.table.js';

/** Filterable fields of Event (reference: x-compute-filterable). */
export const EVENT_FILTERS: FilterSpec = {
  id: { kind: 'int', column: 'events.id' },
  action: { kind: 'string', column: 'events.action' },
  created: { kind: 'datetime', column: 'events.created' },
  'entity.id': { kind: 'int', column: 'events.entity_id' },
  'entity.type': { kind: 'string', column: 'events.entity_type' },
  read: { kind: 'bool', column: 'events.read' },
};

type EventRow = Omit<EventsTable, 'id'> & { id: number };

const PROFILE_TYPES = ['token', 'ssh_key', 'user'];

/**
 * Which events a user sees: every event of the account for unrestricted users; for restricted
 * users, events of entities they hold a grant on, their own profile events, and account events
 * (no entity, or an entity that is neither grantable nor a profile item: the account, payment
 * methods, object storage keys, OAuth clients…) when they have account access.
 */
export function eventVisibility(p: Principal): RawBuilder<SqlBool> | undefined {
  if (!p.restricted) return undefined;
  const accountEvents = p.globalGrants.account_access !== null;
  return sql<SqlBool>`(
    (events.entity_type in (${sql.join([...GRANT_TYPES])}) and exists (
      select 1 from entity_grants g where g.user_id = ${p.userId}
        and g.entity_type = events.entity_type and g.entity_id = events.entity_id))
    or (events.entity_type in (${sql.join(PROFILE_TYPES)}) and events.username = ${p.username})
    or (${accountEvents ? 1 : 0} = 1 and (events.entity_type is null
      or events.entity_type not in (${sql.join([...GRANT_TYPES, ...PROFILE_TYPES])})))
  )`;
}

export function baseEventQuery(db: Database, p: Principal, sinceIso: string) {
  let q = db.db
    .selectFrom('events')
    .where('events.account_id', '=', p.accountId)
    .where('events.created', '>=', sinceIso);
  const vis = eventVisibility(p);
  if (vis) q = q.where(vis);
  return q;
}

export function toApiEvent(r: EventRow) {
  const ref = (type: string | null, id: number | null, label: string | null, url: string | null) =>
    type === null ? null : { id, type, label, url };
  return {
    id: r.id,
    action: r.action,
    created: r.created,
    duration: r.duration,
    entity: ref(r.entity_type, r.entity_id, r.entity_label, r.entity_url),
    secondary_entity: ref(
      r.secondary_entity_type,
      r.secondary_entity_id,
      r.secondary_entity_label,
      r.secondary_entity_url,
    ),
    message: r.message,
    percent_complete: r.percent_complete,
    rate: r.rate,
    read: toBool(r.read),
    seen: toBool(r.seen),
    status: r.status,
    time_remaining: r.time_remaining,
    username: r.username,
  };
}
export type ApiEvent = ReturnType<typeof toApiEvent>;
