import { entityRefs, type NewEvent } from '../../src/modules/events/events.types.js';
import type { Database } from '../../src/db/database.js';
import type { TestApp } from './build-test-app.js';

/** A finished `compute_boot` of instance 1 by the test account's owner, with `e` over it. */
const sampleEvent = (t: TestApp, e: Partial<NewEvent> = {}): NewEvent => ({
  accountId: t.admin.accountId,
  action: 'compute_boot',
  entity: entityRefs.compute(1, 'web-1'),
  status: 'finished',
  username: 'owner',
  ...e,
});

/** Records `sampleEvent(t, e)` through the event writer (in `db`'s transaction if it has one). */
export const recordEvent = (
  t: TestApp,
  e: Partial<NewEvent> = {},
  db: Database = t.ctx.db,
): Promise<number> => t.ctx.events.record(db, sampleEvent(t, e));
