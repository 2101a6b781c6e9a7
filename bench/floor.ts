import fastJson from 'fast-json-stringify';
import { authenticate } from '../src/auth/tokens.js';
import { Database } from '../src/db/database.js';
import { systemClock } from '../src/lib/clock.js';
import { EventPage } from '../src/modules/events/events.schemas.js';
import { EventsService } from '../src/modules/events/events.service.js';

export interface Floor {
  /** ms per page: the service call (SQL, rows, mapping), in process, one at a time. */
  listMs: number;
  /** ms per page: serializing it with the route's response schema (fast-json-stringify). */
  serializeMs: number;
  bytes: number;
}

/**
 * The cost of one events page without HTTP: `EventsService.list` and the response serializer,
 * timed in this process on the seeded database, one page at a time (wall time: on PostgreSQL it
 * includes the database server's work and the round trip). On SQLite it is a floor: no server
 * can answer the page for less CPU.
 */
export async function eventsPageFloor(
  databaseUrl: string,
  token: string,
  xFilter: string,
): Promise<Floor> {
  const db = Database.connect(databaseUrl);
  try {
    const p = await authenticate(db, token, Date.now());
    if (!p) throw new Error('floor: the admin token does not resolve');
    const svc = new EventsService(db, systemClock);
    const serialize = fastJson(EventPage as Parameters<typeof fastJson>[0]);
    const list = () => svc.list(p, { page_size: 100 }, xFilter);
    for (let i = 0; i < 300; i++) serialize(await list());
    const n = 1000;
    let t = performance.now();
    let page = await list();
    for (let i = 1; i < n; i++) page = await list();
    const listMs = (performance.now() - t) / n;
    t = performance.now();
    let body = '';
    for (let i = 0; i < n; i++) body = serialize(page);
    const serializeMs = (performance.now() - t) / n;
    return { listMs, serializeMs, bytes: Buffer.byteLength(body) };
  } finally {
    await db.close();
  }
}
