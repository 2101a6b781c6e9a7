import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../platform/area.js';
import type { BackupsService } from './backups.service.js';
import { principal } from '../../http/principal.js';
import { Empty } from '../../http/schemas/common.js';
import {
  BackupParams,
  BackupSchema,
  BackupsListSchema,
  RestoreBody,
  SnapshotBody,
} from './backups.schemas.js';
import { ComputeParams } from './compute.schemas.js';

type Ctx = RouteContext<{ backups: BackupsService }>;

const tags = ['Compute Instances'];
const read = { scopes: ['computes:read_only'] };
const write = { scopes: ['computes:read_write'] };

/** Backups of an instance: list, view, snapshot, enable, cancel and restore. */
export function computeBackupsRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.backups;
  return async (app) => {
    app.get(
      '/compute/instances/:computeId/backups',
      {
        schema: {
          tags,
          summary: 'Backups List',
          params: ComputeParams,
          response: { 200: BackupsListSchema },
        },
        config: { operationId: 'getBackups', ...read },
      },
      (req) => svc.list(principal(req), req.params.computeId),
    );
    app.post(
      '/compute/instances/:computeId/backups',
      {
        schema: {
          tags,
          summary: 'Snapshot Create',
          params: ComputeParams,
          body: SnapshotBody,
          response: { 200: BackupSchema },
        },
        config: { operationId: 'createSnapshot', ...write },
      },
      (req) => svc.snapshot(principal(req), req.params.computeId, req.body.label),
    );
    app.post(
      '/compute/instances/:computeId/backups/enable',
      {
        schema: {
          tags,
          summary: 'Backups Enable',
          params: ComputeParams,
          response: { 200: Empty },
        },
        config: { operationId: 'enableBackups', ...write },
      },
      async (req) => {
        await svc.enable(principal(req), req.params.computeId);
        return {};
      },
    );
    app.post(
      '/compute/instances/:computeId/backups/cancel',
      {
        schema: {
          tags,
          summary: 'Backups Cancel',
          params: ComputeParams,
          response: { 200: Empty },
        },
        config: { operationId: 'cancelBackups', ...write },
      },
      async (req) => {
        await svc.cancel(principal(req), req.params.computeId);
        return {};
      },
    );
    app.get(
      '/compute/instances/:computeId/backups/:backupId',
      {
        schema: {
          tags,
          summary: 'Backup View',
          params: BackupParams,
          response: { 200: BackupSchema },
        },
        config: { operationId: 'getBackup', ...read },
      },
      (req) => svc.get(principal(req), req.params.computeId, req.params.backupId),
    );
    app.post(
      '/compute/instances/:computeId/backups/:backupId/restore',
      {
        schema: {
          tags,
          summary: 'Backup Restore',
          params: BackupParams,
          body: RestoreBody,
          response: { 200: Empty },
        },
        config: { operationId: 'restoreBackup', ...write },
      },
      async (req) => {
        const { computeId, backupId } = req.params;
        await svc.restore(
          principal(req),
          computeId,
          backupId,
          req.body.compute_id,
          req.body.overwrite ?? false,
        );
        return {};
      },
    );
  };
}
