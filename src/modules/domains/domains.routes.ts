import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../platform/area.js';
import { principal, xFilter } from '../../http/principal.js';
import { Empty, PageQuery } from '../../http/schemas/common.js';
import {
  CloneDomainBody,
  CreateDomainBody,
  CreateRecordBody,
  DomainPage,
  DomainParams,
  DomainSchema,
  ImportDomainBody,
  RecordPage,
  RecordParams,
  RecordSchema,
  UpdateDomainBody,
  UpdateRecordBody,
  ZoneFileSchema,
} from './domains.schemas.js';
import type { DomainsService } from './domains.service.js';
import type { RecordsService } from './records.service.js';

type Ctx = RouteContext<{ domains: DomainsService; records: RecordsService }>;

const tags = ['Domains'];
const read = { scopes: ['domains:read_only'] };
const write = { scopes: ['domains:read_write'] };

export function domainsRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.domains;
  const records = ctx.services.records;
  return async (app) => {
    app.get(
      '/domains',
      {
        schema: {
          tags,
          summary: 'Domains List',
          querystring: PageQuery,
          response: { 200: DomainPage },
        },
        config: { operationId: 'getDomains', ...read, paged: true },
      },
      (req) => svc.list(principal(req), req.query, xFilter(req)),
    );
    app.post(
      '/domains',
      {
        schema: {
          tags,
          summary: 'Domain Create',
          body: CreateDomainBody,
          response: { 200: DomainSchema },
        },
        config: { operationId: 'createDomain', ...write },
      },
      (req) => svc.create(principal(req), req.body),
    );
    app.post(
      '/domains/import',
      {
        schema: {
          tags,
          summary: 'Domain Import',
          body: ImportDomainBody,
          response: { 200: DomainSchema },
        },
        config: { operationId: 'importDomain', ...write },
      },
      (req) => svc.import(principal(req), req.body),
    );
    app.get(
      '/domains/:domainId',
      {
        schema: {
          tags,
          summary: 'Domain View',
          params: DomainParams,
          response: { 200: DomainSchema },
        },
        config: { operationId: 'getDomain', ...read },
      },
      (req) => svc.get(principal(req), req.params.domainId),
    );
    app.put(
      '/domains/:domainId',
      {
        schema: {
          tags,
          summary: 'Domain Update',
          params: DomainParams,
          body: UpdateDomainBody,
          response: { 200: DomainSchema },
        },
        config: { operationId: 'updateDomain', ...write },
      },
      (req) => svc.update(principal(req), req.params.domainId, req.body),
    );
    app.delete(
      '/domains/:domainId',
      {
        schema: { tags, summary: 'Domain Delete', params: DomainParams, response: { 200: Empty } },
        config: { operationId: 'deleteDomain', ...write },
      },
      async (req) => {
        await svc.delete(principal(req), req.params.domainId);
        return {};
      },
    );
    app.get(
      '/domains/:domainId/zone-file',
      {
        schema: {
          tags,
          summary: 'Domain Zone File View',
          params: DomainParams,
          response: { 200: ZoneFileSchema },
        },
        config: { operationId: 'getDomainZone', ...read },
      },
      (req) => svc.zoneFile(principal(req), req.params.domainId),
    );
    app.post(
      '/domains/:domainId/clone',
      {
        schema: {
          tags,
          summary: 'Domain Clone',
          params: DomainParams,
          body: CloneDomainBody,
          response: { 200: DomainSchema },
        },
        config: { operationId: 'cloneDomain', ...write },
      },
      (req) => svc.clone(principal(req), req.params.domainId, req.body.domain),
    );
    app.get(
      '/domains/:domainId/records',
      {
        schema: {
          tags,
          summary: 'Domain Records List',
          params: DomainParams,
          querystring: PageQuery,
          response: { 200: RecordPage },
        },
        config: { operationId: 'getDomainRecords', ...read, paged: true },
      },
      (req) => records.list(principal(req), req.params.domainId, req.query, xFilter(req)),
    );
    app.post(
      '/domains/:domainId/records',
      {
        schema: {
          tags,
          summary: 'Domain Record Create',
          params: DomainParams,
          body: CreateRecordBody,
          response: { 200: RecordSchema },
        },
        config: { operationId: 'createDomainRecord', ...write },
      },
      (req) => records.create(principal(req), req.params.domainId, req.body, req.ip),
    );
    app.get(
      '/domains/:domainId/records/:recordId',
      {
        schema: {
          tags,
          summary: 'Domain Record View',
          params: RecordParams,
          response: { 200: RecordSchema },
        },
        config: { operationId: 'getDomainRecord', ...read },
      },
      (req) => records.get(principal(req), req.params.domainId, req.params.recordId),
    );
    app.put(
      '/domains/:domainId/records/:recordId',
      {
        schema: {
          tags,
          summary: 'Domain Record Update',
          params: RecordParams,
          body: UpdateRecordBody,
          response: { 200: RecordSchema },
        },
        config: { operationId: 'updateDomainRecord', ...write },
      },
      (req) =>
        records.update(principal(req), req.params.domainId, req.params.recordId, req.body, req.ip),
    );
    app.delete(
      '/domains/:domainId/records/:recordId',
      {
        schema: {
          tags,
          summary: 'Domain Record Delete',
          params: RecordParams,
          response: { 200: Empty },
        },
        config: { operationId: 'deleteDomainRecord', ...write },
      },
      async (req) => {
        await records.delete(principal(req), req.params.domainId, req.params.recordId);
        return {};
      },
    );
  };
}
