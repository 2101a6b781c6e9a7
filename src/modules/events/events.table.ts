import type { Generated } from 'kysely';

export interface EventsTable {
  id: Generated<number>;
  account_id: number;
  action: string;
  created: string;
  /** Seconds, set when the event finishes or fails. */
  duration: number | null;
  entity_type: string | null;
  entity_id: number | null;
  entity_label: string | null;
  entity_url: string | null;
  secondary_entity_type: string | null;
  secondary_entity_id: number | null;
  secondary_entity_label: string | null;
  secondary_entity_url: string | null;
  message: string | null;
  percent_complete: number | null;
  rate: string | null;
  read: number;
  seen: number;
  status: string;
  time_remaining: string | null;
  username: string | null;
  /** Epoch ms the event was recorded, then when it moved into `started`: the base of duration. */
  started_ms: number | null;
}

/** The version of an account's feed (src/modules/events/events.feed.ts). */
export interface EventFeedsTable {
  account_id: number;
  version: number;
}

export interface EventTables {
  events: EventsTable;
  event_feeds: EventFeedsTable;
}
