import type { JobTables } from '../jobs/jobs.table.js';
import type { BillingTables } from '../modules/billing/billing.table.js';
import type { CatalogueTables } from '../modules/catalogue/catalogue.table.js';
import type { ControlsTables } from '../modules/controls/controls.table.js';
import type { ComputeTables } from '../modules/compute/compute.table.js';
import type { MachineTables } from '../modules/compute/machines.table.js';
import type { EventTables } from '../modules/events/events.table.js';
import type { ImageTables } from '../modules/images/images.table.js';
import type { StackScriptTables } from '../modules/stackscripts/stackscripts.table.js';
import type { IdentityTables } from '../modules/identity/identity.table.js';
import type { NodeBalancerTables } from '../modules/nodebalancers/nodebalancers.table.js';
import type { OAuthTables } from '../modules/oauth/oauth.table.js';
import type { ObjectStorageTables } from '../modules/object-storage/objects.table.js';
import type { NetworkingTables } from '../modules/networking/networking.table.js';
import type { TagTables } from '../modules/tags/tags.table.js';
import type { VolumeTables } from '../modules/volumes/volumes.table.js';
import type { VpcTables } from '../modules/vpcs/vpcs.table.js';
import type { TransferTables } from '../modules/transfers/transfers.table.js';
import type { NoticeTables } from '../modules/account-notices/notices.table.js';
import type { DomainTables } from '../modules/domains/domains.table.js';
import type { LockTables } from '../modules/locks/locks.table.js';
import type { PlacementTables } from '../modules/placement/placement.table.js';
import type { SupportTables } from '../modules/support/support.table.js';
import type { LongviewTables } from '../modules/longview/longview.table.js';
import type { ManagedTables } from '../modules/managed/managed.table.js';
import type { BetaTables } from '../modules/betas/betas.table.js';
import type { AgreementTables } from '../modules/agreements/agreements.table.js';
import type { ChildAccountTables } from '../modules/child-accounts/child-accounts.table.js';
import type { ImageSharingTables } from '../modules/image-sharing/sharing.table.js';

/** Every table of the database: the intersection of each area's tables. */
export type DatabaseSchema = IdentityTables &
  EventTables &
  JobTables &
  CatalogueTables &
  ComputeTables &
  MachineTables &
  NetworkingTables &
  NodeBalancerTables &
  TagTables &
  VolumeTables &
  VpcTables &
  ImageTables &
  ImageSharingTables &
  StackScriptTables &
  OAuthTables &
  ObjectStorageTables &
  BillingTables &
  TransferTables &
  NoticeTables &
  DomainTables &
  PlacementTables &
  LockTables &
  SupportTables &
  LongviewTables &
  ManagedTables &
  BetaTables &
  AgreementTables &
  ChildAccountTables &
  ControlsTables;
