import { computeJobs } from '../modules/compute/compute.jobs.js';
import { diskJobs } from '../modules/compute/disks.jobs.js';
import { opJobs } from '../modules/compute/ops.jobs.js';
import { backupJobs } from '../modules/compute/backups.jobs.js';
import { volumeJobs } from '../modules/volumes/volumes.jobs.js';
import { imageJobs } from '../modules/images/images.jobs.js';
import { transferJobs } from '../modules/transfers/transfers.jobs.js';
import { noticeJobs } from '../modules/account-notices/maintenance.jobs.js';
import { invoicingJob } from '../modules/billing/invoicing.js';
import type { AnyJobDefinition } from './runner.js';

/** Every job definition, listed explicitly. Areas add their jobs here. */
export function jobDefinitions(): AnyJobDefinition[] {
  return [
    ...computeJobs,
    ...volumeJobs,
    ...diskJobs,
    ...imageJobs,
    ...opJobs,
    ...backupJobs,
    ...transferJobs,
    ...noticeJobs,
    invoicingJob,
  ];
}
