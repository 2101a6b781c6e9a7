import type { JobTables } from '../jobs/jobs.table.js';
import type { BillingTables } from '../modules/billing/billing.table.js';
import type { CatalogueTables } from '../modules/catalogue/catalogue.table.js';
import type { ControlsTables } from '../modules/controls/controls.table.js';
import type { ComputeTables } from '../modules/compute/compute.table.js';
import type { EventTables } from '../modules/events/events.table.js';
import type { IdentityTables } from '../modules/identity/identity.table.js';
import type { NetworkingTables } from '../modules/networking/networking.table.js';
import type { TagTables } from '../modules/tags/tags.table.js';
import type { VolumeTables } from '../modules/volumes/volumes.table.js';

/** Every table of the database: the intersection of each area's tables. */
export type DatabaseSchema = IdentityTables &
  EventTables &
  JobTables &
  CatalogueTables &
  ComputeTables &
  NetworkingTables &
  TagTables &
  VolumeTables &
  BillingTables &
  ControlsTables;
